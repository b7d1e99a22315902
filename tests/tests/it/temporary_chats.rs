//! Temporary chats: never listed or searched, no title asked of the model, no memory, no
//! summaries; gone when closed, when Maru closes and at the next start; kept for good on request.

use maru_tests::fake_openai::Reply;
use maru_tests::server::{with_fake_model, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn listed(s: &TestServer, project: i64) -> Vec<i64> {
    let (_, page) = s.get(&format!("/api/sessions?project_id={project}")).await;
    page["sessions"].as_array().unwrap().iter().map(|c| c["id"].as_i64().unwrap()).collect()
}

async fn found(s: &TestServer, q: &str) -> Vec<Value> {
    let (_, chats) = s.get(&format!("/api/search?q={q}")).await;
    let (_, files) = s.get(&format!("/api/search/files?q={q}")).await;
    [chats.as_array().unwrap().clone(), files.as_array().unwrap().clone()].concat()
}

#[tokio::test]
async fn a_temporary_chat_leaves_nothing_behind_until_it_is_kept() {
    let (s, fake) = with_fake_model().await;
    let work = s.project("Work").await;
    let (st, chat) = s.post("/api/sessions", json!({ "project_id": work, "temporary": true })).await;
    assert_eq!(st, StatusCode::OK, "{chat}");
    assert_eq!(chat["temporary"], true, "the chat says it is temporary, so the window marks it: {chat}");
    let id = chat["id"].as_i64().unwrap();
    s.attach_indexed(id, "plan.md", "The pineapple plan: 파인애플 작전").await;
    fake.push_title(Reply::text(["Pineapple plan"]));
    fake.push_extraction(Reply::text(["[\"Likes pineapples\"]"]));
    fake.push(Reply::text(["Noted."]));
    s.say(id, "파인애플 작전을 기억해 줘, pineapple").await;
    maru_tests::eventually("the turn's background work ends", || async { !s.app.runs.extracting(id) }).await;

    let tools: Vec<String> = fake.last_chat_body().unwrap()["tools"]
        .as_array()
        .map(|t| t.iter().map(|t| t["function"]["name"].as_str().unwrap_or_default().to_string()).collect())
        .unwrap_or_default();
    assert!(!tools.iter().any(|t| t == "remember"), "the model is not offered to remember anything from a temporary chat: {tools:?}");
    assert!(fake.title_requests().is_empty(), "no title is asked of the model");
    assert!(fake.extraction_requests().is_empty(), "no memory is extracted from it");
    assert!(s.get("/api/memories?status=all").await.1.as_array().unwrap().is_empty(), "and none is proposed");
    assert!(listed(&s, work).await.is_empty(), "it is not listed among the project's chats");
    let projects = s.get("/api/projects").await.1;
    let count = projects.as_array().unwrap().iter().find(|p| p["id"] == work).unwrap()["session_count"].clone();
    assert_eq!(count, 0, "nor counted in its project");
    assert!(found(&s, "pineapple").await.is_empty(), "its messages, title and files are not found by search");
    let (st, v) = s.post(&format!("/api/sessions/{id}/compact"), json!(null)).await;
    assert_eq!((st, v["code"].as_str()), (StatusCode::CONFLICT, Some("temporary_chat")), "it keeps no summaries: {v}");
    let history = s.history(id).await;
    assert_eq!(history.len(), 2, "while open, it is a chat like any: {history:?}");

    // Kept: from now on it is a chat like any.
    let (st, kept) = s.post(&format!("/api/sessions/{id}/keep"), json!(null)).await;
    assert_eq!((st, kept["temporary"].as_bool()), (StatusCode::OK, Some(false)), "{kept}");
    assert_eq!(listed(&s, work).await, [id], "a kept chat is listed");
    assert!(!found(&s, "pineapple").await.is_empty(), "and found");

    // A temporary chat left open when Maru closes is gone when it starts again; a kept one stays.
    let (_, other) = s.post("/api/sessions", json!({ "temporary": true })).await;
    let other = other["id"].as_i64().unwrap();
    fake.push(Reply::text(["ok"]));
    s.say(other, "just a quick question").await;
    let data = s.stop().await;
    let s = TestServer::start_in(data).await;
    let (st, v) = s.get(&format!("/api/sessions/{other}")).await;
    assert_eq!((st, v["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "a temporary chat does not outlive Maru: {v}");
    assert_eq!(s.get(&format!("/api/sessions/{id}")).await.0, StatusCode::OK, "the kept one does");
}

#[tokio::test]
async fn a_temporary_chat_is_gone_when_closed_and_maru_starts_without_any() {
    let s = TestServer::start().await;
    let (_, chat) = s.post("/api/sessions", json!({ "temporary": true })).await;
    let id = chat["id"].as_i64().unwrap();
    // Closing it in the window deletes it.
    assert_eq!(s.delete(&format!("/api/sessions/{id}")).await.0, StatusCode::OK);
    assert_eq!(s.get(&format!("/api/sessions/{id}")).await.0, StatusCode::NOT_FOUND);

    // One a crash left behind (no shutdown ran) goes at the next start.
    let (_, left) = s.post("/api/sessions", json!({ "temporary": true })).await;
    let left = left["id"].as_i64().unwrap();
    assert_eq!(s.app.store.read_now(maru::store::sessions::temporary_ids).unwrap(), [left]);
    let dir = tempfile::tempdir().unwrap();
    s.app.store.snapshot(&dir.path().join("maru.db")).unwrap();
    let restarted = TestServer::start_in(dir).await;
    assert_eq!(restarted.get(&format!("/api/sessions/{left}")).await.0, StatusCode::NOT_FOUND, "a temporary chat never survives a start");
}
