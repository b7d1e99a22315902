//! Search across chats: every project, Korean words with their particles, titles, and where to
//! open the chat.

use maru_tests::fake_openai::{FakeOpenAi, Reply};
use maru_tests::server::TestServer;
use serde_json::Value;

fn marked(hit: &Value) -> Vec<String> {
    let snippet: Vec<char> = hit["snippet"].as_str().unwrap().chars().collect();
    hit["highlights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| snippet[r[0].as_u64().unwrap() as usize..r[1].as_u64().unwrap() as usize].iter().collect())
        .collect()
}

#[tokio::test]
async fn a_korean_word_is_found_with_its_particle_in_any_project() {
    let fake = FakeOpenAi::start().await;
    let s = TestServer::start().await;
    s.use_server(&fake.base_url(), "fake-model").await;
    let family = s.project("가족").await;
    let there = s.session(Some(family), "").await;
    fake.push(Reply::text(["네, 공유해 주세요."]));
    s.say(there, "다음 주 회의록을 공유할게요").await;
    let elsewhere = s.session(None, "").await;
    fake.push(Reply::text(["The meeting is at noon."]));
    s.say(elsewhere, "When do we meet?").await;
    let titled = s.session(None, "회의 준비 목록").await;

    let (_, hits) = s.get("/api/search?q=회의록").await;
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["session_id"], there, "found in another project's chat");
    assert_eq!(hits[0]["project_id"], family);
    let history = s.history(there).await;
    assert_eq!(hits[0]["message_id"], history[0]["id"], "the hit says which message to open the chat at");
    assert_eq!(marked(&hits[0]), ["회의록"], "the word is marked inside 회의록을");

    let (_, hits) = s.get("/api/search?q=meeting").await;
    assert_eq!(hits[0]["session_id"], elsewhere, "English is stemmed: meeting finds the reply");
    let (_, hits) = s.get("/api/search?q=준비").await;
    let hits = hits.as_array().unwrap();
    assert_eq!(
        (hits.len(), &hits[0]["session_id"], &hits[0]["message_id"]),
        (1, &Value::from(titled), &Value::Null),
        "a title matches too: {hits:?}"
    );
    let (_, hits) = s.get("/api/search?q=%22%29%28*").await;
    assert_eq!(hits, Value::Array(vec![]), "query syntax in the input is not an error");
}

#[tokio::test]
async fn an_earlier_reply_is_found_only_when_versions_are_asked_for() {
    let fake = FakeOpenAi::start().await;
    let s = TestServer::start().await;
    s.use_server(&fake.base_url(), "fake-model").await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text(["The lighthouse opens at nine."]));
    s.say(sess, "When does it open?").await;
    fake.push(Reply::text(["It opens in the morning."]));
    let again = s.turn(&format!("/api/sessions/{sess}/regenerate"), None).await.collect().await;
    assert_eq!(again.last().unwrap().name, "done", "{again:?}");

    let (_, hits) = s.get("/api/search?q=lighthouse").await;
    assert_eq!(hits, Value::Array(vec![]), "by default only what the chat shows is searched");
    let (_, hits) = s.get("/api/search?q=lighthouse&versions=true").await;
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 1, "the regenerated-away reply is found when asked: {hits:?}");
    assert_eq!(hits[0]["earlier_version"], true, "and marked as an earlier version, so the UI can say so");
    let (_, shown) = s.get("/api/search?q=morning&versions=true").await;
    assert_eq!(shown[0]["earlier_version"], false, "the version the chat shows is not marked");
}

#[tokio::test]
async fn words_inside_attached_files_are_found_across_chats_and_projects() {
    let fake = FakeOpenAi::start().await;
    let s = TestServer::start().await;
    s.use_server(&fake.base_url(), "fake-model").await;
    let trips = s.project("여행").await;
    let chat = s.session(Some(trips), "").await;
    s.attach_indexed(chat, "itinerary.md", "Day one: the ferry to Jeju leaves at 07:40.\nDay two: 한라산 등산로를 걷는다.").await;
    let (status, file) = s.upload("project_id", trips, "budget.txt", "Ferry tickets: 90,000 won".as_bytes().to_vec()).await;
    assert_eq!(status, 200, "{file}");
    maru_tests::eventually("the project's file is indexed", || async {
        let (_, f) = s.get(&format!("/api/attachments/{}", file["id"])).await;
        f["status"] == "ready"
    })
    .await;

    let (_, hits) = s.get("/api/search/files?q=ferry").await;
    let hits = hits.as_array().unwrap();
    let names: Vec<&str> = hits.iter().map(|h| h["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2, "both files that mention the ferry are found: {hits:?}");
    let itinerary = hits.iter().find(|h| h["name"] == "itinerary.md").unwrap();
    assert_eq!(
        (&itinerary["session_id"], &itinerary["project_id"]),
        (&Value::from(chat), &Value::from(trips)),
        "a chat's file says its chat"
    );
    let budget = hits.iter().find(|h| h["name"] == "budget.txt").unwrap();
    assert_eq!((&budget["session_id"], &budget["project_id"]), (&Value::Null, &Value::from(trips)), "a project's file says its project");
    assert_eq!(marked(itinerary), ["ferry"], "the word is marked in the passage");

    let (_, hits) = s.get("/api/search/files?q=등산로").await;
    assert_eq!(marked(&hits[0]), ["등산로"], "a Korean word is found inside 등산로를: {hits}");
    assert_eq!(hits[0]["line"], 1, "with where its passage begins, to open the file there: {hits}");
    let (_, hits) = s.get("/api/search/files?q=submarine").await;
    assert_eq!(hits, Value::Array(vec![]), "a word in no file finds nothing");
}
