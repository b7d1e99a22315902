//! Maru as an MCP server for other apps: `/mcp` on `maru serve` (Streamable HTTP) behind the token,
//! Host and Origin checks, the shared tools as Settings says (nothing by default), review mode
//! turning another app's `remember` into a proposal, bad input refused with what to do, and every
//! call recorded. In the tool-server tier (npm packages in `tests/mcp`): `maru mcp` driven over
//! stdio by the official client SDK (`@modelcontextprotocol/sdk`), and the official conformance
//! suite (`@modelcontextprotocol/conformance`) against `/mcp`.

use std::path::PathBuf;
use std::time::Duration;

use maru_tests::server::{with_fake_model, TestServer};
use serde_json::{json, Map, Value};

const ACCEPT: &str = "application/json, text/event-stream";

fn args(v: Value) -> Option<Map<String, Value>> {
    v.as_object().cloned()
}

async fn share(s: &TestServer, sharing: Value) {
    let (status, v) = s.patch("/api/settings", json!({ "sharing": sharing })).await;
    assert_eq!(status, 200, "sharing is a setting like any other: {v}");
}

/// One JSON-RPC exchange with `/mcp`: the status, the session id it gave, and the answer (read
/// from the event stream when it answers with one).
struct Answer {
    status: u16,
    session: Option<String>,
    body: Value,
}

async fn mcp(s: &TestServer, message: Value, session: Option<&str>, extra: &[(&str, String)]) -> Answer {
    let mut req = s.http.post(s.url("/mcp")).bearer_auth(&s.token).header("accept", ACCEPT).json(&message);
    if let Some(id) = session {
        req = req.header("mcp-session-id", id).header("mcp-protocol-version", "2025-06-18");
    }
    for (k, v) in extra {
        req = req.header(*k, v);
    }
    let res = req.send().await.expect("the request reaches Maru");
    let status = res.status().as_u16();
    let session = res.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_string);
    let sse = res.headers().get("content-type").is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
    let body = match sse {
        true => read_event(res).await,
        false => serde_json::from_str(&res.text().await.unwrap_or_default()).unwrap_or(Value::Null),
    };
    Answer { status, session, body }
}

/// The first event of a stream that answers a request (it has an `id`).
async fn read_event(mut res: reqwest::Response) -> Value {
    let mut text = String::new();
    let read = async {
        while let Some(chunk) = res.chunk().await.expect("the stream reads") {
            text.push_str(&String::from_utf8_lossy(&chunk));
            for line in text.lines() {
                if let Some(v) = line.strip_prefix("data:").and_then(|d| serde_json::from_str::<Value>(d.trim()).ok()) {
                    if v.get("id").is_some() {
                        return v;
                    }
                }
            }
        }
        Value::Null
    };
    tokio::time::timeout(Duration::from_secs(10), read).await.expect("the answer comes within 10 s")
}

fn initialize(client: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": client, "version": "1.0" } }
    })
}

/// Connects as `client`: initialize, then the notification that it is ready. The session id.
async fn connect(s: &TestServer, client: &str) -> String {
    let init = mcp(s, initialize(client), None, &[]).await;
    assert_eq!(init.status, 200, "an app with the token connects: {}", init.body);
    let session = init.session.expect("a session for the app, so its name goes with its calls");
    let ready = mcp(s, json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }), Some(&session), &[]).await;
    assert!(ready.status < 300, "the ready notification is accepted: {}", ready.status);
    session
}

async fn tool_names(s: &TestServer, session: &str, id: i64) -> Vec<String> {
    let list = mcp(s, json!({ "jsonrpc": "2.0", "id": id, "method": "tools/list" }), Some(session), &[]).await;
    assert_eq!(list.status, 200, "{}", list.body);
    let tools = list.body["result"]["tools"].as_array().unwrap_or_else(|| panic!("a tool list: {}", list.body)).clone();
    tools.iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn the_mcp_endpoint_needs_the_token_and_refuses_another_host_or_site() {
    let s = TestServer::start().await;
    let no_token = s.http.post(s.url("/mcp")).header("accept", ACCEPT).json(&initialize("x")).send().await.unwrap();
    assert_eq!(no_token.status(), 401, "without the token no app reaches the user's memory or chats");
    let body: Value = no_token.json().await.unwrap();
    assert_eq!(body["code"], "unauthorized", "in Maru's error shape, with a code the UI words in both languages: {body}");

    let evil = mcp(&s, initialize("x"), None, &[("host", "evil.example.com".into())]).await;
    assert_eq!(evil.status, 400, "a rebound DNS name is refused even with the token: {}", evil.body);
    assert_eq!(evil.body["code"], "bad_host");

    let other_site = mcp(&s, initialize("x"), None, &[("origin", "http://evil.example.com".into())]).await;
    assert_eq!(other_site.status, 403, "a page of another site is refused by its Origin: {}", other_site.body);
    assert_eq!(other_site.body["code"], "bad_origin");
    let null_origin = mcp(&s, initialize("x"), None, &[("origin", "null".into())]).await;
    assert_eq!(null_origin.status, 403, "so is a sandboxed page's `null` origin");

    let own = s.base.clone();
    let ok = mcp(&s, initialize("x"), None, &[("origin", own)]).await;
    assert_eq!(ok.status, 200, "Maru's own page may: {}", ok.body);
    assert_eq!(ok.body["result"]["serverInfo"]["name"], "maru", "{}", ok.body);
}

#[tokio::test]
async fn a_huge_or_malformed_request_to_mcp_is_refused_and_the_server_goes_on() {
    let s = TestServer::start().await;
    share(&s, json!({ "chats": true })).await;
    let session = connect(&s, "fuzzer").await;
    let post = |body: Vec<u8>| {
        s.http
            .post(s.url("/mcp"))
            .bearer_auth(&s.token)
            .header("accept", ACCEPT)
            .header("content-type", "application/json")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18")
            .body(body)
            .send()
    };
    let huge = json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": { "name": "search_chats", "arguments": { "query": "x".repeat(20 << 20) } } });
    let res = post(huge.to_string().into_bytes()).await.expect("a 20 MB request is answered, not hung up on");
    assert_eq!(res.status(), 413, "a request far past any real call is refused as too large");
    let e: Value = res.json().await.unwrap_or(Value::Null);
    assert_eq!(e["code"], "body_too_large", "in Maru's error shape, which the UI words in both languages: {e}");

    let res = post(b"{ not json".to_vec()).await.unwrap();
    let status = res.status().as_u16();
    let text = res.text().await.unwrap_or_default();
    assert!((400..500).contains(&status) || text.contains("-32700"), "malformed JSON is refused as such ({status}): {text}");

    let many: Map<String, Value> =
        (0..1_000).map(|i| (format!("field{i}"), json!("x"))).chain([("query".to_string(), json!("hello"))]).collect();
    let call = json!({ "jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": { "name": "search_chats", "arguments": many } });
    let answer = mcp(&s, call, Some(&session), &[]).await;
    assert_eq!(answer.body["result"]["isError"], false, "a thousand unknown arguments are ignored: {}", answer.body);
    assert_eq!(tool_names(&s, &session, 11).await, ["search_chats"], "and the session goes on");
}

#[tokio::test]
async fn nothing_is_shared_until_settings_say_so_and_each_call_is_recorded() {
    let (s, fake) = with_fake_model().await;
    let chat = s.session(None, "Launch plans").await;
    fake.push(maru_tests::fake_openai::Reply::text(["The launch is on Friday at noon."]));
    s.say(chat, "when is the launch?").await;

    let session = connect(&s, "Claude Desktop").await;
    let init = mcp(&s, initialize("Claude Desktop"), None, &[]).await;
    let instructions = init.body["result"]["instructions"].as_str().unwrap_or_default().to_string();
    assert!(instructions.contains("Share with other apps"), "an app that gets no tools is told where the user shares them: {instructions}");
    assert!(tool_names(&s, &session, 2).await.is_empty(), "off by default: no tool is listed");
    let ping = mcp(&s, json!({ "jsonrpc": "2.0", "id": 3, "method": "ping" }), Some(&session), &[]).await;
    assert_eq!(ping.body["result"], json!({}), "a server that shares nothing still answers ping: {}", ping.body);

    let call = json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": { "name": "search_chats", "arguments": { "query": "Friday" } } });
    let refused = mcp(&s, call.clone(), Some(&session), &[]).await;
    assert_eq!(refused.body["result"]["isError"], true, "a tool not shared is not run: {}", refused.body);
    let text = refused.body["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("Settings") && !text.contains("Friday"), "it says where to share it, and shows nothing of the chats: {text}");

    share(&s, json!({ "chats": true })).await;
    assert_eq!(tool_names(&s, &session, 5).await, ["search_chats"], "listed again, the app sees what the user just shared");
    let found = mcp(&s, call, Some(&session), &[]).await;
    let text = found.body["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("Launch plans") && text.contains("Friday"), "the chat is found, with its title and what matched: {text}");

    let (_, calls) = s.get("/api/sharing/calls").await;
    let calls = calls.as_array().unwrap();
    assert_eq!(calls.len(), 2, "both calls are recorded, the refused one too: {calls:?}");
    assert_eq!(calls[0]["client"], "Claude Desktop", "by the name the app gave when it connected");
    assert_eq!(
        (calls[0]["tool"].as_str(), calls[0]["summary"].as_str(), calls[0]["ok"].as_bool()),
        (Some("search_chats"), Some("Friday"), Some(true))
    );
    assert_eq!(calls[1]["ok"], false, "the refused call shows as refused");
}

#[tokio::test]
async fn an_app_is_told_when_the_user_changes_what_is_shared() {
    let s = TestServer::start().await;
    let session = connect(&s, "Claude Code").await;
    let init = mcp(&s, initialize("Claude Code"), None, &[]).await;
    assert_eq!(init.body["result"]["capabilities"]["tools"]["listChanged"], true, "Maru says it tells of changes: {}", init.body);
    // The app's stream for what the server sends of itself.
    let mut stream = s
        .http
        .get(s.url("/mcp"))
        .bearer_auth(&s.token)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200, "the app listens for the server's notifications");
    share(&s, json!({ "chats": true })).await;
    let mut seen = String::new();
    let told = tokio::time::timeout(Duration::from_secs(15), async {
        while let Ok(Some(chunk)) = stream.chunk().await {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if seen.contains("notifications/tools/list_changed") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(told, Ok(true), "the app hears that the tools changed, and lists them again without a restart: {seen}");
    assert_eq!(tool_names(&s, &session, 7).await, ["search_chats"]);
}

#[tokio::test]
async fn review_mode_makes_another_apps_fact_a_proposal_and_auto_keeps_it() {
    let s = TestServer::start().await;
    share(&s, json!({ "memory_read": true, "memory_write": true })).await;
    let shared = s.app.shared();
    let names: Vec<String> = shared.list().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["search_memory", "remember", "update_memory", "forget"], "memory read and write, as shared");

    let said = shared.call("claude-code", "remember", args(json!({ "fact": "The user prefers tea over coffee." }))).await.unwrap();
    assert!(!said.failed && said.text.contains("Proposed"), "in review mode (the default) the fact is proposed: {}", said.text);
    let (_, pending) = s.get("/api/memories?status=pending").await;
    assert_eq!(pending[0]["content"], "The user prefers tea over coffee.", "it waits in the memory panel: {pending}");
    let (_, kept) = s.get("/api/memories").await;
    assert_eq!(kept, json!([]), "and no model sees it until the user accepts it");

    let id = pending[0]["id"].as_i64().unwrap();
    s.post(&format!("/api/memories/{id}/accept"), json!({})).await;
    let change = shared.call("claude-code", "update_memory", args(json!({ "id": id, "fact": "The user prefers coffee." }))).await.unwrap();
    let (_, kept) = s.get("/api/memories").await;
    assert_eq!(kept[0]["content"], "The user prefers tea over coffee.", "a reviewed fact is not rewritten by another app: {}", change.text);
    let found = shared.call("claude-code", "search_memory", args(json!({ "query": "tea" }))).await.unwrap();
    assert!(found.text.contains(&format!("#{id}")) && found.text.contains("tea"), "reading memory finds it with its id: {}", found.text);

    s.patch("/api/settings", json!({ "memory_mode": "auto" })).await;
    shared.call("claude-code", "remember", args(json!({ "fact": "The user's cat is called Nabi." }))).await.unwrap();
    let (_, kept) = s.get("/api/memories").await;
    let nabi = kept.as_array().unwrap().iter().find(|m| m["content"] == "The user's cat is called Nabi.").cloned();
    let nabi = nabi.unwrap_or_else(|| panic!("in automatic mode the fact is kept at once: {kept}"));
    shared.call("claude-code", "forget", args(json!({ "id": nabi["id"] }))).await.unwrap();
    let (_, kept) = s.get("/api/memories").await;
    assert!(!kept.to_string().contains("Nabi"), "and forgotten when asked: {kept}");

    s.patch("/api/settings", json!({ "memory_mode": "off" })).await;
    assert!(shared.list().await.unwrap().is_empty(), "with memory off there is nothing to search or keep, shared or not");
    let off = shared.call("claude-code", "remember", args(json!({ "fact": "x" }))).await.unwrap();
    assert!(off.failed, "and a call is refused: {}", off.text);
}

#[tokio::test]
async fn bad_input_to_a_shared_tool_is_refused_with_what_to_do() {
    let s = TestServer::start().await;
    let thesis = s.project("Thesis").await;
    let notes = s.project("Notes").await;
    share(&s, json!({ "chats": true, "projects": [thesis, notes] })).await;
    let shared = s.app.shared();
    let cases = [
        ("search_chats", json!({ "query": "x".repeat(2_001) }), "at most 2000"),
        ("search_chats", json!({}), "`query` is required"),
        ("search_chats", json!({ "query": "  ...  " }), "no words"),
        ("search_project_files", json!({ "query": "results" }), "Name the project"),
        ("search_project_files", json!({ "query": "results", "project": "Secret" }), "No shared project is named \"Secret\""),
        ("remember", json!({ "fact": "x" }), "does not share remember"),
        ("drop_tables", json!({}), "does not share drop_tables"),
    ];
    for (tool, arguments, says) in cases {
        let reply = shared.call("fuzzer", tool, args(arguments.clone())).await.expect("bad input is a refusal, not a failure of Maru");
        assert!(reply.failed, "{tool} {arguments} is refused");
        assert!(reply.text.contains(says), "{tool}: the refusal says what to do ({says}): {}", reply.text);
    }
    let long_name = shared.call("fuzzer", &"n".repeat(1 << 20), None).await.unwrap();
    assert!(long_name.failed && long_name.text.len() < 1_000, "a megabyte-long tool name is refused in a line: {}", long_name.text.len());
    let names: Vec<String> = shared.list().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["search_chats", "search_project_files"], "and the server goes on as before");
    let (_, calls) = s.get("/api/sharing/calls").await;
    assert!(calls.as_array().unwrap().iter().all(|c| c["ok"] == false && c["summary"].as_str().unwrap().chars().count() <= 201), "{calls}");

    s.delete(&format!("/api/projects/{thesis}")).await;
    s.delete(&format!("/api/projects/{notes}")).await;
    let names: Vec<String> = shared.list().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["search_chats"], "a deleted project's files are no longer offered, nor a tool with no project to search");
    let (status, e) = s.patch("/api/settings", json!({ "theme": "dark" })).await;
    assert_eq!(status, 200, "the deleted projects still named in the setting do not block saving another setting: {e}");
    let (status, e) = s.patch("/api/settings", json!({ "sharing": { "chats": true, "projects": [thesis, notes] } })).await;
    assert_eq!((status.as_u16(), &e["sharing"]["projects"]), (200, &json!([])), "nor a list the UI sends back with them still in");

    let thesis = s.project("Thesis").await;
    let (status, e) = s.patch("/api/settings", json!({ "sharing": { "projects": [thesis, thesis] } })).await;
    assert_eq!((status.as_u16(), e["code"].as_str()), (400, Some("invalid_sharing")), "a project named twice is refused: {e}");
    let (status, e) = s.patch("/api/settings", json!({ "sharing": { "projects": [999_999] } })).await;
    assert_eq!(status, 404, "a project that does not exist is refused: {e}");
    let (status, e) = s.patch("/api/settings", json!({ "sharing": { "projects": (0..1_001).collect::<Vec<i64>>() } })).await;
    assert_eq!(
        (status.as_u16(), e["code"].as_str()),
        (400, Some("invalid_sharing")),
        "a list of a thousand projects and more is refused: {e}"
    );
}

// ---- the tool-server tier: the official SDK and conformance suite from npm

fn tests_mcp() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mcp");
    assert!(dir.join("node_modules/@modelcontextprotocol/sdk").exists(), "install the MCP test packages first: npm ci --prefix tests/mcp");
    dir
}

/// The built `maru` (cargo leaves it in the target folder), or `MARU_BIN`.
fn maru_bin() -> String {
    let candidates = [
        std::env::var("MARU_BIN").ok(),
        std::env::var("CARGO_TARGET_DIR").ok().map(|t| format!("{t}/debug/maru")),
        Some(format!("{}/../target/debug/maru", env!("CARGO_MANIFEST_DIR"))),
    ];
    candidates.into_iter().flatten().find(|p| std::path::Path::new(p).exists()).expect(
        "`maru mcp` is tested on the built binary: build it first with `cargo build -p maru --no-default-features --bin maru` (or set MARU_BIN)",
    )
}

/// Runs `drive_maru.mjs`: the SDK's client starts `maru mcp` on `data` and makes `calls`.
fn drive(data: &std::path::Path, calls: Value) -> Value {
    let dir = tests_mcp();
    let out = std::process::Command::new("node")
        .current_dir(&dir)
        .arg("drive_maru.mjs")
        .arg(maru_bin())
        .arg(data)
        .arg(calls.to_string())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the SDK's client worked with `maru mcp`: {stdout} {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

async fn upload_to_project(s: &TestServer, project: i64, name: &str, text: &str) {
    let (status, file) = s.upload("project_id", project, name, text.as_bytes().to_vec()).await;
    assert_eq!(status, 200, "{file}");
    for _ in 0..1000 {
        let (_, seen) = s.get(&format!("/api/attachments/{}", file["id"])).await;
        if seen["status"] != "indexing" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{name} was still indexing after 20 s");
}

#[tokio::test]
#[ignore = "needs the npm MCP packages: run through make test"]
async fn maru_mcp_over_stdio_serves_the_official_sdk_beside_an_open_maru() {
    let (s, fake) = with_fake_model().await;
    let chat = s.session(None, "Launch plans").await;
    fake.push(maru_tests::fake_openai::Reply::text(["The launch is on Friday at noon."]));
    s.say(chat, "when is the launch?").await;
    let thesis = s.project("Thesis").await;
    upload_to_project(&s, thesis, "results.md", "# Results\n\nThe enzyme doubled its yield at 37 degrees.\n").await;
    let (_, fact) = s.post("/api/memories", json!({ "content": "The user writes a thesis on enzymes." })).await;

    // Maru is open on this folder (`s` holds its lock): `maru mcp` runs beside it.
    let off = drive(s.data.path(), json!([{ "name": "search_chats", "arguments": { "query": "launch" } }]));
    assert_eq!(off["server"]["name"], "maru", "{off}");
    assert_eq!(off["ping"], json!({}), "ping is answered with nothing shared");
    assert_eq!(off["tools"], json!([]), "nothing is shared by default: {off}");
    assert_eq!(off["calls"][0]["isError"], true, "a call of a tool not shared is refused: {off}");

    share(&s, json!({ "memory_read": true, "memory_write": true, "chats": true, "projects": [thesis] })).await;
    let calls = json!([
        { "name": "search_memory", "arguments": { "query": "thesis" } },
        { "name": "remember", "arguments": { "fact": "The user's lab works at 37 degrees." } },
        { "name": "update_memory", "arguments": { "id": fact["id"], "fact": "The user writes a thesis on proteins." } },
        { "name": "forget", "arguments": { "id": fact["id"] } },
        { "name": "search_chats", "arguments": { "query": "Friday noon" } },
        { "name": "search_project_files", "arguments": { "query": "enzyme yield" } },
    ]);
    let on = drive(s.data.path(), calls);
    let names: Vec<&str> = on["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["search_memory", "remember", "update_memory", "forget", "search_chats", "search_project_files"], "{on}");
    let search = on["tools"].as_array().unwrap().iter().find(|t| t["name"] == "search_memory").unwrap();
    assert_eq!(search["annotations"]["readOnlyHint"], true, "reading tools say so, so an app may run them without asking");
    let text = |i: usize| on["calls"][i]["text"].as_str().unwrap_or_default().to_string();
    assert!(on["calls"].as_array().unwrap().iter().all(|c| c["isError"] == false), "every shared tool answers: {on}");
    assert!(text(0).contains("thesis on enzymes"), "search_memory: {}", text(0));
    assert!(text(1).contains("Proposed"), "remember, in review mode: a proposal: {}", text(1));
    assert!(text(2).contains("reviews changes"), "update_memory, in review mode: left to the user: {}", text(2));
    assert!(text(4).contains("Launch plans") && text(4).contains("Friday"), "search_chats: {}", text(4));
    assert!(text(5).contains("results.md") && text(5).contains("doubled its yield"), "search_project_files: {}", text(5));

    let (_, pending) = s.get("/api/memories?status=pending").await;
    assert_eq!(pending[0]["content"], "The user's lab works at 37 degrees.", "the proposal waits for the user in the open Maru: {pending}");
    let (_, log) = s.get("/api/sharing/calls?limit=20").await;
    let log = log.as_array().unwrap();
    assert_eq!(log.len(), 7, "every call is recorded, the refused one too: {log:?}");
    assert!(log.iter().all(|c| c["client"] == "maru-it-client"), "by the name the SDK's client gave: {log:?}");
}

/// Forwards requests to Maru with its token, as if the client had sent them to Maru itself: the
/// conformance suite sends no token, and `/mcp` is behind the same one as `/api`. The proxy's own
/// address in Host and Origin becomes Maru's; any other Host or Origin (a rebinding attacker's)
/// goes on as it came.
async fn token_proxy(s: &TestServer) -> String {
    use axum::body::Body;
    use axum::extract::Request;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (base, token) = (s.base.clone(), s.token.clone());
    let (proxy_authority, maru_authority) = (addr.to_string(), base.trim_start_matches("http://").to_string());
    let http = reqwest::Client::new();
    let forward = move |req: Request| {
        let (base, token, http) = (base.clone(), token.clone(), http.clone());
        let (from, to) = (proxy_authority.clone(), maru_authority.clone());
        async move {
            let (parts, body) = req.into_parts();
            let body = axum::body::to_bytes(body, 1 << 20).await.unwrap_or_default();
            let mut out = http.request(parts.method, format!("{base}{}", parts.uri)).bearer_auth(token).body(body);
            for (k, v) in &parts.headers {
                if !matches!(k.as_str(), "content-length" | "connection" | "transfer-encoding") {
                    out = out.header(k, v.to_str().unwrap_or_default().replace(&from, &to));
                }
            }
            let res = out.send().await.expect("Maru answers the proxy");
            let mut back = axum::http::Response::builder().status(res.status().as_u16());
            for (k, v) in res.headers() {
                back = back.header(k.as_str(), v.as_bytes());
            }
            back.body(Body::from_stream(res.bytes_stream())).unwrap()
        }
    };
    tokio::spawn(async move { axum::serve(listener, axum::Router::new().fallback(forward)).await });
    format!("http://{addr}/mcp")
}

/// The scenario's checks: (passed, failed) and what failed.
fn conformance(url: &str, scenario: &str) -> (usize, usize, String) {
    let dir = tests_mcp();
    let bin = dir.join("node_modules/.bin");
    // The suite needs a newer Node than many machines have: the `node` package installs one.
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let out = std::process::Command::new(bin.join("conformance"))
        .args(["server", "--url", url, "--scenario", scenario, "--verbose"])
        .env("PATH", path)
        .current_dir(&dir)
        .output()
        .expect("the conformance suite runs");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let passed = stdout.matches("\"status\": \"SUCCESS\"").count();
    let failed = stdout.matches("\"status\": \"FAILURE\"").count();
    (passed, failed, stdout + &String::from_utf8_lossy(&out.stderr))
}

/// The suite's server scenarios, as it lists them.
fn scenarios() -> Vec<String> {
    let dir = tests_mcp();
    let bin = dir.join("node_modules/.bin");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let out = std::process::Command::new(bin.join("conformance")).args(["list", "--server"]).env("PATH", path).output().unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    listed
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
        .collect()
}

/// Every server scenario of the suite is run and its result printed (the suite's other scenarios
/// test features Maru does not offer: prompts, resources, sampling, the suite's own test tools);
/// those that apply to Maru's server must pass.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the npm MCP packages: run through make test"]
async fn the_official_conformance_suite_passes_its_server_scenarios_on_mcp() {
    const APPLY: [&str; 4] = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];
    let s = TestServer::start().await;
    share(&s, json!({ "memory_read": true, "chats": true })).await;
    let url = token_proxy(&s).await;
    let all = tokio::task::spawn_blocking(scenarios).await.unwrap();
    assert!(APPLY.iter().all(|a| all.iter().any(|s| s == a)), "the suite still has the scenarios that apply: {all:?}");
    let (mut table, mut passing) = (vec![], 0);
    for scenario in all {
        let (u, sc) = (url.clone(), scenario.clone());
        let (passed, failed, out) = tokio::task::spawn_blocking(move || conformance(&u, &sc)).await.unwrap();
        passing += usize::from(failed == 0 && passed > 0);
        table.push(format!("{scenario:<32} {passed} passed, {failed} failed"));
        if APPLY.contains(&scenario.as_str()) {
            assert!(passed > 0 && failed == 0, "{scenario} passes on /mcp:\n{out}");
        }
    }
    println!("conformance on /mcp, {passing} of {} server scenarios pass:\n{}", table.len(), table.join("\n"));
}
