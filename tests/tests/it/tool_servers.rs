//! The user's MCP tool servers, against real third-party servers from the npm registry
//! (`@modelcontextprotocol/server-everything` over stdio and Streamable HTTP,
//! `@modelcontextprotocol/server-filesystem` over stdio), installed into `tests/mcp` by
//! `make test`. The fake model server scripts the model's tool calls; the MCP side is real.
//! What those servers cannot be made to do (hang at start or in a call, offer names that clash)
//! is scripted with `tests/mcp/mini_server.py`, in the fast tier.

use std::path::{Path, PathBuf};
use std::time::Duration;

use maru_tests::fake_openai::{FakeOpenAi, Reply};
use maru_tests::server::{with_fake_model, Event, TestServer, Turn};
use serde_json::{json, Value};

fn package(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mcp/node_modules/@modelcontextprotocol").join(name);
    assert!(dir.exists(), "install the test tool servers first: npm ci --prefix tests/mcp ({} is missing)", dir.display());
    dir
}

/// server-everything over stdio; `marker` ends its command line, so a test can find its process.
fn everything(name: &str, marker: &str) -> Value {
    let script = package("server-everything").join("dist/index.js");
    json!({ "name": name, "transport": "stdio", "command": "node", "args": [script, "stdio", marker] })
}

async fn add(s: &TestServer, server: Value) -> Value {
    let (status, v) = s.post("/api/tool-servers", server).await;
    assert_eq!(status, 200, "{v}");
    v
}

/// Reads a turn's events up to the first `name`, which it returns.
async fn until(turn: &mut Turn, name: &str, seen: &mut Vec<Event>) -> Event {
    while let Some(e) = turn.next().await {
        seen.push(e.clone());
        if e.name == name {
            return e;
        }
    }
    panic!("the turn ended without {name}: {seen:?}");
}

/// A turn in which the model calls `tool` once with `args`, then answers "done".
async fn turn_calling(s: &TestServer, fake: &FakeOpenAi, session: i64, tool: &str, args: Value) -> Turn {
    fake.push(Reply::tool_call(tool, args.to_string()));
    fake.push(Reply::text(["done"]));
    let turn = s.turn(&format!("/api/sessions/{session}/messages"), Some(json!({ "content": "use the tool" }))).await;
    assert_eq!(turn.status, 200, "{:?}", turn.refusal);
    turn
}

fn tool_result(events: &[Event]) -> &Value {
    &events.iter().find(|e| e.name == "tool_result").unwrap_or_else(|| panic!("no tool result: {events:?}")).data
}

fn pids(marker: &str) -> Vec<i32> {
    let out = std::process::Command::new("pgrep").args(["-f", marker]).output().expect("pgrep runs");
    String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| l.trim().parse().ok()).collect()
}

#[tokio::test]
#[ignore = "needs the npm test tool servers: run through make test"]
async fn a_stdio_server_starts_when_needed_and_each_call_waits_for_the_user() {
    let (s, fake) = with_fake_model().await;
    let marker = format!("maru-test-{}", std::process::id());
    let mut server = everything("everything", &marker);
    server["env"] = json!({ "SECRET_TOKEN": "s3cr3t-value" });
    let added = add(&s, server).await;
    let id = added["id"].as_i64().unwrap();
    assert_eq!(added["status"], "stopped", "a server starts when first needed, not when added: {added}");
    assert!(pids(&marker).is_empty(), "nothing runs before it is needed");
    let (_, listed) = s.get("/api/tool-servers").await;
    assert_eq!(listed[0]["env_keys"], json!(["SECRET_TOKEN"]), "the list names the variables");
    assert!(!listed.to_string().contains("s3cr3t-value"), "and never shows a secret: {listed}");

    let (status, tools) = s.get(&format!("/api/tool-servers/{id}/tools")).await;
    assert_eq!(status, 200, "{tools}");
    let names: Vec<&str> = tools.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"echo") && names.contains(&"get-sum"), "{names:?}");
    assert_eq!(s.get("/api/tool-servers").await.1[0]["status"], "running");

    let chat = s.session(None, "").await;
    let mut turn = turn_calling(&s, &fake, chat, "everything__get-sum", json!({ "a": 2, "b": 3 })).await;
    let mut seen = vec![];
    let asked = until(&mut turn, "approval_needed", &mut seen).await;
    assert_eq!((asked.data["server"].as_str(), asked.data["tool"].as_str()), (Some("everything"), Some("get-sum")), "{asked:?}");
    assert!(!seen.iter().any(|e| e.name == "tool_result"), "nothing runs before the user answers");
    // A second tab follows the same turn and sees the question too.
    let mut second = s.follow(chat).await;
    let mut seen_there = vec![];
    until(&mut second, "approval_needed", &mut seen_there).await;
    let approval = asked.data["approval"].as_str().unwrap().to_string();
    let (status, answered) = s.post(&format!("/api/tool-calls/{approval}/approve"), json!({})).await;
    assert_eq!(status, 200, "{answered}");
    let (status, again) = s.post(&format!("/api/tool-calls/{approval}/deny"), json!({})).await;
    assert_eq!((status.as_u16(), again["code"].as_str()), (409, Some("not_pending")), "an answered call cannot be answered twice");
    seen.extend(turn.collect().await);
    let result = tool_result(&seen);
    assert!(result["content"].as_str().unwrap().contains('5'), "the real server added 2 and 3: {result}");
    let first = &fake.chat_requests()[0].body;
    let offered: Vec<&str> = first["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert!(
        offered.contains(&"everything__echo") && offered.contains(&"search_memory"),
        "its tools are offered beside Maru's: {offered:?}"
    );
    let sent = fake.chat_requests()[1].body["messages"].to_string();
    assert!(sent.contains("data returned by a tool"), "the result reaches the model as data, not instructions");

    s.delete(&format!("/api/tool-servers/{id}")).await;
    maru_tests::eventually("the removed server's processes end", || async { pids(&marker).is_empty() }).await;
}

#[tokio::test]
#[ignore = "needs the npm test tool servers: run through make test"]
async fn always_allow_skips_the_question_and_a_denied_call_tells_the_model() {
    let (s, fake) = with_fake_model().await;
    let id = add(&s, everything("ev", "maru-always")).await["id"].as_i64().unwrap();
    let chat = s.session(None, "").await;

    let mut turn = turn_calling(&s, &fake, chat, "ev__get-sum", json!({ "a": 1, "b": 1 })).await;
    let mut seen = vec![];
    let asked = until(&mut turn, "approval_needed", &mut seen).await;
    let approval = asked.data["approval"].as_str().unwrap();
    assert_eq!(s.post(&format!("/api/tool-calls/{approval}/approve"), json!({ "always": true })).await.0, 200);
    seen.extend(turn.collect().await);
    assert!(tool_result(&seen)["content"].as_str().unwrap().contains('2'));
    let (_, listed) = s.get("/api/tool-servers").await;
    assert_eq!(listed[0]["always_allowed"], json!(["get-sum"]), "the always-allowed list is kept and shown: {listed}");

    let events = turn_calling(&s, &fake, chat, "ev__get-sum", json!({ "a": 2, "b": 2 })).await.collect().await;
    assert!(!events.iter().any(|e| e.name == "approval_needed"), "an always-allowed tool runs without asking: {events:?}");
    assert!(tool_result(&events)["content"].as_str().unwrap().contains('4'));

    let mut turn = turn_calling(&s, &fake, chat, "ev__echo", json!({ "message": "hi" })).await;
    let mut seen = vec![];
    let asked = until(&mut turn, "approval_needed", &mut seen).await;
    let approval = asked.data["approval"].as_str().unwrap();
    assert_eq!(s.post(&format!("/api/tool-calls/{approval}/deny"), json!({})).await.0, 200);
    seen.extend(turn.collect().await);
    let denied = tool_result(&seen);
    assert_eq!(denied["is_error"], true);
    assert!(denied["content"].as_str().unwrap().contains("did not allow"), "the model is told: {denied}");
    assert!(seen.iter().any(|e| e.name == "done"), "and the turn goes on to its answer: {seen:?}");

    // Editable: the user takes it back.
    s.patch(&format!("/api/tool-servers/{id}"), json!({ "always_allowed": [] })).await;
    let mut turn = turn_calling(&s, &fake, chat, "ev__get-sum", json!({ "a": 3, "b": 3 })).await;
    until(&mut turn, "approval_needed", &mut vec![]).await;
    s.post(&format!("/api/sessions/{chat}/stop"), json!({})).await;
    let rest = turn.collect().await;
    assert!(rest.iter().any(|e| e.name == "approval_decided" && e.data["decision"] == "timed_out"), "stop ends the wait: {rest:?}");
}

#[tokio::test]
#[ignore = "needs the npm test tool servers: run through make test"]
async fn a_streamable_http_server_is_reached_with_its_headers() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let script = package("server-everything").join("dist/index.js");
    let mut http_server = tokio::process::Command::new("node")
        .args([script.to_str().unwrap(), "streamableHttp"])
        .env("PORT", port.to_string())
        .kill_on_drop(true)
        .stderr(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("node runs");
    maru_tests::eventually("the HTTP server listens", || async { tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() }).await;
    let (s, fake) = with_fake_model().await;
    let server = json!({
        "name": "remote", "transport": "http", "url": format!("http://127.0.0.1:{port}/mcp"),
        "headers": { "Authorization": "Bearer never-shown" }
    });
    let id = add(&s, server).await["id"].as_i64().unwrap();
    let (status, tools) = s.get(&format!("/api/tool-servers/{id}/tools")).await;
    assert_eq!(status, 200, "{tools}");
    assert!(tools.to_string().contains("\"echo\""), "{tools}");
    let (_, listed) = s.get("/api/tool-servers").await;
    assert_eq!(listed[0]["header_keys"], json!(["Authorization"]));
    assert!(!listed.to_string().contains("never-shown"), "{listed}");

    s.patch(&format!("/api/tool-servers/{id}"), json!({ "always_allowed": ["echo"] })).await;
    let chat = s.session(None, "").await;
    let events = turn_calling(&s, &fake, chat, "remote__echo", json!({ "message": "over HTTP" })).await.collect().await;
    assert!(tool_result(&events)["content"].as_str().unwrap().contains("Echo: over HTTP"), "{events:?}");
    let _ = http_server.kill().await;
}

#[tokio::test]
#[ignore = "needs the npm test tool servers: run through make test"]
async fn a_server_that_fails_slow_calls_killed_servers_and_huge_results_never_break_a_turn() {
    let (s, fake) = with_fake_model().await;
    let chat = s.session(None, "").await;

    // Exits at start: the list says why, and turns go on without it.
    let script = package("server-filesystem").join("dist/index.js");
    let broken = add(&s, json!({ "name": "broken", "transport": "stdio", "command": "node", "args": [script, "/no/such/dir"] })).await;
    let (status, why) = s.get(&format!("/api/tool-servers/{}/tools", broken["id"])).await;
    assert_eq!((status.as_u16(), why["code"].as_str()), (409, Some("tool_server_failed")), "{why}");
    assert!(why["message"].as_str().unwrap().contains("accessible"), "the server's own words say why: {why}");
    let (_, listed) = s.get("/api/tool-servers").await;
    assert_eq!(listed[0]["status"], "failed");
    assert!(listed[0]["error"].as_str().unwrap().contains("accessible"), "{listed}");
    let why = &listed[0]["why"];
    assert_eq!(why["code"], "tool_server_no_handshake", "a program that runs and exits at once did not shake hands: {listed}");
    assert!(
        why["params"]["said"].as_str().unwrap_or_default().contains("accessible"),
        "its last words travel with the code, so a Korean window shows them too: {listed}"
    );
    fake.push(Reply::text(["fine"]));
    let events = s.say(chat, "hello").await;
    assert!(events.iter().any(|e| e.name == "done"), "a broken server does not break the turn: {events:?}");
    s.patch(&format!("/api/tool-servers/{}", broken["id"]), json!({ "enabled": false })).await;

    // A slow call past the timeout is cancelled and the model is told.
    assert_eq!(s.patch("/api/settings", json!({ "tool_call_timeout_secs": 5 })).await.0, 200);
    let marker = format!("maru-slow-{}", std::process::id());
    let ev = add(&s, everything("ev", &marker)).await;
    s.patch(&format!("/api/tool-servers/{}", ev["id"]), json!({ "always_allowed": ["trigger-long-running-operation", "get-env"] })).await;
    let started = std::time::Instant::now();
    let events =
        turn_calling(&s, &fake, chat, "ev__trigger-long-running-operation", json!({ "duration": 30, "steps": 30 })).await.collect().await;
    let slow = tool_result(&events);
    assert!(slow["content"].as_str().unwrap().contains("within 5 seconds"), "{slow}");
    assert!(started.elapsed() < Duration::from_secs(25), "the turn did not wait for the 30 s call: {:?}", started.elapsed());

    // Killed mid-call: the call fails in words, and the next one starts the server again.
    s.patch("/api/settings", json!({ "tool_call_timeout_secs": 60 })).await;
    let mut turn = turn_calling(&s, &fake, chat, "ev__trigger-long-running-operation", json!({ "duration": 30, "steps": 30 })).await;
    until(&mut turn, "tool_call", &mut vec![]).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let running = pids(&marker);
    assert!(!running.is_empty(), "the server runs the call");
    for pid in &running {
        unsafe { libc::kill(*pid, libc::SIGKILL) };
    }
    let events = turn.collect().await;
    let killed = tool_result(&events);
    assert_eq!(killed["is_error"], true, "{killed}");
    assert!(events.iter().any(|e| e.name == "done"), "the turn goes on: {events:?}");
    let events = turn_calling(&s, &fake, chat, "ev__get-env", json!({})).await.collect().await;
    assert_eq!(tool_result(&events)["is_error"], false, "the server was started again: {events:?}");

    // A huge result is kept aside like any tool's: the model gets its first lines.
    let dir = tempfile::tempdir().unwrap();
    let big: String = (0..60_000).map(|i| format!("line {i}: the quick brown fox jumps over the lazy dog\n")).collect();
    std::fs::write(dir.path().join("big.txt"), &big).unwrap();
    let fs = add(&s, json!({ "name": "fs", "transport": "stdio", "command": "node", "args": [script, dir.path()] })).await;
    s.patch(&format!("/api/tool-servers/{}", fs["id"]), json!({ "always_allowed": ["read_text_file"] })).await;
    let (_, tools) = s.get(&format!("/api/tool-servers/{}/tools", fs["id"])).await;
    let read_only = |name: &str| tools.as_array().unwrap().iter().find(|t| t["name"] == name).map(|t| t["hints"]["read_only"].clone());
    assert_eq!(
        (read_only("read_text_file"), read_only("write_file")),
        (Some(json!(true)), Some(json!(false))),
        "what the real server says of its tools reaches the list (and the approval card): {tools}"
    );
    let path = dir.path().join("big.txt");
    let events = turn_calling(&s, &fake, chat, "fs__read_text_file", json!({ "path": path })).await.collect().await;
    let huge = tool_result(&events)["content"].as_str().unwrap();
    assert!(huge.starts_with("[This output is long") && huge.len() < 20_000, "{} characters reach the model", huge.len());
    // Limited to its folder: the filesystem server refuses what is outside.
    let events = turn_calling(&s, &fake, chat, "fs__read_text_file", json!({ "path": "/etc/hostname" })).await.collect().await;
    assert_eq!(tool_result(&events)["is_error"], true, "{events:?}");
    s.app.shutdown().await;
    maru_tests::eventually("no tool server outlives Maru", || async { pids(&marker).is_empty() }).await;
}

/// `tests/mcp/mini_server.py` over stdio, scripted by `flags`, its requests logged to `log`
/// (whose path on its command line also finds its process).
fn mini(name: &str, log: &Path, flags: &[&str]) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mcp/mini_server.py");
    let mut args = vec![json!(script), json!("--log"), json!(log)];
    args.extend(flags.iter().map(|f| json!(f)));
    json!({ "name": name, "transport": "stdio", "command": "python3", "args": args })
}

/// The requests the scripted server received, a line each (`initialize`, `call echo`…).
fn logged(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log).unwrap_or_default().lines().map(str::to_string).collect()
}

/// What must happen at once, bounded generously: past 30 s the test fails (the waits it
/// replaces were a call's limit, 120 s here, and a start's, 60 s).
async fn soon<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), f).await.unwrap_or_else(|_| panic!("{what} did not happen within 30 s"))
}

fn decided(events: &[Event]) -> Option<&str> {
    events.iter().find(|e| e.name == "approval_decided").and_then(|e| e.data["decision"].as_str())
}

#[tokio::test]
async fn a_call_waiting_for_approval_ends_when_its_server_is_removed_and_nothing_starts_it_again() {
    let (s, fake) = with_fake_model().await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("mini.log");
    let id = add(&s, mini("mini", &log, &[])).await["id"].as_i64().unwrap();
    let chat = s.session(None, "").await;
    let mut turn = turn_calling(&s, &fake, chat, "mini__echo", json!({ "message": "hi" })).await;
    let mut seen = vec![];
    let asked = until(&mut turn, "approval_needed", &mut seen).await;
    let starts = || logged(&log).iter().filter(|l| *l == "initialize").count();
    assert_eq!(starts(), 1, "the turn started the server once, to offer its tools");

    let (status, v) = soon("removing the server", s.delete(&format!("/api/tool-servers/{id}"))).await;
    assert_eq!(status, 200, "{v}");
    let approval = asked.data["approval"].as_str().unwrap();
    let (status, v) = s.post(&format!("/api/tool-calls/{approval}/approve"), json!({})).await;
    assert_eq!(
        (status.as_u16(), v["code"].as_str()),
        (409, Some("not_pending")),
        "the call stopped waiting when its server was removed, so a late approval runs nothing: {v}"
    );
    seen.extend(soon("the turn going on without the removed server", turn.collect()).await);
    assert_eq!(decided(&seen), Some("server_stopped"), "the window says why the call did not run: {seen:?}");
    let result = tool_result(&seen);
    assert_eq!(result["is_error"], true, "{result}");
    assert!(result["content"].as_str().unwrap().contains("was removed"), "the model is told the server is gone: {result}");
    assert!(seen.iter().any(|e| e.name == "done"), "and the turn goes on to its answer: {seen:?}");
    maru_tests::eventually("the removed server's process ends", || async { pids(&log.display().to_string()).is_empty() }).await;
    assert_eq!(starts(), 1, "no new process was started for a server that no longer exists: {:?}", logged(&log));
    assert!(!logged(&log).iter().any(|l| l.starts_with("call")), "the call never reached the server: {:?}", logged(&log));
}

#[tokio::test]
async fn a_project_lets_the_tools_a_server_marks_read_only_run_and_the_others_still_ask() {
    let (s, fake) = with_fake_model().await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("mini.log");
    let id = add(&s, mini("mini", &log, &["--annotated"])).await["id"].as_i64().unwrap();
    let (_, tools) = s.get(&format!("/api/tool-servers/{id}/tools")).await;
    let hints = |name: &str| tools.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap()["hints"].clone();
    assert_eq!(hints("look"), json!({ "read_only": true, "destructive": null, "open_world": false }), "the list says what the server says");
    assert_eq!(hints("erase"), json!({ "read_only": false, "destructive": true, "open_world": null }));
    assert_eq!(hints("echo"), json!({ "read_only": null, "destructive": null, "open_world": null }), "and nothing it does not say");

    // By default a read-only tool asks too, and the question says what the server says of it.
    let chat = s.session(None, "").await;
    let mut turn = turn_calling(&s, &fake, chat, "mini__look", json!({ "message": "up" })).await;
    let mut seen = vec![];
    let asked = until(&mut turn, "approval_needed", &mut seen).await;
    assert_eq!(asked.data["hints"]["read_only"], true, "the card can show the tool only reads: {asked:?}");
    let approval = asked.data["approval"].as_str().unwrap().to_string();
    s.post(&format!("/api/tool-calls/{approval}/deny"), json!({})).await;
    soon("the denied turn", turn.collect()).await;

    let project = s.project("Research").await;
    let (status, patched) = s.patch(&format!("/api/projects/{project}"), json!({ "tool_approval": "read_only_runs" })).await;
    assert_eq!((status.as_u16(), patched["tool_approval"].as_str()), (200, Some("read_only_runs")), "{patched}");
    let chat = s.session(Some(project), "Reading").await;
    let events = soon("a read-only call", turn_calling(&s, &fake, chat, "mini__look", json!({ "message": "up" })).await.collect()).await;
    assert!(!events.iter().any(|e| e.name == "approval_needed"), "in this project a read-only tool runs without asking: {events:?}");
    assert!(tool_result(&events)["content"].as_str().unwrap().contains("Echo: up"), "{events:?}");
    let mut turn = turn_calling(&s, &fake, chat, "mini__erase", json!({ "message": "all" })).await;
    let mut seen = vec![];
    let asked = until(&mut turn, "approval_needed", &mut seen).await;
    assert_eq!(asked.data["hints"]["destructive"], true, "a tool that erases still asks, saying so: {asked:?}");
    let approval = asked.data["approval"].as_str().unwrap().to_string();
    s.post(&format!("/api/tool-calls/{approval}/deny"), json!({})).await;
    seen.extend(soon("the denied turn", turn.collect()).await);
    assert_eq!(logged(&log).iter().filter(|l| *l == "call erase").count(), 0, "the denied call never reached the server");
    assert_eq!(logged(&log).iter().filter(|l| *l == "call look").count(), 1, "only the call the project let run did");
}

#[tokio::test]
async fn a_server_that_says_its_tools_changed_is_listed_again_and_the_next_turn_offers_the_new_tool() {
    let (s, fake) = with_fake_model().await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("mini.log");
    let id = add(&s, mini("mini", &log, &["--grows"])).await["id"].as_i64().unwrap();
    s.patch(&format!("/api/tool-servers/{id}"), json!({ "always_allowed": ["grow", "grown"] })).await;
    let names = |tools: &Value| tools.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let (_, tools) = s.get(&format!("/api/tool-servers/{id}/tools")).await;
    assert!(!names(&tools).contains(&"grown".to_string()), "{tools}");

    let chat = s.session(None, "Growing").await;
    let events = soon("the call that grows the list", turn_calling(&s, &fake, chat, "mini__grow", json!({})).await.collect()).await;
    assert!(tool_result(&events)["content"].as_str().unwrap().contains("grew"), "{events:?}");
    maru_tests::eventually("the list follows the server's notifications/tools/list_changed", || async {
        names(&s.get("/api/tool-servers").await.1[0]["tools"]).contains(&"grown".to_string())
    })
    .await;
    assert_eq!(
        logged(&log).iter().filter(|l| *l == "tools/list").count(),
        2,
        "listed once at the start, once when told: {:?}",
        logged(&log)
    );

    // A new chat: in the same one, the request sent ahead (the last turn's tools) would be
    // dropped for the new list and take a scripted reply with it.
    let chat = s.session(None, "Grown").await;
    let events = soon("a turn with the new tool", turn_calling(&s, &fake, chat, "mini__grown", json!({})).await.collect()).await;
    let offered = fake.chat_requests().last().unwrap().body["tools"].to_string();
    assert!(offered.contains("mini__grown"), "the next turn offers the new tool without a restart: {offered}");
    assert_eq!(tool_result(&events)["is_error"], false, "and it is called at its server: {events:?}");
}

#[tokio::test]
async fn removing_a_server_ends_its_running_call_at_once() {
    let (s, fake) = with_fake_model().await;
    assert_eq!(s.patch("/api/settings", json!({ "tool_call_timeout_secs": 600 })).await.0, 200);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hung.log");
    let id = add(&s, mini("hung", &log, &["--hang"])).await["id"].as_i64().unwrap();
    s.patch(&format!("/api/tool-servers/{id}"), json!({ "always_allowed": ["hang"] })).await;
    let chat = s.session(None, "").await;
    let mut turn = turn_calling(&s, &fake, chat, "hung__hang", json!({})).await;
    let mut seen = vec![];
    until(&mut turn, "tool_call", &mut seen).await;
    maru_tests::eventually("the server has the call", || async { logged(&log).contains(&"call hang".to_string()) }).await;

    let (status, v) = soon("removing a server with a call running", s.delete(&format!("/api/tool-servers/{id}"))).await;
    assert_eq!(status, 200, "{v}");
    seen.extend(soon("the running call ending (its limit is 600 s)", turn.collect()).await);
    let result = tool_result(&seen);
    assert_eq!(result["is_error"], true, "{result}");
    assert!(result["content"].as_str().unwrap().contains("was removed"), "the model is told why the call ended: {result}");
    assert!(seen.iter().any(|e| e.name == "done"), "the turn goes on: {seen:?}");
    maru_tests::eventually("the removed server's process ends", || async { pids(&log.display().to_string()).is_empty() }).await;
}

#[tokio::test]
async fn removing_a_server_that_is_still_starting_answers_at_once() {
    let (s, _fake) = with_fake_model().await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("slow.log");
    let id = add(&s, mini("slow", &log, &["--hang-start"])).await["id"].as_i64().unwrap();
    let tools = format!("/api/tool-servers/{id}/tools");
    let listing = s.get(&tools);
    let removing = async {
        maru_tests::eventually("the server is started and waits to be answered", || async {
            logged(&log).contains(&"initialize".to_string())
        })
        .await;
        soon("removing a server that is starting", s.delete(&format!("/api/tool-servers/{id}"))).await
    };
    let (listed, (status, v)) = soon("asking the removed server for its tools ending", async { tokio::join!(listing, removing) }).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        (listed.0.as_u16(), listed.1["code"].as_str()),
        (404, Some("not_found")),
        "the tools of a server removed while it started are those of a server that does not exist: {}",
        listed.1
    );
    maru_tests::eventually("its process ends", || async { pids(&log.display().to_string()).is_empty() }).await;
    let (_, listed) = s.get("/api/tool-servers").await;
    assert_eq!(listed, json!([]), "and it is gone from the list");
}

#[tokio::test]
async fn two_tools_a_request_would_name_alike_are_offered_apart_and_each_call_reaches_its_own() {
    let (s, fake) = with_fake_model().await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("clash.log");
    let id = add(&s, mini("mini", &log, &["--clash"])).await["id"].as_i64().unwrap();
    s.patch(&format!("/api/tool-servers/{id}"), json!({ "always_allowed": ["x y", "x_y"] })).await;
    let chat = s.session(None, "").await;
    fake.push(Reply::text(["hello"]));
    s.say(chat, "hi").await;
    let offered: Vec<String> = fake.chat_requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .filter(|n| n.starts_with("mini__x"))
        .collect();
    assert_eq!(offered.len(), 2, "both tools are offered: {offered:?}");
    assert_ne!(offered[0], offered[1], "under two names, or the model could reach only one of them");
    assert!(offered.contains(&"mini__x_y".to_string()), "the tool whose name needed no change keeps it: {offered:?}");

    for name in &offered {
        let events = turn_calling(&s, &fake, chat, name, json!({})).await.collect().await;
        let want = if name == "mini__x_y" { "called x_y" } else { "called x y" };
        assert_eq!(tool_result(&events)["content"], want, "{name} reaches its own tool: {events:?}");
    }
    let fresh = fake.chat_requests().last().unwrap().body["tools"].to_string();
    assert!(offered.iter().all(|n| fresh.contains(&format!("\"{n}\""))), "the names stay the same from turn to turn: {fresh}");
}

#[tokio::test]
async fn a_server_of_hundreds_of_tools_is_searched_not_sent_and_a_found_tool_is_called() {
    let (s, fake) = with_fake_model().await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("many.log");
    let id = add(&s, mini("big", &log, &["--many", "300"])).await["id"].as_i64().unwrap();
    s.patch(&format!("/api/tool-servers/{id}"), json!({ "always_allowed": ["weather_report"] })).await;
    let chat = s.session(None, "").await;

    // The model searches, then calls what it found, then answers.
    fake.push(Reply::tool_call("search_tools", json!({ "query": "weather forecast" }).to_string()));
    fake.push(Reply::tool_call("big__weather_report", json!({ "city": "Busan" }).to_string()));
    fake.push(Reply::text(["Sunny."]));
    let events = s.say(chat, "what is the weather in Busan?").await;

    let requests = fake.chat_requests();
    let tools = |i: usize| requests[i].body["tools"].as_array().unwrap().clone();
    let first = tools(0);
    let bytes = serde_json::to_string(&first).unwrap().len();
    assert!(bytes < 60_000, "301 tools' schemas do not ride along with every request: {bytes} bytes");
    let names = |t: &[Value]| t.iter().map(|t| t["function"]["name"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    assert!(names(&first).contains(&"search_tools".to_string()), "the model is given a way to find the others: {:?}", names(&first));
    assert!(!names(&first).iter().any(|n| n.starts_with("big__")), "no server tool is listed before it was used or found");
    assert!(names(&tools(1)).contains(&"big__weather_report".to_string()), "a tool found is listed from the next request on");
    let results: Vec<&Event> = events.iter().filter(|e| e.name == "tool_result").collect();
    assert!(results[0].data["content"].as_str().unwrap().contains("big__weather_report"), "the search names the tool: {:?}", results[0]);
    assert_eq!(results[1].data["content"], "Sunny in Busan", "the found tool is called at its server: {:?}", results[1]);
    assert!(logged(&log).contains(&"call weather_report".to_string()), "the server ran the call");
}
