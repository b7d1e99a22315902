//! The user's MCP tool servers, measured as a user meets them. Prints:
//! 1. a tool call's round trip through Maru (the turn's `tool_call` event to its `tool_result`
//!    event, as the page reads them) against the same call made straight to the same running
//!    server with the MCP client, in interleaved pairs;
//! 2. Maru's start-up (open the data folder, the sidebar's first list of chats) with no tool
//!    server configured and with five: servers start when first needed, so five cost none.
//!
//! Needs the npm test servers: `npm ci --prefix tests/mcp`, then
//! `cargo bench -p maru-tests --bench tool_calls`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use maru::app::App;
use maru::tools::servers::ServerStatus;
use maru_tests::fake_openai::Reply;
use maru_tests::server::{with_fake_model, TestServer};
use serde_json::json;

const PAIRS: usize = 40;
const STARTS: usize = 15;

fn everything() -> (String, Vec<String>) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(script.exists(), "install the test tool servers first: npm ci --prefix tests/mcp");
    ("node".into(), vec![script.to_string_lossy().into_owned(), "stdio".into()])
}

#[tokio::main]
async fn main() {
    tool_call_round_trip().await;
    start_up().await;
}

async fn tool_call_round_trip() {
    let (s, fake) = with_fake_model().await;
    let (command, args) = everything();
    let (_, added) =
        s.post("/api/tool-servers", json!({ "name": "everything", "transport": "stdio", "command": command, "args": args })).await;
    let id = added["id"].clone();
    s.patch(&format!("/api/tool-servers/{id}"), json!({ "always_allowed": ["echo"] })).await;
    let (status, _) = s.get(&format!("/api/tool-servers/{id}/tools")).await;
    assert_eq!(status, 200, "the server starts");
    let launch = maru_mcp::Launch::Stdio { command, args, env: vec![] };
    let direct = maru_mcp::connect("direct", &launch, Duration::from_secs(30)).await.expect("a second copy starts for the direct calls");
    let session = s.session(None, "").await;

    let (mut through, mut straight) = (vec![], vec![]);
    for i in 0..PAIRS + 5 {
        let maru_first = i % 2 == 0;
        let mut pair = (Duration::ZERO, Duration::ZERO);
        for side in [maru_first, !maru_first] {
            if side {
                pair.0 = via_maru(&s, &fake, session).await;
            } else {
                let t0 = Instant::now();
                let out = direct.call("echo", json!({ "message": "hello" }), Duration::from_secs(10)).await.expect("echo answers");
                assert!(out.text.contains("hello"), "{out:?}");
                pair.1 = t0.elapsed();
            }
        }
        if i >= 5 {
            through.push(pair.0);
            straight.push(pair.1);
        }
    }
    direct.close().await;
    let (p_through, p_straight) = (p50(&mut through), p50(&mut straight));
    print_pct("tool call, through Maru (tool_call → tool_result event)", &mut through);
    print_pct("tool call, straight to the same server", &mut straight);
    println!("{:<58} {:.2?}", "Maru's overhead per call, p50", p_through.saturating_sub(p_straight));
    s.app.shutdown().await;
}

/// One turn whose model calls `everything__echo`: the time from the page hearing the call to the
/// page hearing its result.
async fn via_maru(s: &TestServer, fake: &maru_tests::fake_openai::FakeOpenAi, session: i64) -> Duration {
    fake.push(Reply::tool_call("everything__echo", json!({ "message": "hello" }).to_string()));
    fake.push(Reply::text(["done"]));
    let mut turn = s.turn(&format!("/api/sessions/{session}/messages"), Some(json!({ "content": "echo hello" }))).await;
    let (mut called, mut answered) = (None, None);
    while let Some(e) = turn.next().await {
        match e.name.as_str() {
            "tool_call" => called = called.or(Some(Instant::now())),
            "tool_result" => {
                assert!(e.data["content"].to_string().contains("hello"), "the server's echo: {}", e.data);
                answered = answered.or(Some(Instant::now()));
            }
            _ => {}
        }
    }
    answered.expect("a tool result") - called.expect("a tool call")
}

async fn start_up() {
    for servers in [0, 5] {
        // The data folder as the user left it: its store only, with the servers configured.
        let prepared = tempfile::tempdir().unwrap();
        let db = prepared.path().join("maru.db");
        {
            let store = maru::store::Store::open(&db).unwrap();
            let (command, args) = everything();
            for n in 0..servers {
                let new = json!({ "name": format!("everything-{n}"), "transport": "stdio", "command": command, "args": args });
                store.with(|c| maru::store::tool_servers::create(c, &serde_json::from_value(new).unwrap())).unwrap();
            }
        }
        let mut times = vec![];
        for _ in 0..STARTS {
            // A copy per start: an opened data folder stays this process's until it exits.
            let dir = tempfile::tempdir().unwrap();
            std::fs::copy(&db, dir.path().join("maru.db")).unwrap();
            let t0 = Instant::now();
            let app = App::open(dir.path()).unwrap();
            let listed = maru::api::list_sessions(&app, Default::default()).await.unwrap();
            times.push(t0.elapsed());
            assert!(listed.sessions.is_empty());
            let configured = maru::api::tool_servers::list_tool_servers(&app).await.unwrap();
            assert_eq!(configured.len(), servers);
            assert!(configured.iter().all(|t| t.status == ServerStatus::Stopped), "no tool server starts with Maru");
            app.shutdown().await;
        }
        print_pct(&format!("start-up to the first chat list, {servers} tool servers configured"), &mut times);
    }
}

fn p50(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn print_pct(what: &str, times: &mut [Duration]) {
    times.sort();
    let pct = |p: f64| times[((times.len() as f64 - 1.0) * p) as usize];
    println!("{what:<58} p50 {:>9.2?}  p99 {:>9.2?}  ({} runs)", pct(0.5), pct(0.99), times.len());
}
