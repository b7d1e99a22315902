//! The desktop window's way in: requests handed to the in-process router (no socket). The window
//! must meet the same API a browser meets: the same JSON, errors, uploads and turn events.

use maru::server::local::{Local, LocalRequest};
use maru_tests::fake_openai::{FakeOpenAi, Reply};
use maru_tests::server::TestServer;
use serde_json::{json, Value};

fn request(method: &str, path: &str, body: Option<Value>) -> LocalRequest {
    LocalRequest {
        method: method.into(),
        path: path.into(),
        content_type: body.as_ref().map(|_| "application/json".into()),
        accept: None,
        body: body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
    }
}

async fn call(local: &Local, req: LocalRequest) -> (u16, Vec<u8>) {
    let res = local.call(req).await;
    let status = res.status().as_u16();
    (status, axum::body::to_bytes(res.into_body(), usize::MAX).await.expect("body").to_vec())
}

async fn json(local: &Local, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let (status, bytes) = call(local, request(method, path, body)).await;
    (status, if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).expect("JSON answer") })
}

#[tokio::test]
async fn the_window_reaches_every_route_without_a_token_and_gets_the_same_errors() {
    let s = TestServer::start().await;
    let local = Local::new(s.app.clone());
    let (status, health) = json(&local, "GET", "/api/health", None).await;
    assert_eq!(status, 200, "the window needs no token: IPC reaches only its own core: {health}");
    assert_eq!(health["status"], "ok");

    let (status, project) = json(&local, "POST", "/api/projects", Some(json!({"name": "Work"}))).await;
    assert_eq!(status, 200, "{project}");
    let (status, err) = json(&local, "POST", "/api/projects", Some(json!({"name": "work"}))).await;
    assert_eq!((status, err["code"].as_str()), (409, Some("name_taken")), "the window shows the same error codes the browser does: {err}");

    // What the window created, the HTTP API sees: one core, one database.
    let (_, projects) = s.call(reqwest::Method::GET, "/api/projects", None).await;
    assert!(projects.as_array().unwrap().iter().any(|p| p["id"] == project["id"]), "{projects}");

    let (status, err) = json(&local, "GET", "/api/nope", None).await;
    assert_eq!((status, err["code"].as_str()), (404, Some("no_such_route")), "{err}");
    let (status, err) = json(&local, "GET", "/index.html", None).await;
    assert_eq!((status, err["code"].as_str()), (400, Some("no_such_route")), "IPC serves the API only, never files: {err}");
    let (status, err) = json(&local, "BR EW", "/api/health", None).await;
    assert_eq!((status, err["code"].as_str()), (400, Some("bad_method")), "{err}");
}

#[tokio::test]
async fn an_upload_and_a_download_cross_as_bytes() {
    let s = TestServer::start().await;
    let local = Local::new(s.app.clone());
    let session = s.session(None, "").await;
    let boundary = "maruboundary";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"session_id\"\r\n\r\n{session}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"notes.md\"\r\nContent-Type: text/markdown\r\n\r\n# Notes\nThe harbour opens at six.\r\n--{boundary}--\r\n"
    );
    let req = LocalRequest {
        method: "POST".into(),
        path: "/api/attachments".into(),
        content_type: Some(format!("multipart/form-data; boundary={boundary}")),
        accept: None,
        body: body.into_bytes(),
    };
    let (status, bytes) = call(&local, req).await;
    let attachment: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(status, 200, "a file dropped on the window is uploaded like a browser's: {attachment}");
    let (status, content) = call(&local, request("GET", &format!("/api/attachments/{}/content", attachment["id"]), None)).await;
    assert_eq!(status, 200);
    assert_eq!(String::from_utf8(content).unwrap(), "# Notes\nThe harbour opens at six.", "the file comes back byte for byte");
}

#[tokio::test]
async fn a_turn_streams_its_events_through_the_window_channel() {
    let fake = FakeOpenAi::start().await;
    let s = TestServer::start().await;
    s.use_server(&fake.base_url(), "fake-model").await;
    let local = Local::new(s.app.clone());
    let session = s.session(None, "").await;
    fake.push(Reply::text(["Hel", "lo"]));
    let mut req = request("POST", &format!("/api/sessions/{session}/messages"), Some(json!({"content": "hi"})));
    req.accept = Some("text/event-stream".into());
    let res = local.call(req).await;
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(res.headers()["content-type"], "text/event-stream");
    let text = String::from_utf8(axum::body::to_bytes(res.into_body(), usize::MAX).await.unwrap().to_vec()).unwrap();
    assert!(text.contains("event: token") && text.contains("event: done"), "the window gets the same event stream: {text}");
    assert_eq!(s.history(session).await[1]["content"], "Hello");
}
