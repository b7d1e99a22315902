//! The demo model offered on a first run: started on request on a free port, one server however
//! often the user clicks, and a clear error when it cannot run.

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
