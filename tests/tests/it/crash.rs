//! A Maru process killed mid-reply must leave the partial text, marked `interrupted` at the
//! next start. The server runs in a child process (this test binary, re-executed) so that it
//! can really be killed with SIGKILL.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use maru::store::messages::{Role, Status};
use maru_tests::fake_openai::{FakeOpenAi, Reply};
use serde_json::json;

const CHILD_ENV: &str = "MARU_CRASH_CHILD_DATA";

/// Runs only inside the child process: serves the data folder until killed.
#[tokio::test]
#[ignore = "helper process of a_killed_process_leaves_interrupted_text"]
async fn child_server_process() {
    let Ok(dir) = std::env::var(CHILD_ENV) else { return };
    let app = maru::app::App::open(std::path::Path::new(&dir)).unwrap();
    let opts = maru::server::ServeOptions {
        host: "127.0.0.1".into(),
        port: 0,
        token: Some("crash-token".into()),
        allow_remote: false,
        ui_dir: None,
    };
    let bound = maru::server::bind(app, &opts).await.unwrap();
    println!("CHILD_PORT {}", bound.addr.port());
    bound.run().await.unwrap();
}

#[tokio::test]
async fn a_killed_process_leaves_interrupted_text() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text((0..400).map(|i| format!("word{i} "))).piece_delay(25));
    let data = tempfile::tempdir().unwrap();
    // The helper's name as this binary lists it (`crash::child_server_process`): its path
    // without the binary's own name.
    let path = concat!(module_path!(), "::child_server_process");
    let child_test = path.split_once("::").map_or(path, |(_, name)| name);
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", child_test, "--include-ignored", "--nocapture"])
        .env(CHILD_ENV, data.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let port: u16 = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("CHILD_PORT ").map(|p| p.trim().parse().unwrap()))
        .expect("the child server reports its port");

    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    let auth = "Bearer crash-token";
    http.patch(format!("{base}/api/settings"))
        .header("authorization", auth)
        .json(&json!({ "endpoint_url": fake.base_url(), "model": "m" }))
        .send()
        .await
        .unwrap();
    let session: serde_json::Value = http
        .post(format!("{base}/api/sessions"))
        .header("authorization", auth)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let sid = session["id"].as_i64().unwrap();
    let mut res = http
        .post(format!("{base}/api/sessions/{sid}/messages"))
        .header("authorization", auth)
        .json(&json!({ "content": "tell me a long story" }))
        .send()
        .await
        .unwrap();
    // Read until a good part of the reply has streamed (and so has been saved at least once).
    let mut seen = String::new();
    while seen.matches("event: token").count() < 30 {
        let chunk = res.chunk().await.unwrap().expect("the reply streams");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    tokio::time::sleep(Duration::from_millis(400)).await;
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();

    let app = maru::app::App::open(data.path()).expect("the data survives a killed process");
    let history = app.store.with(|c| maru::store::messages::history(c, sid)).unwrap();
    assert_eq!(history.len(), 2, "the user message and the partial reply are there");
    assert_eq!(history[0].role, Role::User);
    assert_eq!(history[0].content, "tell me a long story");
    let reply = &history[1];
    assert_eq!(reply.status, Status::Interrupted, "a reply left streaming becomes interrupted at the next start");
    assert!(reply.content.starts_with("word0 word1 "), "the partial text is kept: {:?}", reply.content);
    assert!(!reply.content.contains("word399"), "and it is only what arrived before the kill");
}
