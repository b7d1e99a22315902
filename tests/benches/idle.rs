//! Idle work: a Maru server with a model server set up, a project linked to a folder and a chat
//! that has answered is left alone, and its CPU time and wake-ups (voluntary context switches,
//! per thread, from `/proc`) are counted over a window. An idle Maru should do nothing: no timer
//! firing while nothing changes. Prints the figures; Linux only.
//!
//! Run with `cargo bench -p maru-tests --bench idle` (MARU_IDLE_SECS=N, default 60).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use maru_tests::fake_openai::{FakeOpenAi, Reply};
use serde_json::json;

const CHILD_ENV: &str = "MARU_IDLE_CHILD_DATA";
const TOKEN: &str = "idle-token";

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    if let Ok(dir) = std::env::var(CHILD_ENV) {
        runtime.block_on(serve(dir));
        return;
    }
    runtime.block_on(measure());
}

/// The child: serves the data folder until it is killed.
async fn serve(dir: String) {
    let app = maru::app::App::open(std::path::Path::new(&dir)).unwrap();
    let opts =
        maru::server::ServeOptions { host: "127.0.0.1".into(), port: 0, token: Some(TOKEN.into()), allow_remote: false, ui_dir: None };
    let bound = maru::server::bind(app, &opts).await.unwrap();
    println!("CHILD_PORT {}", bound.addr.port());
    bound.run().await.unwrap();
}

async fn measure() {
    let secs: u64 = std::env::var("MARU_IDLE_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
    let data = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    for i in 0..20 {
        std::fs::write(folder.path().join(format!("note{i}.md")), format!("# Note {i}\n\nThe harbour ferry leaves at {i}.\n")).unwrap();
    }
    let fake = FakeOpenAi::start().await;
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_ENV, data.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let port: u16 = loop {
        let line = lines.next().expect("the child prints its port").unwrap();
        if let Some(p) = line.strip_prefix("CHILD_PORT ") {
            break p.parse().unwrap();
        }
    };
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    let call = |method: reqwest::Method, path: &str, body: serde_json::Value| {
        http.request(method, format!("{base}{path}")).bearer_auth(TOKEN).json(&body).send()
    };
    call(reqwest::Method::PATCH, "/api/settings", json!({ "endpoint_url": fake.base_url(), "model": "fake-model" })).await.unwrap();
    let project: serde_json::Value =
        call(reqwest::Method::POST, "/api/projects", json!({ "name": "Notes" })).await.unwrap().json().await.unwrap();
    let id = project["id"].as_i64().unwrap();
    call(reqwest::Method::PATCH, &format!("/api/projects/{id}"), json!({ "folder": folder.path().to_str().unwrap() })).await.unwrap();
    let session: serde_json::Value =
        call(reqwest::Method::POST, "/api/sessions", json!({ "project_id": id })).await.unwrap().json().await.unwrap();
    fake.push(Reply::text(["Hello."]));
    let sent = call(reqwest::Method::POST, &format!("/api/sessions/{}/messages", session["id"]), json!({ "content": "Hi" })).await.unwrap();
    let _ = sent.text().await;
    // What follows a turn (counting, the title, extraction) and the folder's sync settle first.
    tokio::time::sleep(Duration::from_secs(15)).await;

    let pid = child.id();
    let (cpu0, wakes0) = (cpu_ms(pid), wakeups(pid));
    tokio::time::sleep(Duration::from_secs(secs)).await;
    let (cpu1, wakes1) = (cpu_ms(pid), wakeups(pid));
    let _ = child.kill();
    let _ = child.wait();

    println!("idle maru serve over {secs} s (a model server set up, a linked folder of 20 files, one chat answered):");
    println!("  CPU time: {} ms ({:.3}% of one core)", cpu1 - cpu0, (cpu1 - cpu0) as f64 / (secs * 10) as f64);
    let mut total = 0;
    for (thread, (name, after)) in &wakes1 {
        let before = wakes0.get(thread).map_or(0, |(_, n)| *n);
        let woke = after - before;
        total += woke;
        if woke > 0 {
            println!("  thread {name} ({thread}): woke {woke} times");
        }
    }
    println!("  wake-ups in all: {total} ({:.2} per second)", total as f64 / secs as f64);
}

/// The process's user and system time, in milliseconds (`/proc/PID/stat`, 100 ticks a second).
fn cpu_ms(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat.rsplit_once(") ").unwrap().1.split_whitespace().collect();
    (fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()) * 10
}

/// Each thread's name and voluntary context switches: how often it went to sleep and woke again.
fn wakeups(pid: u32) -> BTreeMap<u32, (String, u64)> {
    let mut out = BTreeMap::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap().flatten() {
        let Ok(tid) = task.file_name().to_string_lossy().parse::<u32>() else { continue };
        let name = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default().trim().to_string();
        let Ok(status) = std::fs::read_to_string(task.path().join("status")) else { continue };
        let n = status.lines().find_map(|l| l.strip_prefix("voluntary_ctxt_switches:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
        out.insert(tid, (name, n));
    }
    out
}
