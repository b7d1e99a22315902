//! Starts Maru's HTTP server in-process on a free loopback port with a fresh data folder, and
//! gives tests a small client that sends the access token.

use std::sync::Arc;

use maru::app::App;
use maru::server::{self, ServeOptions};
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::fake_openai::FakeOpenAi;

/// Maru serving, with its settings pointed at a new fake model server ("fake-model").
pub async fn with_fake_model() -> (TestServer, FakeOpenAi) {
    let fake = FakeOpenAi::start().await;
    let s = TestServer::start().await;
    s.use_server(&fake.base_url(), "fake-model").await;
    (s, fake)
}

pub struct TestServer {
    pub base: String,
    pub token: String,
    pub app: Arc<App>,
    pub http: reqwest::Client,
    /// Keeps the data folder alive for the test's duration.
    pub data: tempfile::TempDir,
    task: tokio::task::JoinHandle<()>,
    shutdown: tokio::sync::oneshot::Sender<()>,
}

impl TestServer {
    pub async fn start() -> TestServer {
        let data = tempfile::tempdir().expect("temp data folder");
        Self::start_in(data).await
    }

    /// Starts on an existing data folder (to show data survives a restart).
    pub async fn start_in(data: tempfile::TempDir) -> TestServer {
        Self::serve(data, None).await
    }

    /// Starts serving the web UI from `ui_dir` too.
    pub async fn start_with_ui(ui_dir: &std::path::Path) -> TestServer {
        Self::serve(tempfile::tempdir().expect("temp data folder"), Some(ui_dir.to_path_buf())).await
    }

    async fn serve(data: tempfile::TempDir, ui_dir: Option<std::path::PathBuf>) -> TestServer {
        let app = App::open(data.path()).expect("open data folder");
        let opts = ServeOptions { host: "127.0.0.1".into(), port: 0, token: None, allow_remote: false, ui_dir };
        let bound = server::bind(app.clone(), &opts).await.expect("bind");
        let base = format!("http://{}", bound.addr);
        let token = bound.token.clone();
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = bound.run_until(async move { drop(stopped.await) }).await;
        });
        TestServer { base, token, app, http: reqwest::Client::new(), data, task, shutdown }
    }

    /// Stops serving, closes the data folder (releasing its lock, as a quitting Maru does) and
    /// hands it back.
    pub async fn stop(self) -> tempfile::TempDir {
        let TestServer { app, http, data, task, shutdown, .. } = self;
        drop(http);
        let _ = shutdown.send(());
        let _ = task.await;
        let weak = std::sync::Arc::downgrade(&app);
        drop(app);
        for _ in 0..500 {
            if weak.strong_count() == 0 {
                return data;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("the server still holds the data folder 5 s after stopping");
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Sends an authorised request; returns the status and the JSON body (Null when empty).
    pub async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut req = self.http.request(method, self.url(path)).bearer_auth(&self.token);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let res = req.send().await.expect("request reaches the server");
        let status = res.status();
        let text = res.text().await.expect("body");
        let json = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap_or(Value::String(text)) };
        (status, json)
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, None).await
    }
    pub async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::POST, path, Some(body)).await
    }
    pub async fn patch(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::PATCH, path, Some(body)).await
    }
    pub async fn delete(&self, path: &str) -> (StatusCode, Value) {
        self.call(Method::DELETE, path, None).await
    }

    /// Uploads `bytes` as `name` to a session or project (`field` is `session_id` or
    /// `project_id`); the status and the JSON body (Null when there is none).
    pub async fn upload(&self, field: &str, id: i64, name: &str, bytes: Vec<u8>) -> (StatusCode, Value) {
        let form = reqwest::multipart::Form::new()
            .text(field.to_string(), id.to_string())
            .part("file", reqwest::multipart::Part::bytes(bytes).file_name(name.to_string()));
        let res = self.http.post(self.url("/api/attachments")).bearer_auth(&self.token).multipart(form).send().await.unwrap();
        let status = res.status();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// Attaches `text` as a file of the session and waits until it is indexed (or failed).
    pub async fn attach_indexed(&self, session_id: i64, name: &str, text: &str) -> Value {
        let (status, file) = self.upload("session_id", session_id, name, text.as_bytes().to_vec()).await;
        assert_eq!(status, StatusCode::OK, "attaching {name}: {file}");
        let path = format!("/api/attachments/{}", file["id"]);
        for _ in 0..1000 {
            let (_, seen) = self.get(&path).await;
            if seen["status"] != "indexing" {
                return seen;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        panic!("{name} was still indexing after 20 s");
    }

    /// Creates a project and returns its id.
    pub async fn project(&self, name: &str) -> i64 {
        let (s, p) = self.post("/api/projects", serde_json::json!({ "name": name })).await;
        assert_eq!(s, StatusCode::OK, "creating project {name}: {p}");
        p["id"].as_i64().unwrap()
    }

    /// Creates a session in `project_id` (Default when None) and returns its id.
    pub async fn session(&self, project_id: Option<i64>, title: &str) -> i64 {
        let (s, v) = self.post("/api/sessions", serde_json::json!({ "project_id": project_id, "title": title })).await;
        assert_eq!(s, StatusCode::OK, "creating session: {v}");
        v["id"].as_i64().unwrap()
    }
}

/// One Server-Sent Event of a chat turn.
#[derive(Debug, Clone)]
pub struct Event {
    pub name: String,
    pub data: Value,
}

/// A chat turn's event stream, read incrementally.
pub struct Turn {
    pub status: StatusCode,
    body: Option<reqwest::Response>,
    buf: Vec<u8>,
    /// The JSON error body when the turn was refused before streaming.
    pub refusal: Option<Value>,
}

impl Turn {
    /// Reads an event stream from a response (e.g. attaching to a turn in flight).
    pub fn from_response(res: reqwest::Response) -> Turn {
        Turn { status: res.status(), body: Some(res), buf: vec![], refusal: None }
    }

    /// The next event, or None when the stream has ended.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buf.windows(2).position(|w| w == b"\n\n") {
                let raw: Vec<u8> = self.buf.drain(..end + 2).collect();
                let text = String::from_utf8_lossy(&raw);
                let mut name = String::from("message");
                let mut data = String::new();
                for line in text.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        name = v.trim().to_string();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim_start());
                    }
                }
                if data.is_empty() {
                    continue; // keep-alive comment
                }
                return Some(Event { name, data: serde_json::from_str(&data).unwrap_or(Value::String(data)) });
            }
            let chunk = self.body.as_mut()?.chunk().await.ok().flatten();
            match chunk {
                Some(bytes) => self.buf.extend_from_slice(&bytes),
                None => {
                    self.body = None;
                    return None;
                }
            }
        }
    }

    /// Every remaining event.
    pub async fn collect(mut self) -> Vec<Event> {
        let mut out = vec![];
        while let Some(e) = self.next().await {
            out.push(e);
        }
        out
    }
}

impl TestServer {
    /// Follows the turn running in a chat, from its first event (as a second tab does).
    pub async fn follow(&self, session_id: i64) -> Turn {
        let res = self.http.get(self.url(&format!("/api/sessions/{session_id}/events"))).bearer_auth(&self.token).send().await.unwrap();
        Turn::from_response(res)
    }

    /// Starts a turn (POST that answers with an event stream).
    pub async fn turn(&self, path: &str, body: Option<Value>) -> Turn {
        let mut req = self.http.post(self.url(path)).bearer_auth(&self.token);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let res = req.send().await.expect("request reaches the server");
        let status = res.status();
        let is_stream = res.headers().get("content-type").and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("text/event-stream"));
        if is_stream {
            Turn { status, body: Some(res), buf: vec![], refusal: None }
        } else {
            let refusal = res.json().await.ok();
            Turn { status, body: None, buf: vec![], refusal }
        }
    }

    /// Sends a user message and returns every event of the turn.
    pub async fn say(&self, session_id: i64, content: &str) -> Vec<Event> {
        let turn = self.turn(&format!("/api/sessions/{session_id}/messages"), Some(serde_json::json!({ "content": content }))).await;
        assert_eq!(turn.status, StatusCode::OK, "sending a message: {:?}", turn.refusal);
        turn.collect().await
    }

    /// Points Maru at a model server.
    pub async fn use_server(&self, base_url: &str, model: &str) {
        let (s, v) = self.patch("/api/settings", serde_json::json!({ "endpoint_url": base_url, "model": model })).await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }

    /// The session's messages, oldest first.
    pub async fn history(&self, session_id: i64) -> Vec<Value> {
        let (_, page) = self.get(&format!("/api/sessions/{session_id}/messages?limit=500")).await;
        let mut msgs = page["messages"].as_array().cloned().unwrap_or_default();
        msgs.reverse();
        msgs
    }
}
