//! Switching to Maru: ChatGPT's and Claude's data exports, as downloaded or their
//! `conversations.json` alone, import in the background as chats with their titles, times and
//! branches; the same export twice adds nothing; a bad file is refused and changes nothing.

use std::io::Write;

use maru_tests::server::TestServer;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A ChatGPT message node as its export writes it.
fn gpt_node(id: &str, parent: Option<&str>, children: &[&str], role: &str, content: Value, time: f64) -> (String, Value) {
    let message = json!({
        "id": id, "author": { "role": role, "name": null, "metadata": {} }, "create_time": time, "update_time": null,
        "content": content, "status": "finished_successfully", "end_turn": true, "weight": 1.0,
        "metadata": { "model_slug": "gpt-4o", "is_visually_hidden_from_conversation": role == "system" }, "recipient": "all", "channel": null
    });
    (id.to_string(), json!({ "id": id, "message": message, "parent": parent, "children": children }))
}

fn parts(texts: &[&str]) -> Value {
    json!({ "content_type": "text", "parts": texts })
}

/// A ChatGPT conversation from its nodes (after the root without a message).
fn gpt_conversation(id: &str, title: &str, time: f64, first: &[&str], nodes: Vec<(String, Value)>, current: &str) -> Value {
    let mut mapping = serde_json::Map::new();
    mapping.insert("root".into(), json!({ "id": "root", "message": null, "parent": null, "children": first }));
    mapping.extend(nodes);
    json!({
        "title": title, "create_time": time, "update_time": time + 600.0, "mapping": mapping, "current_node": current,
        "conversation_id": id, "id": id, "moderation_results": [], "plugin_ids": null, "gizmo_id": null,
        "is_archived": false, "safe_urls": [], "default_model_slug": "gpt-4o"
    })
}

/// ChatGPT's `conversations.json`: a chat with an edited question and a regenerated answer, Korean
/// text, code the assistant ran and its tool output; an empty chat; a plain one.
fn gpt_export() -> Value {
    let branched = gpt_conversation(
        "c-branched",
        "모나드 설명",
        1_700_000_000.0,
        &["sys"],
        vec![
            gpt_node("sys", Some("root"), &["q1", "q2"], "system", parts(&[""]), 1_700_000_000.0),
            gpt_node("q1", Some("sys"), &["a1"], "user", parts(&["모나드가 뭐야?"]), 1_700_000_001.0),
            gpt_node("a1", Some("q1"), &[], "assistant", parts(&["부리토입니다."]), 1_700_000_002.0),
            gpt_node("q2", Some("sys"), &["a2", "a3"], "user", parts(&["모나드를 짧게 설명해 줘"]), 1_700_000_003.0),
            gpt_node("a2", Some("q2"), &["run"], "assistant", parts(&["bind가 있는 타입입니다."]), 1_700_000_004.0),
            gpt_node("a3", Some("q2"), &[], "assistant", parts(&["regenerated answer"]), 1_700_000_005.0),
            gpt_node(
                "run",
                Some("a2"),
                &["out"],
                "assistant",
                json!({ "content_type": "code", "language": "python", "text": "print(2 + 2)" }),
                1_700_000_006.0,
            ),
            gpt_node("out", Some("run"), &["pic"], "tool", json!({ "content_type": "execution_output", "text": "4" }), 1_700_000_007.0),
            gpt_node(
                "pic",
                Some("out"),
                &["last"],
                "user",
                json!({ "content_type": "multimodal_text", "parts": [{ "content_type": "image_asset_pointer", "asset_pointer": "file-service://f", "width": 10, "height": 10 }, "what is 4?"] }),
                1_700_000_008.0,
            ),
            gpt_node("last", Some("pic"), &[], "assistant", parts(&["Four."]), 1_700_000_009.0),
        ],
        "last",
    );
    let empty = gpt_conversation("c-empty", "New chat", 1_700_100_000.0, &[], vec![], "root");
    let plain = gpt_conversation(
        "c-plain",
        "Groceries",
        1_700_200_000.0,
        &["p1"],
        vec![
            gpt_node("p1", Some("root"), &["p2"], "user", parts(&["milk, eggs"]), 1_700_200_001.0),
            gpt_node("p2", Some("p1"), &[], "assistant", parts(&["Noted: milk and eggs."]), 1_700_200_002.0),
        ],
        "p2",
    );
    json!([branched, empty, plain])
}

/// A zip as ChatGPT's download is: `conversations.json` beside the other files.
fn zipped(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in entries {
        zip.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn gpt_zip() -> Vec<u8> {
    let conversations = serde_json::to_vec(&gpt_export()).unwrap();
    zipped(&[
        ("chat.html", b"<html></html>"),
        ("conversations.json", &conversations),
        ("user.json", br#"{"id": "user-1", "email": "a@b.c"}"#),
        ("message_feedback.json", b"[]"),
    ])
}

/// Posts a file to the import route as the UI does; the status and the answer.
async fn import(s: &TestServer, name: &str, bytes: Vec<u8>, project_id: Option<i64>) -> (StatusCode, Value) {
    let mut form = reqwest::multipart::Form::new().part("file", reqwest::multipart::Part::bytes(bytes).file_name(name.to_string()));
    if let Some(id) = project_id {
        form = form.text("project_id", id.to_string());
    }
    let res = s.http.post(s.url("/api/import")).bearer_auth(&s.token).multipart(form).send().await.unwrap();
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// Follows an import until it is no longer running; its last state.
async fn finished(s: &TestServer, job: &Value) -> Value {
    for _ in 0..1500 {
        let (st, now) = s.get(&format!("/api/import/jobs/{}", job["id"])).await;
        assert_eq!(st, StatusCode::OK, "an import can be followed while it runs and after: {now}");
        if now["state"] != "running" {
            return now;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("the import was still running after 30 s");
}

async fn chats(s: &TestServer, project_id: i64) -> Vec<Value> {
    let (_, page) = s.get(&format!("/api/sessions?project_id={project_id}&limit=200")).await;
    page["sessions"].as_array().unwrap().clone()
}

async fn projects(s: &TestServer) -> Vec<Value> {
    s.get("/api/projects").await.1.as_array().unwrap().clone()
}

#[tokio::test]
async fn a_chatgpt_export_as_downloaded_imports_in_the_background_with_its_branches_as_versions() {
    let s = TestServer::start().await;
    let (st, job) = import(&s, "chatgpt-export.zip", gpt_zip(), None).await;
    assert_eq!(st, StatusCode::ACCEPTED, "an export is checked, then stored in the background: {job}");
    assert_eq!((job["source"].as_str(), job["conversations"].as_u64()), (Some("chatgpt"), Some(3)), "{job}");
    let done = finished(&s, &job).await;
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(
        (done["done"].as_u64(), done["imported"].as_u64()),
        (Some(3), Some(3)),
        "every conversation is a chat, the empty one too: {done}"
    );
    assert_eq!(done["skipped_messages"], 2, "the system message and the tool output carry no text of the chat: left out, and said: {done}");

    let project =
        projects(&s).await.into_iter().find(|p| p["name"] == "Imported from ChatGPT").expect("a project of its own when none is picked");
    assert_eq!(done["project_id"], project["id"]);
    let list = chats(&s, project["id"].as_i64().unwrap()).await;
    let titles: Vec<&str> = list.iter().map(|c| c["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Groceries", "New chat", "모나드 설명"], "titles kept, and the chats sort by when they were last active there");
    let chat = &list[2];
    assert_eq!(
        (chat["created_at"].as_i64(), chat["updated_at"].as_i64()),
        (Some(1_700_000_000_000), Some(1_700_000_600_000)),
        "times kept"
    );
    assert!(chat["imported_at"].is_i64(), "an imported chat is marked as one: {chat}");

    let history = s.history(chat["id"].as_i64().unwrap()).await;
    let said: Vec<(&str, &str)> = history.iter().map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap())).collect();
    assert_eq!(
        said,
        [
            ("user", "모나드를 짧게 설명해 줘"),
            ("assistant", "bind가 있는 타입입니다."),
            ("assistant", "```python\nprint(2 + 2)\n```"),
            ("user", "what is 4?"),
            ("assistant", "Four."),
        ],
        "the chat reads as it was on screen: the edited question, the answer shown, the code run, the text beside an image"
    );
    assert_eq!(history[1]["model"], "gpt-4o", "the model that answered is kept");
    assert_eq!(history[0]["created_at"], 1_700_000_003_000_i64);
    let question = &history[0];
    assert_eq!(question["versions"].as_array().unwrap().len(), 2, "the question before its edit is an earlier version: {question}");
    assert_eq!(history[1]["versions"].as_array().unwrap().len(), 2, "the regenerated answer is a version of the answer shown");

    // The earlier version of the question, with its own answer, is one choice away.
    let earlier = question["versions"].as_array().unwrap().iter().find(|v| **v != question["id"]).unwrap();
    let (st, page) = s.post(&format!("/api/messages/{earlier}/choose"), json!({})).await;
    assert_eq!(st, StatusCode::OK, "{page}");
    let shown: Vec<&str> = page["messages"].as_array().unwrap().iter().rev().map(|m| m["content"].as_str().unwrap()).collect();
    assert_eq!(shown, ["모나드가 뭐야?", "부리토입니다."], "a branch off the main line is kept whole, not dropped");

    let (_, hits) = s.get("/api/search?q=모나드").await;
    assert!(
        hits.as_array().unwrap().iter().any(|h| h["session_id"] == chat["id"]),
        "imported chats are searchable, Korean included: {hits}"
    );

    // The same export again: nothing new.
    let (st, again) = import(&s, "chatgpt-export.zip", gpt_zip(), None).await;
    assert_eq!(st, StatusCode::ACCEPTED, "{again}");
    let again = finished(&s, &again).await;
    assert_eq!((again["imported"].as_u64(), again["already_here"].as_u64()), (Some(0), Some(3)), "{again}");
    assert_eq!(chats(&s, project["id"].as_i64().unwrap()).await.len(), 3, "the same export twice does not duplicate chats");
    assert_eq!(
        projects(&s).await.iter().filter(|p| p["name"].as_str().unwrap().starts_with("Imported from")).count(),
        1,
        "nor its project"
    );
}

#[tokio::test]
async fn a_claude_conversations_json_alone_goes_to_the_project_the_user_picks() {
    let s = TestServer::start().await;
    let work = s.project("Work").await;
    let message = |uuid: &str, sender: &str, text: &str, attachments: Value| {
        json!({
            "uuid": uuid, "text": text, "content": [{ "type": "text", "text": text, "start_timestamp": null, "citations": [] }],
            "sender": sender, "created_at": "2025-03-01T09:01:00.000000Z", "updated_at": "2025-03-01T09:01:00.000000Z",
            "attachments": attachments, "files": []
        })
    };
    let export = json!([
        {
            "uuid": "c1", "name": "회의 정리", "created_at": "2025-03-01T09:00:00.000000Z", "updated_at": "2025-03-01T09:05:00.000000Z",
            "account": { "uuid": "acc" },
            "chat_messages": [
                message("m1", "human", "요약해 줘", json!([{ "file_name": "notes.txt", "file_size": 9, "file_type": "txt", "extracted_content": "회의는 3시" }])),
                message("m2", "assistant", "회의는 3시입니다.", json!([])),
                message("m3", "human", "", json!([])),
            ]
        },
        { "uuid": "c2", "name": "", "created_at": "2025-03-02T09:00:00Z", "updated_at": "2025-03-02T09:00:00Z", "account": { "uuid": "acc" }, "chat_messages": [] }
    ]);
    let (st, job) = import(&s, "conversations.json", serde_json::to_vec(&export).unwrap(), Some(work)).await;
    assert_eq!(st, StatusCode::ACCEPTED, "{job}");
    let done = finished(&s, &job).await;
    assert_eq!(
        (done["state"].as_str(), done["source"].as_str(), done["imported"].as_u64()),
        (Some("done"), Some("claude"), Some(2)),
        "{done}"
    );
    assert_eq!(done["skipped_messages"], 1, "a message without text is left out and counted: {done}");
    assert!(projects(&s).await.iter().all(|p| p["name"] != "Imported from Claude"), "no new project when the user picked one");
    let list = chats(&s, work).await;
    assert_eq!(list.len(), 2, "{list:?}");
    let chat = list.iter().find(|c| c["title"] == "회의 정리").expect("the title is kept");
    let history = s.history(chat["id"].as_i64().unwrap()).await;
    assert_eq!(history.len(), 2, "{history:?}");
    let question = history[0]["content"].as_str().unwrap();
    assert!(
        question.starts_with("요약해 줘") && question.contains("notes.txt") && question.contains("회의는 3시"),
        "an attachment's text Claude read comes with its message: {question}"
    );
}

#[tokio::test]
async fn a_bad_export_is_refused_with_its_code_and_changes_nothing() {
    let s = TestServer::start().await;
    let before = projects(&s).await;
    let whole = serde_json::to_vec(&gpt_export()).unwrap();
    // A zip that says its conversations.json unpacks to 4 GB: refused before it is unpacked.
    let bomb = {
        let mut zip = zipped(&[("conversations.json", b"[]")]);
        let declare = |zip: &mut Vec<u8>, signature: &[u8], offset: usize| {
            let at = zip.windows(4).position(|w| w == signature).unwrap();
            zip[at + offset..at + offset + 4].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        };
        declare(&mut zip, b"PK\x03\x04", 22);
        declare(&mut zip, b"PK\x01\x02", 24);
        zip
    };
    let cases: Vec<(&str, Vec<u8>, &str, &str)> = vec![
        ("conversations.json", whole[..whole.len() * 2 / 3].to_vec(), "invalid_import", "an export cut short (a download that stopped)"),
        ("conversations.json", br#"[{"title": "x", "messages": []}]"#.to_vec(), "unsupported_import", "a list of something else"),
        ("export.zip", zipped(&[("chat.html", b"<html></html>")]), "unsupported_import", "a zip without conversations.json"),
        ("export.zip", zipped(&[("conversations.json", &whole)])[..200].to_vec(), "invalid_import", "a damaged zip"),
        ("export.zip", bomb, "file_too_large", "a zip bomb"),
        ("notes.txt", b"hello".to_vec(), "unsupported_import", "neither a zip nor JSON"),
        ("conversations.json", b"[]".to_vec(), "empty_file", "an export without conversations"),
    ];
    for (name, bytes, code, what) in cases {
        let (st, v) = import(&s, name, bytes, None).await;
        assert_eq!((st, v["code"].as_str().unwrap_or_default()), (StatusCode::BAD_REQUEST, code), "{what} is refused with its code: {v}");
        assert!(!v["message"].as_str().unwrap_or_default().is_empty(), "with a sentence saying why: {v}");
    }
    let (st, v) = import(&s, "conversations.json", whole, Some(999_999)).await;
    assert_eq!((st, v["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "a project that is not there: {v}");
    assert_eq!(projects(&s).await, before, "a refused import makes no project");
    let (_, page) = s.get("/api/sessions").await;
    assert_eq!(page["sessions"].as_array().unwrap().len(), 0, "and no chat");
    let (st, v) = s.get("/api/import/jobs/999").await;
    assert_eq!((st, v["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{v}");
}
