//! No tool server outlives Maru: neither after a quit (SIGTERM, as the window's close) nor after
//! `kill -9`, against the real server-everything from the npm registry (`tests/mcp`).

#![cfg(unix)]

use crate::support;

use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn pids(marker: &str) -> Vec<i32> {
    let out = Command::new("pgrep").args(["-f", marker]).output().expect("pgrep runs");
    String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| l.trim().parse().ok()).collect()
}

async fn gone(marker: &str) -> bool {
    let until = Instant::now() + Duration::from_secs(20);
    while Instant::now() < until {
        if pids(marker).is_empty() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// Starts Maru with server-everything added and running; gives Maru and the server's marker.
async fn with_running_server(data: &std::path::Path, how: &str) -> (Child, String) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(script.exists(), "install the test tool servers first: npm ci --prefix tests/mcp");
    let marker = format!("maru-orphan-{how}-{}", std::process::id());
    let (maru, base) = support::serve(data);
    let http = reqwest::Client::new();
    let added: Value = http
        .post(format!("{base}/api/tool-servers"))
        .bearer_auth("t")
        .json(&json!({ "name": "everything", "transport": "stdio", "command": "node", "args": [script, "stdio", marker] }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let tools = http.get(format!("{base}/api/tool-servers/{}/tools", added["id"])).bearer_auth("t").send().await.unwrap();
    assert_eq!(tools.status(), 200, "{}", tools.text().await.unwrap());
    assert!(!pids(&marker).is_empty(), "the server runs");
    (maru, marker)
}

#[tokio::test]
#[ignore = "needs the npm test tool servers: run through make test"]
async fn a_quit_stops_every_tool_server() {
    let data = tempfile::tempdir().unwrap();
    let (mut maru, marker) = with_running_server(data.path(), "quit").await;
    unsafe { libc::kill(maru.id() as i32, libc::SIGTERM) };
    assert!(maru.wait().unwrap().success(), "Maru quits cleanly");
    assert!(gone(&marker).await, "the tool server stopped with Maru: {:?}", pids(&marker));
}

#[tokio::test]
#[ignore = "needs the npm test tool servers: run through make test"]
async fn kill_9_of_maru_leaves_no_tool_server_behind() {
    let data = tempfile::tempdir().unwrap();
    let (mut maru, marker) = with_running_server(data.path(), "kill").await;
    maru.kill().unwrap();
    maru.wait().unwrap();
    assert!(gone(&marker).await, "a server whose Maru was killed ends on its own (its input closed): {:?}", pids(&marker));
}
