//! Reply versions: regenerating a reply or editing and resending a message keeps what was there
//! as an earlier version. The chat is a tree; what the chat shows, what the model reads, what an
//! export holds and what the inspector measures is the branch the user chose.

use maru_tests::fake_openai::{FakeOpenAi, Reply};
use maru_tests::server::{with_fake_model as setup, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};

fn texts(history: &[Value]) -> Vec<&str> {
    history.iter().map(|m| m["content"].as_str().unwrap()).collect()
}

fn ids(v: &Value) -> Vec<i64> {
    v.as_array().unwrap().iter().map(|i| i.as_i64().unwrap()).collect()
}

/// The texts of what the model was sent last, without the system prompt and the send times.
fn last_sent(fake: &FakeOpenAi) -> Vec<String> {
    let body = fake.last_chat_body().expect("the model was asked");
    let without_time = |text: &str| text.split("\n\n").filter(|part| !part.starts_with("[Sent ")).collect::<Vec<_>>().join("\n\n");
    body["messages"].as_array().unwrap()[1..].iter().map(|m| without_time(m["content"].as_str().unwrap_or_default())).collect()
}

async fn regenerate(s: &TestServer, sess: i64) {
    let events = s.turn(&format!("/api/sessions/{sess}/regenerate"), None).await.collect().await;
    assert_eq!(events.last().unwrap().name, "done", "{events:?}");
}

async fn choose(s: &TestServer, id: i64) -> Value {
    let (st, page) = s.post(&format!("/api/messages/{id}/choose"), json!(null)).await;
    assert_eq!(st, StatusCode::OK, "choosing version {id}: {page}");
    page
}

#[tokio::test]
async fn regenerating_twice_keeps_three_answers_and_the_one_chosen_is_what_the_model_reads() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text(["first answer"]));
    s.say(sess, "a question").await;
    fake.push(Reply::text(["second answer"]));
    regenerate(&s, sess).await;
    fake.push(Reply::text(["third answer"]));
    regenerate(&s, sess).await;

    let asked = fake.chat_requests();
    assert_eq!(asked[0].body["messages"], asked[2].body["messages"], "a regenerate asks exactly what was asked the first time");
    let history = s.history(sess).await;
    assert_eq!(texts(&history), ["a question", "third answer"], "the chat shows the newest version");
    let versions = ids(&history[1]["versions"]);
    assert_eq!(versions.len(), 3, "no answer is lost: the reply has three versions");
    assert_eq!(versions[2], history[1]["id"], "versions are listed oldest first, the newest shown");
    assert_eq!(history[0]["versions"], json!([]), "the question itself has one version");

    let page = choose(&s, versions[0]).await;
    assert_eq!(page["messages"][0]["content"], "first answer", "choosing answers with the branch as it now reads");
    assert_eq!(texts(&s.history(sess).await), ["a question", "first answer"], "the first answer is shown again");

    fake.push(Reply::text(["a follow-up answer"]));
    s.say(sess, "and then?").await;
    let sent = last_sent(&fake);
    assert_eq!(sent.len(), 3, "the model reads one branch: {sent:?}");
    assert!(sent[1].contains("first answer"), "the request carries the answer the user chose: {sent:?}");
    assert!(!sent.iter().any(|m| m.contains("second answer") || m.contains("third answer")), "and no other version: {sent:?}");
    let history = s.history(sess).await;
    assert_eq!(texts(&history), ["a question", "first answer", "and then?", "a follow-up answer"]);
    assert_eq!(ids(&history[1]["versions"]), versions, "the versions stay reachable after the chat goes on");
}

#[tokio::test]
async fn a_regenerate_sends_no_summary_of_the_reply_it_replaces() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text(["the old answer"]));
    s.say(sess, "a question").await;
    let first = fake.chat_requests()[0].body["messages"].clone();
    let reply = s.history(sess).await[1]["id"].as_i64().unwrap();
    // The whole chat summarised, through the reply about to be replaced.
    s.app.store.with(|tx| maru::store::summaries::add(tx, sess, reply, 1, "Summary: the old answer was given.")).unwrap();
    fake.push(Reply::text(["a new answer"]));
    regenerate(&s, sess).await;
    assert_eq!(
        fake.last_chat_body().unwrap()["messages"],
        first,
        "the model is asked what it was asked the first time: no summary of the answer it is to replace, and the question whole"
    );
    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    assert_eq!(ctx["summaries"], json!([]), "the summary of the replaced answer is gone: {ctx}");
}

#[tokio::test]
async fn an_edit_keeps_the_original_message_with_its_whole_branch() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    for (q, a) in [("question one", "answer one"), ("question two", "answer two")] {
        fake.push(Reply::text([a]));
        s.say(sess, q).await;
    }
    // Inside the original branch, the last reply gets a second version, and the first is kept.
    fake.push(Reply::text(["answer two, again"]));
    regenerate(&s, sess).await;
    let history = s.history(sess).await;
    choose(&s, ids(&history[3]["versions"])[0]).await;

    let first = history[0]["id"].as_i64().unwrap();
    fake.push(Reply::text(["edited answer"]));
    let events = s.turn(&format!("/api/messages/{first}/resend"), Some(json!({ "content": "question one, edited" }))).await.collect().await;
    assert_eq!(events.last().unwrap().name, "done", "{events:?}");
    assert_eq!(last_sent(&fake), ["question one, edited"], "the edit is sent alone, without the branch it replaces");
    let edited = s.history(sess).await;
    assert_eq!(texts(&edited), ["question one, edited", "edited answer"]);
    let versions = ids(&edited[0]["versions"]);
    assert_eq!(versions, [first, edited[0]["id"].as_i64().unwrap()], "the original message is the first version");

    choose(&s, first).await;
    assert_eq!(
        texts(&s.history(sess).await),
        ["question one", "answer one", "question two", "answer two"],
        "the original comes back with everything that followed it, as it was last chosen"
    );
    choose(&s, versions[1]).await;
    assert_eq!(texts(&s.history(sess).await), ["question one, edited", "edited answer"]);

    let (_, reply) = s.get(&format!("/api/sessions/{sess}/messages?limit=1")).await;
    let reply_id = reply["messages"][0]["id"].as_i64().unwrap();
    let t = s.turn(&format!("/api/messages/{reply_id}/resend"), Some(json!({ "content": "x" }))).await;
    assert_eq!(t.status, StatusCode::BAD_REQUEST, "only the user's own messages can be edited and resent");
}

#[tokio::test]
async fn export_move_and_the_inspector_follow_the_chosen_branch() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text(["short"]).with_usage(50, 1, None));
    s.say(sess, "say something").await;
    fake.push(Reply::text(["a much longer answer"]).with_usage(50, 4, None));
    regenerate(&s, sess).await;
    let history = s.history(sess).await;
    let first = ids(&history[1]["versions"])[0];
    choose(&s, first).await;

    let (_, export) = s.get(&format!("/api/sessions/{sess}/export?format=json")).await;
    let exported: Vec<&str> = export["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert_eq!(exported, ["say something", "short"], "an export holds the version chosen");

    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    assert_eq!(ctx["last_reply"]["message_id"], first, "the inspector's figures are the chosen reply's: {ctx}");
    assert_eq!(ctx["last_reply"]["completion_tokens"], 1);

    let work = s.project("Work").await;
    let (st, _) = s.patch(&format!("/api/sessions/{sess}"), json!({ "project_id": work })).await;
    assert_eq!(st, StatusCode::OK);
    let moved = s.history(sess).await;
    assert_eq!(texts(&moved), ["say something", "short"], "a moved chat keeps the version chosen");
    assert_eq!(moved[1]["versions"].as_array().unwrap().len(), 2, "and its other versions");

    let (st, imported) = s.post("/api/import", export.clone()).await;
    assert_eq!(st, StatusCode::OK, "{imported}");
    let copy = s.history(imported["id"].as_i64().unwrap()).await;
    assert_eq!(texts(&copy), ["say something", "short"], "an imported chat is the branch that was exported");
    fake.push(Reply::text(["more"]));
    s.say(imported["id"].as_i64().unwrap(), "go on").await;
    assert_eq!(last_sent(&fake), ["say something", "short", "go on"], "and it continues as one conversation");
}

#[tokio::test]
async fn a_reply_that_called_a_tool_is_one_version_with_its_tool_result() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    fake.push(Reply::tool_call("remember", r#"{"fact": "Has a cat called Nabi."}"#));
    fake.push(Reply::text(["Noted."]));
    s.say(sess, "I have a cat called Nabi.").await;
    fake.push(Reply::text(["A cat! What is Nabi like?"]));
    regenerate(&s, sess).await;
    let history = s.history(sess).await;
    assert_eq!(texts(&history), ["I have a cat called Nabi.", "A cat! What is Nabi like?"]);

    choose(&s, ids(&history[1]["versions"])[0]).await;
    let history = s.history(sess).await;
    let roles: Vec<&str> = history.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"], "the first version comes back with its tool call, result and answer");
    assert_eq!(history[3]["content"], "Noted.");
    fake.push(Reply::text(["Good."]));
    s.say(sess, "She is asleep.").await;
    let sent = fake.last_chat_body().unwrap();
    let roles: Vec<&str> = sent["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "assistant", "user"], "the model reads the tool round of the version chosen");
    assert!(!sent.to_string().contains("What is Nabi like"), "and not the other version");
}

#[tokio::test]
async fn deleting_a_version_shows_the_one_before_and_keeps_the_rest() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text(["one"]));
    s.say(sess, "count").await;
    for answer in ["two", "three"] {
        fake.push(Reply::text([answer]));
        regenerate(&s, sess).await;
    }
    fake.push(Reply::text(["after three"]));
    s.say(sess, "next").await;
    let history = s.history(sess).await;
    let versions = ids(&history[1]["versions"]);

    let (st, _) = s.delete(&format!("/api/messages/{}", versions[2])).await;
    assert_eq!(st, StatusCode::OK);
    let history = s.history(sess).await;
    assert_eq!(texts(&history), ["count", "two"], "the version before it is shown, and what followed the deleted one went with it");
    assert_eq!(ids(&history[1]["versions"]), versions[..2], "the other versions stay");

    let (st, _) = s.delete(&format!("/api/messages/{}", versions[0])).await;
    assert_eq!(st, StatusCode::OK);
    let history = s.history(sess).await;
    assert_eq!(texts(&history), ["count", "two"], "deleting a version not shown changes nothing shown");
    assert_eq!(history[1]["versions"], json!([]), "one version left: no switcher");

    // A message without versions goes alone: what followed it stays, in order.
    fake.push(Reply::text(["four"]));
    s.say(sess, "and four?").await;
    let history = s.history(sess).await;
    s.delete(&format!("/api/messages/{}", history[1]["id"])).await;
    assert_eq!(texts(&s.history(sess).await), ["count", "and four?", "four"]);
    fake.push(Reply::text(["five"]));
    s.say(sess, "five?").await;
    assert_eq!(last_sent(&fake), ["count\n\nand four?", "four", "five?"], "the chat still reads as one conversation");
}

#[tokio::test]
async fn switching_versions_waits_for_the_reply_being_written() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text(["first"]));
    s.say(sess, "q").await;
    fake.push(Reply::text(["second"]));
    regenerate(&s, sess).await;
    let versions = ids(&s.history(sess).await[1]["versions"]);

    fake.push(Reply::text(["slow ", "follow-up ", "answer"]).piece_delay(150));
    let mut running = s.turn(&format!("/api/sessions/{sess}/messages"), Some(json!({ "content": "more" }))).await;
    running.next().await.expect("the reply starts");
    let (st, body) = s.post(&format!("/api/messages/{}/choose", versions[0]), json!(null)).await;
    assert_eq!(st, StatusCode::CONFLICT, "switching under a reply being written would hide where it lands: {body}");
    assert_eq!(body["code"], "turn_running");
    let rest = running.collect().await;
    assert_eq!(rest.last().unwrap().name, "done");
    assert_eq!(texts(&s.history(sess).await), ["q", "second", "more", "slow follow-up answer"], "not a word of the reply is lost");

    choose(&s, versions[0]).await;
    assert_eq!(texts(&s.history(sess).await), ["q", "first"], "after it ends, the switch goes through");
    let (st, body) = s.post("/api/messages/999999/choose", json!(null)).await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "an unknown version is a clear error");
}

#[tokio::test]
async fn continuing_from_a_message_makes_a_new_chat_of_its_way_and_leaves_the_original_as_it_was() {
    let (s, fake) = setup().await;
    let work = s.project("Work").await;
    let sess = s.session(Some(work), "Trip").await;
    let (st, v) = s.patch(&format!("/api/sessions/{sess}"), json!({ "preset": "writing-helper", "model": "fake-model" })).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    fake.push(Reply::text(["first answer"]));
    s.say(sess, "where to?").await;
    fake.push(Reply::text(["second answer"]));
    regenerate(&s, sess).await;
    fake.push(Reply::text(["Busan it is."]));
    s.say(sess, "부산은 어때?").await;
    let before = s.history(sess).await;
    assert_eq!(texts(&before), ["where to?", "second answer", "부산은 어때?", "Busan it is."]);
    let answers = ids(&before[1]["versions"]);

    // From the earlier version of the answer: the new chat is that branch, not the one shown.
    let (st, forked) = s.post(&format!("/api/messages/{}/fork", answers[0]), json!(null)).await;
    assert_eq!(st, StatusCode::OK, "{forked}");
    let new = forked["id"].as_i64().unwrap();
    assert_ne!(new, sess, "a new chat");
    assert_eq!(forked["project_id"], work, "in the same project");
    assert_eq!(
        (forked["preset"].as_str(), forked["model"].as_str()),
        (Some("writing-helper"), Some("fake-model")),
        "with the chat's preset and model"
    );
    assert_eq!(forked["title"], "Trip");
    let history = s.history(new).await;
    assert_eq!(texts(&history), ["where to?", "first answer"], "the history up to and including the message, on its own branch");
    assert!(
        history.iter().all(|m| m["versions"].as_array().is_none_or(|v| v.is_empty())),
        "only the versions on that way are copied: {history:?}"
    );

    // From the last question: everything before it as shown.
    let (_, forked) = s.post(&format!("/api/messages/{}/fork", before[2]["id"]), json!(null)).await;
    assert_eq!(texts(&s.history(forked["id"].as_i64().unwrap()).await), ["where to?", "second answer", "부산은 어때?"]);
    // From the answer shown, the chat goes on from there.
    let (_, forked) = s.post(&format!("/api/messages/{}/fork", before[1]["id"]), json!(null)).await;
    let new = forked["id"].as_i64().unwrap();
    fake.push(Reply::text(["Gyeongju, then."]));
    s.say(new, "other ideas?").await;
    assert_eq!(
        last_sent(&fake),
        ["where to?", "second answer", "other ideas?"],
        "the model reads the new chat's history, not the original's"
    );
    assert_eq!(s.history(sess).await, before, "the original chat is unchanged, versions and all");
    let (_, page) = s.get(&format!("/api/sessions?project_id={work}")).await;
    assert_eq!(page["sessions"].as_array().unwrap().len(), 4, "three new chats beside the original");
    let (st, v) = s.post("/api/messages/999999/fork", json!(null)).await;
    assert_eq!((st, v["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{v}");
}
