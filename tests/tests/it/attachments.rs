//! Files in sessions and projects: stored once by content, refused with a clear error when bad,
//! indexed in the background, listed in section ④ and searched by the model with
//! `search_attachment`, always within the turn's own session and project.

use std::time::Duration;

use maru_tests::fake_openai::{FakeOpenAi, Reply};
use maru_tests::server::{with_fake_model as setup, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn attach(s: &TestServer, field: &str, id: i64, name: &str, bytes: impl Into<Vec<u8>>) -> Value {
    let (st, a) = s.upload(field, id, name, bytes.into()).await;
    assert_eq!(st, StatusCode::OK, "attaching {name}: {a}");
    a
}

/// Waits until the file is no longer `indexing`, and returns it.
async fn indexed(s: &TestServer, id: &Value) -> Value {
    for _ in 0..500 {
        let (_, a) = s.get(&format!("/api/attachments/{id}")).await;
        if a["status"] != "indexing" {
            return a;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("file {id} was still indexing after 10 s");
}

fn blob_files(s: &TestServer) -> usize {
    let dir = s.data.path().join("blobs");
    let Ok(shards) = std::fs::read_dir(dir) else { return 0 };
    shards.flatten().map(|d| std::fs::read_dir(d.path()).map(|f| f.count()).unwrap_or(0)).sum()
}

/// Runs the tool as the model would in `session`, through a full turn, and returns its result.
async fn model_searches(s: &TestServer, fake: &FakeOpenAi, session: i64, args: Value) -> String {
    fake.push(Reply::tool_call("search_attachment", args.to_string()));
    fake.push(Reply::text(["ok"]));
    let events = s.say(session, "look it up").await;
    let result = events.iter().find(|e| e.name == "tool_result").unwrap_or_else(|| panic!("no tool result: {events:?}"));
    result.data["content"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn files_are_stored_once_and_go_with_their_last_link() {
    let s = TestServer::start().await;
    let a = s.session(None, "a").await;
    let b = s.session(None, "b").await;
    let first = attach(&s, "session_id", a, "notes.md", "# Same\n\ncontent").await;
    let second = attach(&s, "session_id", b, "copy.md", "# Same\n\ncontent").await;
    assert_eq!(first["sha256"], second["sha256"]);
    assert_eq!(blob_files(&s), 1, "the same content attached twice is stored once");
    assert_eq!(indexed(&s, &second["id"]).await["status"], "ready");

    let (_, listed) = s.get(&format!("/api/attachments?session_id={a}")).await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let res = s.http.get(s.url(&format!("/api/attachments/{}/content", first["id"]))).bearer_auth(&s.token).send().await.unwrap();
    let disposition = res.headers()["content-disposition"].to_str().unwrap().to_string();
    assert_eq!(&res.bytes().await.unwrap()[..], b"# Same\n\ncontent", "a file downloads byte for byte");
    assert!(disposition.starts_with("attachment;"), "downloaded, never rendered in Maru's page: {disposition}");

    s.delete(&format!("/api/attachments/{}", first["id"])).await;
    assert_eq!(blob_files(&s), 1, "another file still links to the content");
    s.delete(&format!("/api/sessions/{b}")).await;
    assert_eq!(blob_files(&s), 0, "deleting the chat with the last link removes the content");
}

#[tokio::test]
async fn a_file_no_row_records_is_swept_at_the_next_start() {
    let s = TestServer::start().await;
    let a = s.session(None, "a").await;
    attach(&s, "session_id", a, "kept.txt", "kept").await;
    let stray = s.data.path().join("blobs").join("ab").join("ab".repeat(32));
    std::fs::create_dir_all(stray.parent().unwrap()).unwrap();
    std::fs::write(&stray, "left by a crash between the commit and the removal").unwrap();
    let s = TestServer::start_in(s.stop().await).await;
    assert!(!stray.exists(), "an orphan file is removed at start");
    assert_eq!(blob_files(&s), 1, "and linked files are kept");
}

#[tokio::test]
async fn bad_files_are_refused_and_nothing_is_stored() {
    let s = TestServer::start().await;
    let a = s.session(None, "a").await;
    s.patch("/api/settings", json!({ "attachment_max_mb": 1 })).await;
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.txt", vec![], "empty_file"),
        ("program.bin", vec![0, 1, 2, 255, 0, 7], "binary_file"),
        ("report.pdf", b"just text".to_vec(), "type_mismatch"),
        ("photo.png", b"not a png".to_vec(), "type_mismatch"),
        ("../../etc/passwd", b"root".to_vec(), "invalid_file_name"),
        ("big.txt", vec![b'a'; 2 << 20], "file_too_large"),
    ];
    for (name, bytes, code) in cases {
        let (st, body) = s.upload("session_id", a, name, bytes).await;
        assert_eq!((st, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some(code)), "{name}: {body}");
        assert!(body["message"].as_str().unwrap().len() > 10, "{name}: the message tells the user what to do");
    }
    let (st, body) = s.upload("session_id", 999_999, "a.txt", b"x".to_vec()).await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{body}");
    let (_, listed) = s.get(&format!("/api/attachments?session_id={a}")).await;
    assert_eq!(listed, json!([]), "nothing half-stored");
    assert_eq!(blob_files(&s), 0, "no file left on disk by a refusal");
}

#[tokio::test]
async fn the_model_finds_korean_and_english_passages_and_the_next_request_carries_them() {
    let (s, fake) = setup().await;
    let p = s.project("가족").await;
    let sess = s.session(Some(p), "").await;
    let notes = "# 가족 메모\n\n지난주 회의록을 정리했습니다. 다음 회의는 수요일입니다.\n\n아이들 학교 일정은 달력에 있어요.\n\nThe dentist appointments are in March.";
    let file = attach(&s, "project_id", p, "family-notes.md", notes).await;
    assert_eq!(indexed(&s, &file["id"]).await["status"], "ready");

    let found = model_searches(&s, &fake, sess, json!({ "query": "회의록" })).await;
    assert!(found.contains("family-notes.md") && found.contains("회의록을 정리"), "a word is found with its particle: {found}");
    let next = fake.last_chat_body().unwrap();
    let carried = next["messages"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["role"] == "tool" && m["content"].as_str().unwrap().contains("회의록을 정리"));
    assert!(carried, "the request after the call carries the passage, wrapped as data");

    let system = next["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("[Attachments]") && system.contains("family-notes.md (Markdown"), "④ lists the file: {system}");
    assert!(next["tools"].as_array().unwrap().iter().any(|t| t["function"]["name"] == "search_attachment"), "the tool is offered");

    for (query, expect) in [("일정", "학교 일정"), ("appointment", "dentist")] {
        let found = model_searches(&s, &fake, sess, json!({ "query": query })).await;
        assert!(found.contains(expect), "{query}: {found}");
    }
    let found = model_searches(&s, &fake, sess, json!({ "query": "volcano" })).await;
    assert!(found.contains("No passage matches") && found.contains("family-notes.md"), "no match says so and names the files: {found}");
}

#[tokio::test]
async fn a_chat_never_reaches_another_projects_files() {
    let (s, fake) = setup().await;
    let secret = s.project("Secret").await;
    let open = s.project("Open").await;
    let file = attach(&s, "project_id", secret, "plans.txt", "The launch code word is pineapple.").await;
    indexed(&s, &file["id"]).await;
    let mine = attach(&s, "session_id", s.session(Some(open), "").await, "mine.txt", "unused").await;
    let chat = mine["session_id"].as_i64().unwrap();
    indexed(&s, &mine["id"]).await;
    attach(&s, "session_id", chat, "own.txt", "My own note mentions pineapple too.").await;

    for args in [json!({ "query": "pineapple", "file": "plans.txt" }), json!({ "query": "launch code word" })] {
        let found = model_searches(&s, &fake, chat, args.clone()).await;
        assert!(!found.contains("word is pineapple"), "another project's file is never found, whatever the model asks ({args}): {found}");
    }

    // Moving the chat: it takes its own files and sees the new project's, not the old one's.
    s.patch(&format!("/api/sessions/{chat}"), json!({ "project_id": secret })).await;
    let found = model_searches(&s, &fake, chat, json!({ "query": "pineapple" })).await;
    assert!(found.contains("word is pineapple") && found.contains("My own note"), "after the move both are in scope: {found}");
    s.patch(&format!("/api/sessions/{chat}"), json!({ "project_id": open })).await;
    let found = model_searches(&s, &fake, chat, json!({ "query": "pineapple" })).await;
    assert!(!found.contains("word is pineapple") && found.contains("My own note"), "and the old project's files stay behind: {found}");
}

#[tokio::test]
async fn pdf_pages_are_numbered_and_a_broken_pdf_fails_alone() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    let pdf = maru_tests::pdf::with_pages(&["The first page is an introduction.", "", "The budget table is on page three."]);
    let good = attach(&s, "session_id", sess, "report.pdf", pdf).await;
    let broken = attach(&s, "session_id", sess, "broken.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R".to_vec()).await;
    let text = attach(&s, "session_id", sess, "plain.txt", "A plain file beside them.").await;

    let good = indexed(&s, &good["id"]).await;
    assert_eq!((good["status"].as_str(), good["pages"].as_i64()), (Some("ready"), Some(3)), "{good}");
    assert_eq!(good["note"], "no text could be read from page 2", "the unreadable page is named");
    assert_eq!(good["note_reason"], json!({ "code": "unread_pages", "params": { "pages": "2", "more": "0" } }), "as a code for the UI");
    let broken = indexed(&s, &broken["id"]).await;
    assert_eq!(broken["status"], "failed", "{broken}");
    assert!(broken["note"].as_str().unwrap().contains("PDF"), "it says why: {broken}");
    assert!(broken["note_reason"]["code"].as_str().unwrap().starts_with("pdf_"), "with a code: {broken}");
    assert_eq!(indexed(&s, &text["id"]).await["status"], "ready", "the other files index");

    let found = model_searches(&s, &fake, sess, json!({ "query": "budget" })).await;
    assert!(found.contains("report.pdf, page 3"), "a passage says its page: {found}");
}

#[tokio::test]
async fn images_go_to_a_model_that_sees_them_and_are_refused_plainly_otherwise() {
    let (s, fake) = setup().await;
    fake.set_props(Some(json!({ "modalities": { "vision": true }, "default_generation_settings": { "n_ctx": 4096 } })));
    let sess = s.session(None, "").await;
    let image = attach(&s, "session_id", sess, "photo.png", maru_tests::pdf::PNG_1X1).await;
    assert_eq!(indexed(&s, &image["id"]).await["status"], "ready");
    let thumb = s.http.get(s.url(&format!("/api/attachments/{}/thumbnail", image["id"]))).bearer_auth(&s.token).send().await.unwrap();
    assert_eq!(thumb.headers()["content-type"], "image/png", "an image has a thumbnail for lists and chips");
    assert!(thumb.bytes().await.unwrap().starts_with(b"\x89PNG"));

    fake.push(Reply::text(["A red dot."]));
    let turn =
        s.turn(&format!("/api/sessions/{sess}/messages"), Some(json!({ "content": "What is this?", "images": [image["id"]] }))).await;
    assert_eq!(turn.status, StatusCode::OK, "{:?}", turn.refusal);
    turn.collect().await;
    let sent = fake.last_chat_body().unwrap();
    let parts = sent["messages"][1]["content"].as_array().expect("a message with an image is sent as parts");
    assert_eq!(parts[0]["type"], "text");
    assert!(parts[1]["image_url"]["url"].as_str().unwrap().starts_with("data:image/png;base64,iVBOR"), "{}", parts[1]);
    assert_eq!(s.history(sess).await[0]["images"], json!([image["id"]]), "the message keeps its images");

    fake.set_props(Some(json!({ "modalities": { "vision": false } })));
    let turn = s.turn(&format!("/api/sessions/{sess}/messages"), Some(json!({ "content": "And this?", "images": [image["id"]] }))).await;
    let refusal = turn.refusal.expect("refused before anything is stored");
    assert_eq!(refusal["code"], "images_unsupported", "{refusal}");
    assert!(refusal["message"].as_str().unwrap().contains("fake-model"), "it names the model: {refusal}");
    assert_eq!(s.history(sess).await.len(), 2, "nothing half-stored");

    let text_file = attach(&s, "session_id", sess, "a.txt", "text").await;
    fake.set_props(Some(json!({ "modalities": { "vision": true } })));
    let turn = s.turn(&format!("/api/sessions/{sess}/messages"), Some(json!({ "content": "x", "images": [text_file["id"]] }))).await;
    assert_eq!(turn.refusal.unwrap()["code"], "not_an_image");
}

/// An image whose file is gone from the data folder (a folder copied without `blobs`) fails the
/// turn before it is sent, in the reply the turn had stored: one failed reply that names the
/// file, not a failed reply beside one left `streaming`.
#[tokio::test]
async fn an_image_missing_from_the_data_folder_fails_the_turn_in_its_own_reply() {
    let (s, fake) = setup().await;
    fake.set_props(Some(json!({ "modalities": { "vision": true }, "default_generation_settings": { "n_ctx": 4096 } })));
    let sess = s.session(None, "").await;
    let image = attach(&s, "session_id", sess, "photo.png", maru_tests::pdf::PNG_1X1).await;
    assert_eq!(indexed(&s, &image["id"]).await["status"], "ready");
    std::fs::remove_dir_all(s.data.path().join("blobs")).unwrap();

    let (st, body) = s.get(&format!("/api/attachments/{}/content", image["id"])).await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::CONFLICT, Some("file_missing")), "a download says the file is gone: {body}");
    assert_eq!(body["params"]["file"], "photo.png", "and names it: {body}");

    let sends = [
        ("a new message", format!("/api/sessions/{sess}/messages"), Some(json!({ "content": "What is this?", "images": [image["id"]] }))),
        ("a regenerate", format!("/api/sessions/{sess}/regenerate"), None),
    ];
    for (what, path, body) in sends {
        let turn = s.turn(&path, body).await;
        assert_eq!(turn.status, StatusCode::OK, "{what}: {:?}", turn.refusal);
        let events = turn.collect().await;
        let error = events.iter().find(|e| e.name == "error").unwrap_or_else(|| panic!("{what}: no error event: {events:?}"));
        assert_eq!(error.data["code"], "file_missing", "{what}: {error:?}");
        let history = s.history(sess).await;
        let replies: Vec<&Value> = history.iter().filter(|m| m["role"] == "assistant").collect();
        assert_eq!(replies.len(), 1, "{what}: one reply on the chat's path, not a second one beside it: {history:#?}");
        assert_eq!(replies[0]["status"], "error", "{what}: the reply says it failed, it is not left streaming: {history:#?}");
        assert_eq!(error.data["message_id"], replies[0]["id"], "{what}: the error event names the reply that holds it");
        assert_eq!(replies[0]["error_code"], "file_missing", "{what}: the stored reply keeps the code for the UI's words");
    }
    assert!(fake.chat_requests().is_empty(), "nothing was sent without the image the question is about");
}

#[tokio::test]
async fn indexing_cut_short_by_a_crash_is_done_at_the_next_start() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    let file = attach(&s, "session_id", sess, "notes.txt", "The boat trip is in August.").await;
    indexed(&s, &file["id"]).await;
    // As a crash mid-indexing leaves it: still `indexing`, no passages yet.
    s.app
        .store
        .with(|c| {
            c.execute_batch("UPDATE attachments SET status = 'indexing'; DELETE FROM passages;")?;
            Ok(())
        })
        .unwrap();
    let s = TestServer::start_in(s.stop().await).await;
    s.use_server(&fake.base_url(), "fake-model").await;
    assert_eq!(indexed(&s, &file["id"]).await["status"], "ready", "the next start indexes it again, in the background");
    let found = model_searches(&s, &fake, sess, json!({ "query": "boat" })).await;
    assert!(found.contains("August"), "{found}");
}

#[tokio::test]
async fn a_plain_question_finds_the_section_it_names_and_says_where_it_is() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "docs").await;
    // The shape of uv's docs page: the answer sits under a heading, in words other than the
    // question's; beside it, a licence full of the words that only ask ("how", "do", "a", "I").
    let page = "# Python versions\n\nA Python version is composed of an interpreter and a standard library.\n\n\
        ## Requesting a version\n\nA specific version can be requested with the `--python` flag.\n\n\
        ### Pinning a version\n\nThe `.python-version` file sets the default for the project; `uv python pin 3.12` writes it.\n";
    let licence = "How you do it is up to you, and I do not warrant that a use of it is fit for a purpose. ".repeat(40);
    let doc = attach(&s, "session_id", sess, "python-versions.md", page).await;
    let lic = attach(&s, "session_id", sess, "LICENSE", licence).await;
    indexed(&s, &doc["id"]).await;
    indexed(&s, &lic["id"]).await;

    let found = model_searches(&s, &fake, sess, json!({ "query": "how do I pin a Python version", "limit": 1 })).await;
    assert!(found.contains("uv python pin 3.12"), "the question's section comes first, not the licence: {found}");
    assert!(
        found.contains("[python-versions.md › Python versions › Requesting a version › Pinning a version, lines 9-11]"),
        "the model is told which section of which file the passage is from: {found}"
    );
}
