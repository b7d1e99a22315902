//! Turn benchmark. Prints:
//! 1. Maru's own overhead per turn: from the API call to the request reaching the model server,
//!    with 500 memories, a 300-message history and a long project instruction (p50/p99).
//! 2. With LLAMA_SERVER and SMOLLM_GGUF set (see tests/real-server/setup.sh): time to first
//!    token through Maru divided by that of a direct request with the same messages, interleaved;
//!    in-process (the API call), and as an outside client sees it: the `token` event of the HTTP
//!    stream of `maru serve` in a process of its own, for a regenerate (the identical request) and
//!    for a new message; and the same for a byte proxy in a process of its own (what any process
//!    between client and model server costs here: the floor of Maru's share).
//! 3. The first message a second after opening Maru, against the ones after it (Maru builds the
//!    default server's HTTP client as it opens: building one takes tens of milliseconds).
//!
//! Run with `cargo bench -p maru-tests --bench turn`. `MARU_BENCH=http` (or `split`) runs only
//! that part; for the HTTP part, `MARU_BENCH_PAIRS`, `MARU_BENCH_KIND` (`regenerate`,
//! `new message` or `byte proxy`), `MARU_BENCH_LLAMA_THREADS` (llama-server's `--threads`) and
//! `MARU_BENCH_RAW` (a file each pair's two times, in ms, are appended to: the spread the
//! medians hide). `MARU_BENCH_PACED=<ms>` asks a model server that computes nothing and answers
//! after that pause instead of llama.cpp: Maru's own share, measured to a tenth of a millisecond
//! in two minutes, for telling whether a change to the turn's path helps.

use std::sync::Arc;
use std::time::{Duration, Instant};

use maru::api::{self, chat::NewTurn};
use maru::app::{App, TurnEvent, TurnStream};
use maru::store::messages::{self, NewMessage, Role, Status};
use maru::store::{memories, projects, sessions};
use maru_tests::llama::LlamaServer;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

const RUNS: usize = 200;

fn main() {
    // The serving process runs on Maru's own runtime, as `maru serve` does.
    if let Ok(dir) = std::env::var(SERVE_ENV) {
        return maru::runtime().unwrap().block_on(serve(&dir));
    }
    if let Ok(upstream) = std::env::var(PROXY_ENV) {
        return maru::runtime().unwrap().block_on(byte_proxy(&upstream));
    }
    if let Ok(pause) = std::env::var(PACED_ENV) {
        return maru::runtime().unwrap().block_on(paced_model_server(Duration::from_millis(pause.parse().expect("a pause in ms"))));
    }
    tokio::runtime::Runtime::new().unwrap().block_on(measure());
}

async fn measure() {
    if std::env::var("MARU_BENCH").as_deref() == Ok("split") {
        ttft_split().await;
        first_message().await;
        return;
    }
    if std::env::var("MARU_BENCH").as_deref() != Ok("http") {
        overhead().await;
        ttft_ratio().await;
        ttft_split().await;
        first_message().await;
    }
    ttft_http().await;
}

/// A model server that notes when each chat request has fully arrived, then answers "ok" on the
/// same kept-alive connection, as llama.cpp does; anything else (the tokenizer) gets a 404.
async fn timing_server() -> (String, mpsc::UnboundedReceiver<Instant>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let (mut sock, _) = listener.accept().await.unwrap();
            let tx = tx.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                while let Some(head) = next_request(&mut sock, &mut buf).await {
                    let res = if head.starts_with("post /v1/chat/completions") {
                        let _ = tx.send(Instant::now());
                        let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
                        format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{body}", body.len())
                    } else {
                        "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".to_string()
                    };
                    if sock.write_all(res.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (url, rx)
}

/// Reads the next request on a kept-alive connection, its body included, and gives its head in
/// lower case; `None` when the client closed. `buf` holds what was read past it.
async fn next_request(sock: &mut tokio::net::TcpStream, buf: &mut Vec<u8>) -> Option<String> {
    let mut chunk = [0u8; 65536];
    let (head_end, head) = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break (p + 4, String::from_utf8_lossy(&buf[..p]).to_lowercase());
        }
        match sock.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let len = head.lines().find_map(|l| l.strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap())).unwrap_or(0);
    while buf.len() < head_end + len {
        match sock.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    buf.drain(..head_end + len);
    Some(head)
}

/// Settings that ask the timing server at `url` and nothing else. Memory off: no tools, and no
/// extraction request after a turn to count as an arrival. A known window: no model listing
/// (the timing server would count it as a turn's request).
fn on_timing_server(url: &str) -> maru::store::settings::SettingsPatch {
    let settings = json!({ "endpoint_url": url, "model": "bench", "memory_mode": "off", "context_length": 32768 });
    serde_json::from_value(settings).unwrap()
}

async fn drain(mut rx: TurnStream) {
    while rx.recv().await.is_some() {}
}

async fn overhead() {
    let dir = tempfile::tempdir().unwrap();
    let app = App::open(dir.path()).unwrap();
    let (url, mut arrivals) = timing_server().await;
    api::update_settings(&app, on_timing_server(&url)).await.unwrap();
    let sid = app
        .store
        .with(|c| {
            let instructions: String = (0..600).map(|i| format!("Rule {i}: keep family schedules first and answers short.\n")).collect();
            let p = projects::create(c, &projects::NewProject { name: "Long project".into(), instructions })?;
            for i in 0..500 {
                memories::create(
                    c,
                    &memories::NewMemory {
                        content: format!("Fact {i}: the user prefers short answers about topic {i}."),
                        ..Default::default()
                    },
                )?;
            }
            let s = sessions::create(c, &sessions::NewSession { title: "bench".into(), project_id: Some(p.id), ..Default::default() })?;
            for i in 0..300 {
                let role = if i % 2 == 0 { Role::User } else { Role::Assistant };
                let text =
                    format!("Message {i}: a couple of sentences of ordinary chat, about the length people type and models answer with.");
                messages::insert(
                    c,
                    &NewMessage { session_id: s.id, role, content: &text, status: Status::Complete, ..Default::default() },
                )?;
            }
            Ok(s.id)
        })
        .unwrap();

    for (label, change_inputs) in [("unchanged inputs (snapshot reused)", false), ("changed inputs (prompt re-rendered)", true)] {
        let mut times = Vec::with_capacity(RUNS);
        for i in 0..RUNS + 10 {
            if change_inputs {
                api::update_settings(&app, serde_json::from_value(json!({ "custom_instructions": format!("Variant {i}") })).unwrap())
                    .await
                    .unwrap();
            }
            let last = app.store.with(|c| Ok(c.query_row("SELECT max(id) FROM messages", [], |r| r.get::<_, i64>(0))?)).unwrap();
            let t0 = Instant::now();
            let rx = api::chat::send_message(
                app.clone(),
                sid,
                NewTurn { content: "What is next on the calendar?".into(), images: vec![], skills: vec![] },
            )
            .await
            .unwrap();
            let arrived = arrivals.recv().await.unwrap();
            drain(rx).await;
            if i >= 10 {
                times.push(arrived - t0); // the first 10 warm caches
            }
            forget_turn(&app, sid, last);
        }
        print_pct(&format!("turn overhead, {label}"), &mut times);
    }
    println!("  (500 memories, 300-message history, 34,000-char project instruction)");

    // A long chat: 2,000 messages, the first 1,950 replaced by a summary, planned against a window.
    let long = app
        .store
        .with(|c| {
            let s = sessions::create(c, &sessions::NewSession { title: "long".into(), project_id: None, ..Default::default() })?;
            let mut through = 0;
            for i in 0..2000 {
                let role = if i % 2 == 0 { Role::User } else { Role::Assistant };
                let text =
                    format!("Message {i}: a couple of sentences of ordinary chat, about the length people type and models answer with.");
                let m = messages::insert(
                    c,
                    &NewMessage { session_id: s.id, role, content: &text, status: Status::Complete, ..Default::default() },
                )?;
                if i == 1949 {
                    through = m.id;
                }
            }
            maru::store::summaries::add(c, s.id, through, 975, &"The user and the assistant planned the family calendar. ".repeat(20))?;
            Ok(s.id)
        })
        .unwrap();
    let mut times = Vec::with_capacity(RUNS);
    for i in 0..RUNS + 10 {
        let last = app.store.with(|c| Ok(c.query_row("SELECT max(id) FROM messages", [], |r| r.get::<_, i64>(0))?)).unwrap();
        let t0 = Instant::now();
        let rx = api::chat::send_message(app.clone(), long, NewTurn { content: "And next week?".into(), images: vec![], skills: vec![] })
            .await
            .unwrap();
        let arrived = arrivals.recv().await.unwrap();
        drain(rx).await;
        if i >= 10 {
            times.push(arrived - t0);
        }
        forget_turn(&app, long, last);
    }
    print_pct("turn overhead, 2,000 messages with a summary", &mut times);

    // Section ⑤ with 1,000 facts: gathering, budgets and rendering the whole prompt.
    app.store
        .with(|c| {
            for i in 500..1000 {
                memories::create(
                    c,
                    &memories::NewMemory {
                        content: format!("Fact {i}: the user prefers short answers about topic {i}."),
                        ..Default::default()
                    },
                )?;
            }
            Ok(())
        })
        .unwrap();
    let today = chrono::Local::now().date_naive();
    let mut times = vec![];
    for _ in 0..200 {
        let t0 = Instant::now();
        app.store.read_now(|c| maru::prompt::render_current(c, &app.templates, sid, today, &maru::prompt::Budgets::default())).unwrap();
        times.push(t0.elapsed());
    }
    print_pct("rendering the prompt with 1,000 facts in ⑤", &mut times);
}

async fn ttft_ratio() {
    let Some(llama) = LlamaServer::start().await else {
        println!("time-to-first-token ratio: skipped (set LLAMA_SERVER and SMOLLM_GGUF)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let app: Arc<App> = App::open(dir.path()).unwrap();
    api::update_settings(
        &app,
        serde_json::from_value(json!({
            "endpoint_url": llama.base_url, "temperature": 0.0, "max_tokens": 8, "custom_instructions": "Answer in one short sentence.",
            // No extraction request after each turn to compete with the direct one.
            "memory_mode": "off"
        }))
        .unwrap(),
    )
    .await
    .unwrap();
    let p = api::create_project(&app, projects::NewProject { name: "Family".into(), instructions: "Family schedules come first.".into() })
        .await
        .unwrap();
    for i in 0..20 {
        api::create_memory(&app, memories::NewMemory { content: format!("Fact {i} about the user."), ..Default::default() }).await.unwrap();
    }
    let sid = api::create_session(&app, sessions::NewSession { title: "ttft".into(), project_id: Some(p.id), ..Default::default() })
        .await
        .unwrap()
        .id;
    drain(
        api::chat::send_message(
            app.clone(),
            sid,
            NewTurn { content: "What is the capital of France?".into(), images: vec![], skills: vec![] },
        )
        .await
        .unwrap(),
    )
    .await;

    // A fresh connection per request: llama-server may close idle ones, which a pool would reuse.
    let http = reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap();
    let model = app.resolve_model(&app.llm_client(&on_server(&llama.base_url)), &Default::default()).await.unwrap();
    let mut ratios = vec![];
    let (mut via, mut direct) = (vec![], vec![]);
    for i in 0..PAIRS + 1 {
        // Alternate which goes first, so neither always meets a just-warmed server.
        let (a, b) = if i % 2 == 0 {
            let a = ttft_through_maru(&app, sid).await;
            (a, ttft_direct(&app, &http, &llama.base_url, &model, sid).await)
        } else {
            let b = ttft_direct(&app, &http, &llama.base_url, &model, sid).await;
            (ttft_through_maru(&app, sid).await, b)
        };
        if i > 0 {
            via.push(a);
            direct.push(b);
            ratios.push(a.as_secs_f64() / b.as_secs_f64());
        }
    }
    // The first pair only warmed the server's cache.
    ratios.sort_by(|a, b| a.partial_cmp(b).unwrap());
    via.sort();
    direct.sort();
    // The tail is what a user notices now and then: p90 and p99 of each side beside the median.
    let at = |v: &[Duration], p: f64| v[((v.len() as f64 * p) as usize).min(v.len() - 1)];
    for (name, p) in [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)] {
        let (m, d) = (at(&via, p), at(&direct, p));
        println!(
            "time to first token, real llama.cpp + SmolLM2, {name}: through Maru {m:.1?}, direct {d:.1?}, ratio {:.3} ({} interleaved pairs)",
            m.as_secs_f64() / d.as_secs_f64(),
            via.len()
        );
    }
    println!("  ratio of each pair: p50 {:.2} (min {:.2}, max {:.2})", ratios[ratios.len() / 2], ratios[0], ratios[ratios.len() - 1]);
}

const PAIRS: usize = 60;

/// Regenerate sends exactly the same request each time: from the API call to the first token.
async fn ttft_through_maru(app: &Arc<App>, sid: i64) -> Duration {
    let t0 = Instant::now();
    let mut rx = api::chat::regenerate(app.clone(), sid).await.unwrap();
    let mut ttft = None;
    while let Some(ev) = rx.recv().await {
        if ttft.is_none() && matches!(ev, TurnEvent::Token { .. }) {
            ttft = Some(t0.elapsed());
        }
    }
    ttft.expect("the model answered")
}

/// The very same messages Maru sends, straight to the server.
async fn ttft_direct(app: &Arc<App>, http: &reqwest::Client, base: &str, model: &str, sid: i64) -> Duration {
    let system = app.store.with(|c| Ok(maru::store::snapshots::get(c, sid)?.unwrap().prompt)).unwrap();
    let mut history = app.store.with(|c| messages::history(c, sid)).unwrap();
    history.pop(); // the reply, which a regenerate replaces
    let mut req = maru::llm::ChatRequest::new(
        model,
        maru::chat::history::request_messages(&app.templates, &system, &history, &Default::default()).unwrap(),
    );
    req.temperature = Some(0.0);
    req.max_tokens = Some(8);
    let t1 = Instant::now();
    let mut res = http.post(format!("{base}/chat/completions")).json(&req).send().await.unwrap();
    let mut seen = String::new();
    let mut ttft = None;
    while let Some(chunk) = res.chunk().await.unwrap() {
        seen.push_str(&String::from_utf8_lossy(&chunk));
        if ttft.is_none() && seen.contains("\"content\":\"") {
            ttft = Some(t1.elapsed());
        }
    }
    ttft.expect("the model answered")
}

fn print_pct(what: &str, times: &mut [Duration]) {
    times.sort();
    let pct = |p: f64| times[((times.len() as f64 - 1.0) * p) as usize];
    println!("{what:<52} p50 {:>9.2?}  p99 {:>9.2?}  ({} runs)", pct(0.5), pct(0.99), times.len());
}

/// Removes what a measured turn added after message `last`, so every run sends the same chat.
fn forget_turn(app: &App, session_id: i64, last: i64) {
    app.store.with(|c| Ok(c.execute("DELETE FROM messages WHERE session_id = ?1 AND id > ?2", [session_id, last])?)).unwrap();
}

/// Time to first token as an outside client sees it: from sending the HTTP request to `maru
/// serve`, running in a process of its own, to the first `token` event of its stream, against the
/// same request sent straight to the model server, in pairs that alternate which goes first.
///
/// Every measured request meets both servers equally idle, as a person's next message does: each
/// request starts [`IDLE_BETWEEN`] after the one before has ended, and a new message's pair has a
/// second of its own, for its time note. (Sent back to back, the second of a pair found
/// llama.cpp's threads still awake and answered ~4 ms sooner: the pairs' differences fell in two
/// heaps, Maru's share ± 4 ms, and their median landed anywhere between them. The medians of each
/// order apart are printed, and are near each other when neither side is favoured.) The client's connection to `maru serve` is kept
/// alive; llama.cpp closes its connection after every streamed answer, so the direct client opens
/// a new one per request, and Maru one per turn. A regenerate sends the identical request every
/// time; a new message follows an unmeasured turn of Maru's, as a person's next message follows
/// the answer before it, and sends the history and a new question with its time note (the direct
/// request an equal one, the question put in the server's cache first so both cost it the same).
async fn ttft_http() {
    // MARU_BENCH_PACED=<ms>: the paced model server (below) in place of llama.cpp.
    let (model_server, server) = match std::env::var(PACED_SET).ok() {
        Some(pause) => (
            ModelServer::Paced(BenchProcess::start(PACED_ENV, &pause)),
            format!("a model server that computes nothing ({pause} ms to its first token)"),
        ),
        None => {
            // MARU_BENCH_LLAMA_THREADS=N: llama-server's compute threads (its default: one per core).
            let threads = std::env::var("MARU_BENCH_LLAMA_THREADS").ok();
            let args: Vec<&str> = threads.as_deref().map(|n| vec!["--threads", n]).unwrap_or_default();
            let Some(llama) = LlamaServer::start_with(4096, &args).await else {
                println!("time to first token over HTTP: skipped (set LLAMA_SERVER and SMOLLM_GGUF)");
                return;
            };
            (ModelServer::Llama(llama), "real llama.cpp + SmolLM2".to_string())
        }
    };
    let model_url = model_server.base_url();
    let maru = BenchProcess::maru();
    let http = reqwest::Client::new();
    let api = |method: reqwest::Method, path: &str| http.request(method, format!("{}{path}", maru.url)).bearer_auth("bench");
    let settings = json!({
        "endpoint_url": model_url, "temperature": 0.0, "max_tokens": 8,
        "custom_instructions": "Answer in one short sentence.", "memory_mode": "off"
    });
    api(reqwest::Method::PATCH, "/api/settings").json(&settings).send().await.unwrap().error_for_status().unwrap();
    let session: serde_json::Value =
        api(reqwest::Method::POST, "/api/sessions").json(&json!({ "title": "ttft" })).send().await.unwrap().json().await.unwrap();
    let sid = session["id"].as_i64().unwrap();
    let send = |path: String, body: serde_json::Value| {
        let req = api(reqwest::Method::POST, &path).json(&body);
        async move { first_event(req, "event: token").await }
    };
    send(format!("/api/sessions/{sid}/messages"), json!({ "content": "What is the capital of France?" })).await;
    let model =
        maru::llm::Client::new(maru::llm::Endpoint::new(model_url.clone()), Default::default()).list_models().await.unwrap()[0].id.clone();
    let templates = maru::prompt::templates::Templates::load(None).unwrap();
    // The chat so far, as its next request carries it (from what the API shows).
    let chat_so_far = || async {
        let context: serde_json::Value =
            api(reqwest::Method::GET, &format!("/api/sessions/{sid}/context")).send().await.unwrap().json().await.unwrap();
        let history = branch(&api, sid).await;
        let asked =
            maru::chat::history::request_messages(&templates, context["system_prompt"].as_str().unwrap(), &history, &Default::default());
        (history.len(), asked.unwrap())
    };
    let regenerate_body = maru_bodies(&api, &model_url, &model, sid, &chat_so_far().await.1, &templates).await;

    let pairs: usize = std::env::var("MARU_BENCH_PAIRS").ok().and_then(|n| n.parse().ok()).unwrap_or(HTTP_PAIRS);
    // MARU_BENCH_KIND=regenerate (or "new message", "byte proxy") measures only that kind.
    let only = std::env::var("MARU_BENCH_KIND").ok();
    // A byte proxy in front of the model server, in a process of its own like `maru serve`.
    let proxy = BenchProcess::start(PROXY_ENV, model_url.trim_end_matches("/v1").trim_start_matches("http://"));
    for kind in ["regenerate", "new message", "byte proxy"].into_iter().filter(|k| only.as_deref().is_none_or(|o| o == *k)) {
        let (kept, asked) = chat_so_far().await;
        let (mut via, mut direct, mut differences) = (vec![], vec![], vec![]);
        let (mut it_first, mut direct_first) = (vec![], vec![]);
        let mut other_second = 0;
        let mut raw = std::env::var("MARU_BENCH_RAW")
            .ok()
            .map(|f| std::fs::OpenOptions::new().append(true).create(true).open(f).expect("MARU_BENCH_RAW names a file to append to"));
        let note_at = |t: chrono::DateTime<chrono::Local>| maru::chat::history::runtime_note(&templates, t).unwrap();
        // Pairs measured (the first two only warm the caches), and all tried: a new message's
        // pair whose time notes came out a second apart is tried again (at most `pairs` times).
        let (mut done, mut tried) = (0, 0);
        while done < pairs + 2 && tried < 2 * pairs + 2 {
            let i = tried;
            tried += 1;
            let question = format!("Question {i}: what is {i} plus {i}?");
            // A new message follows a turn of Maru's, unmeasured, as a person's next message
            // follows the answer before it (so its request goes out before the turn reads the
            // chat: see `chat::ahead`); the direct request carries that turn too.
            let asked = if kind == "new message" {
                send(format!("/api/sessions/{sid}/messages"), json!({ "content": format!("Hello {i}.") })).await;
                chat_so_far().await.1
            } else {
                asked.clone()
            };
            let asking = |note: &str| {
                let mut sent = asked.clone();
                sent.push(maru::llm::ChatMessage::user(format!("{question}\n\n{note}")));
                direct_body(&model, sent)
            };
            let straight =
                |req: &serde_json::Value| first_event(http.post(format!("{model_url}/chat/completions")).json(req), "\"content\":\"");
            // A new question first goes to the server's cache, unmeasured (it took llama.cpp
            // 0.2–1.3 s, too long to fit in the pair's second below), with the time note of the
            // next second; then both measured requests cost the server the same (its last
            // token), as a regenerate's do, and the difference is Maru's alone.
            if kind == "new message" {
                straight(&asking(&note_at(chrono::Local::now() + chrono::Duration::seconds(1)))).await;
            }
            // Every request of a pair starts the same time after the one before has ended (an
            // unmeasured one goes first), so that the two measured requests meet the servers
            // equally idle. (Started at even steps instead, the first measured request of a new
            // message often met llama.cpp just done with, or still answering, the one before, and
            // was answered sooner than the second: Maru's share came out 0.4 ms when it went
            // first and 2.0 ms when it went second.) A new message's pair has a second of its
            // own: its requests lie within it, and its time note is the same text for Maru and
            // the direct request (checked below). The others' requests do not depend on the time.
            let rest = || tokio::time::sleep(Duration::from_millis(IDLE_BETWEEN));
            if kind == "new message" {
                let wait = 1005u64.saturating_sub(u64::from(chrono::Local::now().timestamp_subsec_millis()));
                tokio::time::sleep(Duration::from_millis(wait)).await;
            }
            let note = note_at(chrono::Local::now());
            let (path, body, req) = if kind != "new message" {
                (format!("/api/sessions/{sid}/regenerate"), json!({}), regenerate_body.clone())
            } else {
                (format!("/api/sessions/{sid}/messages"), json!({ "content": question }), asking(&note))
            };
            // Through Maru, or (the byte proxy's floor) the direct request through the proxy.
            let measured = || async {
                if kind == "byte proxy" {
                    first_event(http.post(format!("{}/v1/chat/completions", proxy.url)).json(&req), "\"content\":\"").await
                } else {
                    send(path.clone(), body.clone()).await
                }
            };
            // One request first, unmeasured, so that both measured ones follow a request after
            // the same rest (the first would otherwise follow the wait for the next second: on a
            // virtual machine whose cores sleep meanwhile, it came out ~5 ms slower than the
            // second, whichever it was).
            straight(&req).await;
            rest().await;
            let goes_first = done % 2 == 0;
            let (a, b) = if goes_first {
                let a = measured().await;
                rest().await;
                (a, straight(&req).await)
            } else {
                let b = straight(&req).await;
                rest().await;
                (measured().await, b)
            };
            // Every new message is asked of the same chat: no history grows into a compaction.
            if kind == "new message" {
                let latest = branch(&api, sid).await;
                let asked_note = latest.iter().rev().find(|m| m.role == Role::User).and_then(|m| m.runtime_note.clone());
                forget(&api, &latest[kept..]).await;
                if asked_note != Some(note) {
                    // The pair took longer than the rest of its second: the server computed
                    // Maru's note afresh. Not the same request; tried again.
                    other_second += 1;
                    continue;
                }
            }
            done += 1;
            if done > 2 {
                let difference = (a.as_secs_f64() - b.as_secs_f64()) * 1000.0;
                via.push(a);
                direct.push(b);
                differences.push(difference);
                if let Some(f) = raw.as_mut() {
                    use std::io::Write;
                    writeln!(f, "{kind}\t{i}\t{:.3}\t{:.3}", a.as_secs_f64() * 1000.0, b.as_secs_f64() * 1000.0).unwrap();
                }
                if goes_first { &mut it_first } else { &mut direct_first }.push(difference);
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            v[v.len() / 2]
        };
        via.sort();
        direct.sort();
        let (v, d) = (via[via.len() / 2], direct[direct.len() / 2]);
        let d_ms = d.as_secs_f64() * 1000.0;
        let share = median(&mut differences);
        let (low, high) = median_interval(&differences);
        let through =
            if kind == "byte proxy" { "a byte proxy (a regenerate's request; the floor of any process between)" } else { "maru serve" };
        // Each order's median apart: equal when neither request of a pair is favoured.
        let (first, second) = (median(&mut it_first), median(&mut direct_first));
        println!(
            "time to first token over HTTP ({kind}), {server}, {through} in its own process: \
             through it p50 {v:.1?}, direct p50 {d:.1?}; ratio {:.3} (its share, the pairs' median difference, \
             {share:.2} ms, over the direct p50; 95 % interval {:.3}–{:.3}, from {low:.2}–{high:.2} ms); ratio of the \
             medians {:.3}; by order: it first {first:.2} ms, direct first {second:.2} ms; {} pairs{}",
            1.0 + share / d_ms,
            1.0 + low / d_ms,
            1.0 + high / d_ms,
            v.as_secs_f64() / d.as_secs_f64(),
            differences.len(),
            if other_second > 0 {
                format!(" ({other_second} more left out: their time notes came out a second apart)")
            } else {
                String::new()
            }
        );
        // The tail beside the median: what the stream's first token costs now and then.
        let at = |v: &[Duration], p: f64| v[((v.len() as f64 * p) as usize).min(v.len() - 1)];
        for (name, p) in [("p90", 0.9), ("p99", 0.99)] {
            let (m, d) = (at(&via, p), at(&direct, p));
            println!("  {name}: through it {m:.1?}, direct {d:.1?}, ratio {:.3}", m.as_secs_f64() / d.as_secs_f64());
        }
    }
}

const HTTP_PAIRS: usize = 120;

/// How long the servers rest between a pair's requests, in ms: llama.cpp's threads are asleep again
/// well before, and a new message's three requests still start within one second.
const IDLE_BETWEEN: u64 = 150;

/// A 95 % confidence interval for the median of `sorted` (ascending), from the order
/// statistics alone (the sign test's): it assumes nothing about the differences' spread, whose
/// tails are long here. Tells whether a median share is within the noise of a target.
fn median_interval(sorted: &[f64]) -> (f64, f64) {
    // The r-th smallest and the r-th largest, r = ⌊n/2 − 0.98·√n⌋ (at least the extremes).
    let n = sorted.len();
    let r = ((n as f64 - 1.96 * (n as f64).sqrt()) / 2.0).floor().max(1.0) as usize;
    (sorted[r - 1], sorted[n - r])
}

/// The body the bench sends straight to the model server for `messages`.
fn direct_body(model: &str, messages: Vec<maru::llm::ChatMessage>) -> serde_json::Value {
    let mut req = maru::llm::ChatRequest::new(model.to_string(), messages);
    req.temperature = Some(0.0);
    req.max_tokens = Some(8);
    serde_json::to_value(&req).unwrap()
}

/// The chat's messages as the API shows them, oldest first.
async fn branch<F>(api: &F, sid: i64) -> Vec<maru::store::messages::Message>
where
    F: Fn(reqwest::Method, &str) -> reqwest::RequestBuilder,
{
    let page: maru::store::messages::MessagePage =
        api(reqwest::Method::GET, &format!("/api/sessions/{sid}/messages")).send().await.unwrap().json().await.unwrap();
    assert!(page.next_before.is_none(), "the bench's chat stays short");
    page.messages.into_iter().rev().collect()
}

/// Deletes `messages` through the API, newest first.
async fn forget<F>(api: &F, messages: &[maru::store::messages::Message])
where
    F: Fn(reqwest::Method, &str) -> reqwest::RequestBuilder,
{
    for m in messages.iter().rev() {
        api(reqwest::Method::DELETE, &format!("/api/messages/{}", m.id)).send().await.unwrap().error_for_status().unwrap();
    }
}

/// Maru's own request bodies, seen once through a recording proxy in front of the model server,
/// so that the direct requests are the same bytes: a regenerate's body (which the direct side then
/// sends verbatim), and a check that the bench builds a new message's body exactly as Maru does
/// from `asked` (the chat so far).
async fn maru_bodies<A>(
    api: &A,
    llama_url: &str,
    model: &str,
    sid: i64,
    asked: &[maru::llm::ChatMessage],
    templates: &maru::prompt::templates::Templates,
) -> serde_json::Value
where
    A: Fn(reqwest::Method, &str) -> reqwest::RequestBuilder,
{
    let set = |url: &str| {
        let req = api(reqwest::Method::PATCH, "/api/settings").json(&json!({ "endpoint_url": url }));
        async move { req.send().await.unwrap().error_for_status().unwrap() }
    };
    let send = |path: String, body: serde_json::Value| first_event(api(reqwest::Method::POST, &path).json(&body), "event: token");
    let recorder = maru_tests::fake_openai::FakeOpenAi::start().await;
    recorder.set_models(vec![maru_tests::fake_openai::FakeModel::llama_cpp(model)]);
    recorder.forward_to(llama_url);
    set(&recorder.base_url()).await;
    send(format!("/api/sessions/{sid}/regenerate"), json!({})).await;
    let regenerate = recorder.chat_requests().last().expect("Maru asked the model server").body.clone();

    let before = branch(api, sid).await;
    send(format!("/api/sessions/{sid}/messages"), json!({ "content": "Question: what is 1 plus 1?" })).await;
    let maru_body = recorder.chat_requests().last().unwrap().body.clone();
    let mut sent = asked.to_vec();
    let note = maru::chat::history::runtime_note(templates, chrono::Local::now()).unwrap();
    sent.push(maru::llm::ChatMessage::user(format!("Question: what is 1 plus 1?\n\n{note}")));
    let mut ours = direct_body(model, sent);
    // The time notes may be a second apart; everything else must be the same bytes.
    let last =
        |body: &serde_json::Value| body["messages"].as_array().and_then(|m| m.last()).map(|m| m["content"].clone()).unwrap_or_default();
    let asks = |body: &serde_json::Value| last(body).as_str().is_some_and(|c| c.starts_with("Question: what is 1 plus 1?\n\n[Sent "));
    let both_ask = asks(&ours) && asks(&maru_body);
    if let Some(m) = ours["messages"].as_array_mut().and_then(|m| m.last_mut()) {
        m["content"] = last(&maru_body);
    }
    assert!(both_ask && ours == maru_body, "the direct request must be Maru's own body:\n  maru:  {maru_body}\n  bench: {ours}");
    forget(api, &branch(api, sid).await[before.len()..]).await;
    set(llama_url).await;
    regenerate
}

/// This bench binary again, in a process of its own on Maru's runtime (`maru::runtime`), told by
/// an environment variable what to be: `maru serve` on a new data folder with the token "bench"
/// ([`SERVE_ENV`]), a byte proxy ([`PROXY_ENV`]) or the paced model server ([`PACED_ENV`]). It
/// prints its address first.
struct BenchProcess {
    child: std::process::Child,
    url: String,
    _dir: Option<tempfile::TempDir>,
}

/// Set in the serving process: the data folder to serve.
const SERVE_ENV: &str = "MARU_BENCH_SERVE";
/// Set in the byte proxy's process: the model server's `host:port`.
const PROXY_ENV: &str = "MARU_BENCH_PROXY";
/// Set by the user: the HTTP part asks the paced model server, with this pause in ms, in place
/// of llama.cpp.
const PACED_SET: &str = "MARU_BENCH_PACED";
/// Set in the paced model server's process: its pause in ms.
const PACED_ENV: &str = "MARU_BENCH_PACED_SERVE";

/// The model server the HTTP part measures against.
enum ModelServer {
    Llama(LlamaServer),
    Paced(BenchProcess),
}

impl ModelServer {
    fn base_url(&self) -> String {
        match self {
            ModelServer::Llama(llama) => llama.base_url.clone(),
            ModelServer::Paced(paced) => format!("{}/v1", paced.url),
        }
    }
}

impl BenchProcess {
    fn maru() -> BenchProcess {
        let dir = tempfile::tempdir().unwrap();
        let mut serving = BenchProcess::start(SERVE_ENV, dir.path().to_str().unwrap());
        serving._dir = Some(dir);
        serving
    }

    fn start(var: &str, value: &str) -> BenchProcess {
        use std::io::BufRead;
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .env(var, value)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        BenchProcess { child, url: line.trim().to_string(), _dir: None }
    }
}

impl Drop for BenchProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The serving process's side: prints its address, then serves until killed. It logs as `maru
/// serve` does (the info level's spans on a turn's calls are part of what a turn costs).
async fn serve(dir: &str) {
    let _log = maru::logging::init(std::path::Path::new(dir));
    let app = App::open(std::path::Path::new(dir)).unwrap();
    let url = serve_http(&app).await;
    println!("{url}");
    std::future::pending::<()>().await;
}

/// The byte proxy's side: passes each connection's bytes to the model server at `upstream` and
/// back, and does nothing else. What a request through it costs is what any process between
/// the client and the model server costs on this machine, Maru's included: its share's floor.
async fn byte_proxy(upstream: &str) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    println!("http://{}", listener.local_addr().unwrap());
    loop {
        let (mut client, _) = listener.accept().await.unwrap();
        let upstream = upstream.to_string();
        tokio::spawn(async move {
            let Ok(mut server) = tokio::net::TcpStream::connect(&upstream).await else { return };
            let _ = (client.set_nodelay(true), server.set_nodelay(true));
            let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
        });
    }
}

/// The paced model server's side: answers a chat request's headers at once and its first token
/// `pause` later, then seven more 2 ms apart, and closes the connection, as llama.cpp does; it
/// lists one model and answers nothing else. It computes nothing meanwhile, so a request's time
/// to first token is the pause and what the processes on the way cost: Maru's share without the
/// noise of a model computing on the same cores (pairs differ by microseconds, not milliseconds).
async fn paced_model_server(pause: Duration) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    println!("http://{}", listener.local_addr().unwrap());
    loop {
        let (mut sock, _) = listener.accept().await.unwrap();
        tokio::spawn(async move {
            let _ = sock.set_nodelay(true);
            let mut buf = Vec::new();
            while let Some(head) = next_request(&mut sock, &mut buf).await {
                let json = |status: &str, body: &str| {
                    format!("HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}", body.len())
                };
                if head.starts_with("get /v1/models") {
                    let models = r#"{"object":"list","data":[{"id":"paced","object":"model","meta":{"n_ctx_train":8192}}]}"#;
                    if sock.write_all(json("200 OK", models).as_bytes()).await.is_err() {
                        return;
                    }
                    continue;
                }
                if !head.starts_with("post /v1/chat/completions") {
                    if sock.write_all(json("404 Not Found", r#"{"error":{"message":"not here"}}"#).as_bytes()).await.is_err() {
                        return;
                    }
                    continue;
                }
                let sse = |data: &str| {
                    let event = format!("data: {data}\n\n");
                    format!("{:x}\r\n{event}\r\n", event.len())
                };
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
                if sock.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                tokio::time::sleep(pause).await;
                for i in 0..8 {
                    let delta = if i == 0 { r#"{"role":"assistant","content":"Hi"}"# } else { r#"{"content":" hi"}"# };
                    let data = format!(
                        r#"{{"id":"p","object":"chat.completion.chunk","model":"paced","choices":[{{"index":0,"delta":{delta},"finish_reason":null}}]}}"#
                    );
                    if sock.write_all(sse(&data).as_bytes()).await.is_err() {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
                let end = r#"{"id":"p","object":"chat.completion.chunk","model":"paced","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":50,"completion_tokens":8,"total_tokens":58}}"#;
                let _ = sock.write_all(format!("{}{}0\r\n\r\n", sse(end), sse("[DONE]")).as_bytes()).await;
                return;
            }
        });
    }
}

/// `maru serve` on `app`, in this process, with the token "bench": its address.
async fn serve_http(app: &Arc<App>) -> String {
    let opts =
        maru::server::ServeOptions { host: "127.0.0.1".into(), port: 0, token: Some("bench".into()), allow_remote: false, ui_dir: None };
    let bound = maru::server::bind(app.clone(), &opts).await.unwrap();
    let url = format!("http://{}", bound.addr);
    tokio::spawn(bound.run());
    url
}

/// The first message after opening Maru, a second after (while the user types), against the
/// two after it: from the API call to the model server's receiving the request. Building the
/// server's HTTP client reads the system's TLS roots, which Maru does as it opens.
async fn first_message() {
    let (url, mut arrivals) = timing_server().await;
    let built = Instant::now();
    drop(maru::llm::Client::new(maru::llm::Endpoint::new(url.clone()), Default::default()));
    let built = built.elapsed();
    let (mut first, mut later) = (vec![], vec![]);
    for _ in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        // The settings a user left last time, as the data folder holds them.
        let patch = on_timing_server(&url);
        maru::store::Store::open(&dir.path().join("maru.db")).unwrap().with(|tx| maru::store::settings::update(tx, &patch)).unwrap();
        let app = App::open(dir.path()).unwrap();
        let sid = api::create_session(&app, sessions::NewSession { title: "first".into(), project_id: None, ..Default::default() })
            .await
            .unwrap()
            .id;
        tokio::time::sleep(Duration::from_secs(1)).await;
        for i in 0..3 {
            let t0 = Instant::now();
            let rx =
                api::chat::send_message(app.clone(), sid, NewTurn { content: "hi".into(), images: vec![], skills: vec![] }).await.unwrap();
            let arrived = arrivals.recv().await.unwrap();
            drain(rx).await;
            if i == 0 { &mut first } else { &mut later }.push(arrived - t0);
        }
        app.shutdown().await;
    }
    println!("building a model server's HTTP client: {built:.1?}");
    print_pct("the first message a second after opening: API call → request to the model server", &mut first);
    print_pct("the messages after it: API call → request to the model server", &mut later);
}

/// Where Maru's share of the time to first token goes, against a model server that answers at
/// once: from the client's request to the model server's receiving Maru's (before), and from the
/// model server's first token to the client's `token` event (after).
async fn ttft_split() {
    let dir = tempfile::tempdir().unwrap();
    let app: Arc<App> = App::open(dir.path()).unwrap();
    let (url, mut arrivals) = timing_server().await;
    api::update_settings(&app, on_timing_server(&url)).await.unwrap();
    let sid =
        api::create_session(&app, sessions::NewSession { title: "split".into(), project_id: None, ..Default::default() }).await.unwrap().id;
    let maru_url = serve_http(&app).await;
    let http = reqwest::Client::new();
    // A new message (its turn then forgotten, so the chat stays as it is), then a regenerate of
    // the same question again and again (its versions pile up, as when a user retries).
    for kind in ["new message", "regenerate"] {
        let (mut before, mut after) = (vec![], vec![]);
        for i in 0..RUNS + 10 {
            let last =
                app.store.with(|c| Ok(c.query_row("SELECT coalesce(max(id), 0) FROM messages", [], |r| r.get::<_, i64>(0))?)).unwrap();
            let req = match kind {
                "new message" => http.post(format!("{maru_url}/api/sessions/{sid}/messages")).json(&json!({ "content": "hi" })),
                _ => http.post(format!("{maru_url}/api/sessions/{sid}/regenerate")).json(&json!({})),
            };
            let t0 = Instant::now();
            let mut res = req.bearer_auth("bench").send().await.unwrap();
            let mut seen = String::new();
            let mut token_at = None;
            while let Some(chunk) = res.chunk().await.unwrap() {
                seen.push_str(&String::from_utf8_lossy(&chunk));
                if token_at.is_none() && seen.contains("event: token") {
                    token_at = Some(Instant::now());
                }
            }
            let arrived = arrivals.recv().await.unwrap();
            if i >= 10 {
                before.push(arrived - t0);
                after.push(token_at.expect("a token") - arrived);
            }
            if kind == "new message" && i < RUNS + 9 {
                forget_turn(&app, sid, last);
            }
        }
        print_pct(&format!("over HTTP, {kind}: request in → request to the model server"), &mut before);
        print_pct(&format!("over HTTP, {kind}: model server's answer → token event out"), &mut after);
    }
}

/// Sends the request and times it to the first chunk holding `marker`, then reads it to its end.
/// llama-server closes idle kept-alive connections: a request that meets one closed is sent
/// again on a new one, and timed from there (as Maru's own client does).
async fn first_event(req: reqwest::RequestBuilder, marker: &str) -> Duration {
    let again = req.try_clone().expect("a JSON request can be cloned");
    let mut t0 = Instant::now();
    let mut res = match req.send().await {
        Ok(res) => res,
        Err(_) => {
            t0 = Instant::now();
            again.send().await.unwrap()
        }
    };
    let mut seen = String::new();
    let mut first = None;
    while let Some(chunk) = res.chunk().await.unwrap() {
        if first.is_none() {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if seen.contains(marker) {
                first = Some(t0.elapsed());
            }
        }
    }
    first.unwrap_or_else(|| panic!("no {marker:?} in the answer: {seen}"))
}

/// Settings that ask the server at `base_url`.
fn on_server(base_url: &str) -> maru::store::settings::Settings {
    let server = maru::store::connections::ServerConnection { base_url: base_url.into(), ..Default::default() };
    maru::store::settings::Settings { server, ..Default::default() }
}
