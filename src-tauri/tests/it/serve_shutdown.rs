//! `maru serve` stopped with SIGTERM runs the same shutdown as the desktop window: a reply being
//! written stops with its text, and nothing else in the data folder changes, so the next start
//! finds every chat as the user left it.

#![cfg(unix)]

use crate::support;

use std::process::Child;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

struct Serve {
    child: Child,
    base: String,
    http: reqwest::Client,
}

impl Serve {
    fn start(data: &std::path::Path) -> Serve {
        let (child, base) = support::serve(data);
        Serve { child, base, http: reqwest::Client::new() }
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut req = self.http.request(method, format!("{}{path}", self.base)).bearer_auth("t");
        if let Some(b) = body {
            req = req.json(&b);
        }
        let text = req.send().await.unwrap().text().await.unwrap();
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    }

    /// SIGTERM, then how long it took to exit and whether it exited cleanly.
    fn terminate(mut self) -> (Duration, bool) {
        let started = Instant::now();
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let status = self.child.wait().unwrap();
        (started.elapsed(), status.success())
    }
}

fn history(data: &std::path::Path, session: i64) -> Vec<(String, String, String)> {
    let db = rusqlite::Connection::open(data.join("maru.db")).unwrap();
    let mut stmt = db.prepare("SELECT role, status, content FROM messages WHERE session_id = ?1 AND on_path = 1 ORDER BY id").unwrap();
    stmt.query_map([session], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
}

#[tokio::test]
async fn sigterm_after_a_deleted_reply_changes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let maru = Serve::start(data.path());
    // No server answers there: the turn fails at once, with an error reply the user then deletes.
    maru.call(reqwest::Method::PATCH, "/api/settings", Some(json!({ "endpoint_url": "http://127.0.0.1:9/v1", "model": "m" }))).await;
    let session = maru.call(reqwest::Method::POST, "/api/sessions", Some(json!({ "title": "t" }))).await["id"].as_i64().unwrap();
    maru.call(reqwest::Method::POST, &format!("/api/sessions/{session}/messages"), Some(json!({ "content": "hello?" }))).await;
    let reply = maru.call(reqwest::Method::GET, &format!("/api/sessions/{session}/messages"), None).await["messages"][0]["id"].clone();
    maru.call(reqwest::Method::DELETE, &format!("/api/messages/{reply}"), None).await;
    let (_, clean) = maru.terminate();
    assert!(clean, "SIGTERM is a clean exit");
    let maru = Serve::start(data.path());
    let (_, _) = maru.terminate();
    let h = history(data.path(), session);
    assert_eq!(h.len(), 1, "the chat ends with the question as the user left it; no 'closed before this reply began': {h:?}");
}

#[tokio::test]
async fn sigterm_mid_turn_stops_the_reply_and_exits_promptly() {
    let data = tempfile::tempdir().unwrap();
    // A model server that takes the request and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let held = std::thread::spawn(move || silent.incoming().take(4).map_while(Result::ok).collect::<Vec<_>>());
    let maru = Serve::start(data.path());
    maru.call(
        reqwest::Method::PATCH,
        "/api/settings",
        Some(json!({ "endpoint_url": format!("http://127.0.0.1:{port}/v1"), "model": "m" })),
    )
    .await;
    let session = maru.call(reqwest::Method::POST, "/api/sessions", Some(json!({ "title": "t" }))).await["id"].as_i64().unwrap();
    let send = maru
        .http
        .post(format!("{}/api/sessions/{session}/messages", maru.base))
        .bearer_auth("t")
        .json(&json!({ "content": "a long question" }))
        .send()
        .await
        .unwrap();
    assert!(send.status().is_success());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (took, clean) = maru.terminate();
    assert!(clean, "SIGTERM mid-turn is still a clean exit");
    assert!(took < Duration::from_secs(10), "closing does not wait for a server that never answers: {took:?}");
    let h = history(data.path(), session);
    assert_eq!(h.len(), 2, "the question and its reply: {h:?}");
    assert_eq!(h[1].1, "stopped", "the reply stopped as the stop button would stop it");
    drop(held);
}
