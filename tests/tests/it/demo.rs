//! The demo model offered on a first run: started on request on a free port, one server however
//! often the user clicks, and a clear error when it cannot run. It is one saved server, however
//! often Maru starts, started again when a chat needs it; a fresh store has no other.

use maru_tests::demo::{broken_llama_server, fake_llama_server};
use maru_tests::server::TestServer;
use reqwest::{Method, StatusCode};

#[tokio::test]
async fn the_demo_model_starts_once_and_answers_on_loopback() {
    let s = TestServer::start().await;
    let bin = tempfile::tempdir().unwrap();
    let (server, model) = fake_llama_server(bin.path());
    s.app.demo.use_files(server, model);

    let (st, before) = s.call(Method::GET, "/api/demo", None).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(before["available"], true, "the program and the model are there, so the UI may offer it: {before}");
    assert!(before["base_url"].is_null(), "nothing runs before the user asks: {before}");

    let (st, started) = s.call(Method::POST, "/api/demo", None).await;
    assert_eq!(st, StatusCode::OK, "{started}");
    let url = started["base_url"].as_str().expect("an address once it runs").to_string();
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/v1"), "an OpenAI-compatible loopback address: {url}");
    let health = reqwest::get(url.replace("/v1", "/health")).await.expect("the demo server answers");
    assert!(health.status().is_success());

    let (_, again) = s.call(Method::POST, "/api/demo", None).await;
    assert_eq!(again["base_url"], started["base_url"], "a second click reuses the running server instead of starting another");
    let (_, now) = s.call(Method::GET, "/api/demo", None).await;
    assert_eq!(now["base_url"], started["base_url"]);

    // Closing Maru stops it: no model server is left running behind the user's back.
    let data = s.stop().await;
    let mut gone = false;
    for _ in 0..50 {
        if reqwest::get(url.replace("/v1", "/health")).await.is_err() {
            gone = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(gone, "the demo server stops with Maru");
    drop(data);
}

#[tokio::test]
async fn a_demo_model_that_cannot_run_says_why() {
    let s = TestServer::start().await;
    let bin = tempfile::tempdir().unwrap();
    let (server, model) = broken_llama_server(bin.path());
    s.app.demo.use_files(server, model);
    let (st, err) = s.call(Method::POST, "/api/demo", None).await;
    assert_eq!(st, StatusCode::BAD_GATEWAY, "{err}");
    assert_eq!(err["code"], "model_server.demo_failed", "the UI explains it by code: {err}");
    assert!(err["message"].as_str().unwrap().contains("exited"), "the message says what happened: {err}");
    let (_, status) = s.call(Method::GET, "/api/demo", None).await;
    assert!(status["base_url"].is_null(), "a failed start leaves nothing to point at: {status}");
}

#[tokio::test]
async fn a_fresh_store_lists_no_server_nobody_set_up() {
    let s = TestServer::start().await;
    let (st, list) = s.get("/api/connections").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(list, serde_json::json!([]), "no phantom server at an address nobody started: {list}");
    let (st, err) = s.get("/api/models").await;
    assert_eq!(st, StatusCode::BAD_REQUEST, "{err}");
    assert_eq!(err["code"], "no_server", "asking for models before any server says what to do, by code: {err}");
    let (_, chat) = s.post("/api/sessions", serde_json::json!({})).await;
    let (st, err) = s.post(&format!("/api/sessions/{}/messages", chat["id"]), serde_json::json!({ "content": "hello" })).await;
    assert_eq!(
        (st, &err["code"]),
        (StatusCode::BAD_REQUEST, &serde_json::json!("no_server")),
        "a message sent before any server is refused, clearly: {err}"
    );

    // The first server the user adds is the default one: chats have a server to ask.
    let (st, added) = s.post("/api/connections", serde_json::json!({ "name": "GPU box", "base_url": "http://127.0.0.1:9/v1" })).await;
    assert_eq!(st, StatusCode::OK, "{added}");
    assert_eq!(added["is_default"], true, "the first server is the default: {added}");
}

#[tokio::test]
async fn two_starts_of_maru_keep_one_demo_server_started_again_when_needed() {
    let s = TestServer::start().await;
    let bin = tempfile::tempdir().unwrap();
    let (server, model) = fake_llama_server(bin.path());
    s.app.demo.use_files(server.clone(), model.clone());
    let (st, started) = s.call(Method::POST, "/api/demo", None).await;
    assert_eq!(st, StatusCode::OK, "{started}");
    let first_url = started["base_url"].as_str().unwrap().to_string();
    let (_, list) = s.get("/api/connections").await;
    let list = list.as_array().unwrap().clone();
    assert_eq!(list.len(), 1, "starting the demo model saves one server: {list:?}");
    assert_eq!(list[0]["name"], "Demo model", "a stable name, not one made of a random port: {list:?}");
    assert_eq!((&list[0]["demo"], &list[0]["is_default"]), (&serde_json::json!(true), &serde_json::json!(true)), "{list:?}");
    assert_eq!(list[0]["base_url"], started["base_url"]);
    assert_eq!(started["connection_id"], list[0]["id"], "the start names the server it saved: {started}");

    // Maru closes (the demo model with it) and opens again; its old port is taken meanwhile.
    let data = s.stop().await;
    let port: u16 = first_url.trim_start_matches("http://127.0.0.1:").trim_end_matches("/v1").parse().unwrap();
    let mut taken = None;
    for _ in 0..50 {
        if let Ok(l) = std::net::TcpListener::bind(("127.0.0.1", port)) {
            taken = Some(l);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(taken.is_some(), "the demo server stopped with Maru and freed its port");
    let s = TestServer::start_in(data).await;
    s.app.demo.use_files(server, model);
    let (_, status) = s.get("/api/demo").await;
    assert!(status["base_url"].is_null(), "nothing runs at start until a chat needs it: {status}");

    // The default server's models: the demo model is started for them, not reported dead.
    let (st, models) = s.get("/api/models").await;
    assert_eq!(st, StatusCode::OK, "the demo model is started again when its models are asked: {models}");
    assert_eq!(models[0]["id"], "SmolLM2-135M-demo", "{models}");
    let (_, status) = s.get("/api/demo").await;
    let new_url = status["base_url"].as_str().expect("it runs again").to_string();
    assert_ne!(new_url, first_url, "its old port was taken, so it runs on another");
    let (_, again) = s.call(Method::POST, "/api/demo", None).await;
    assert_eq!(again["base_url"], status["base_url"], "a click on Start reuses it");
    let (_, list) = s.get("/api/connections").await;
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 1, "two starts of Maru and two of the demo model leave one server: {list:?}");
    assert_eq!(list[0]["base_url"].as_str(), Some(new_url.as_str()), "its one row follows the new port: {list:?}");
    drop(taken);
}
