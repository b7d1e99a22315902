//! Against a real OpenAI-compatible server: llama.cpp's llama-server with SmolLM2-135M.
//! Run by `make test` (which builds and caches the server); ignored by a plain `cargo test`.

use maru_tests::llama::LlamaServer;
use maru_tests::server::TestServer;
use serde_json::json;

async fn llama() -> LlamaServer {
    LlamaServer::start().await.expect("set LLAMA_SERVER and SMOLLM_GGUF (eval \"$(tests/real-server/setup.sh)\")")
}

#[tokio::test]
#[ignore = "needs llama-server: run through make test"]
async fn a_real_turn_streams_records_usage_and_reuses_the_prefix_cache() {
    let llama = llama().await;
    let s = TestServer::start().await;
    // No model name: Maru takes the one the server lists. Temperature 0 keeps replies stable.
    let (st, v) = s
        .patch(
            "/api/settings",
            json!({
                "endpoint_url": llama.base_url, "model": null, "temperature": 0.0, "max_tokens": 24,
                "custom_instructions": "Answer in one short sentence."
            }),
        )
        .await;
    assert_eq!(st.as_u16(), 200, "{v}");
    let p = s.project("Family calendar").await;
    s.patch(&format!("/api/projects/{p}"), json!({ "instructions": "Family schedules come first." })).await;
    s.post("/api/memories", json!({ "content": "The user's daughter is called Mina." })).await;
    let sess = s.session(Some(p), "").await;

    let events = s.say(sess, "What is the capital of France?").await;
    let tokens = events.iter().filter(|e| e.name == "token").count();
    assert!(tokens >= 2, "the reply streams token by token: {events:?}");
    let done = events.iter().find(|e| e.name == "done").unwrap_or_else(|| panic!("the turn completes: {events:?}"));
    let reply = &done.data["message"];
    assert_eq!(reply["status"], "complete");
    assert!(!reply["content"].as_str().unwrap().trim().is_empty());
    assert!(reply["model"].as_str().unwrap().contains("SmolLM2"), "the model came from the server's list: {}", reply["model"]);
    let prompt_tokens = reply["prompt_tokens"].as_i64().expect("usage is recorded");
    assert!(reply["completion_tokens"].as_i64().unwrap() > 0);
    assert!(reply["cached_tokens"].is_i64(), "llama.cpp reports cache reuse, so it is recorded: {reply}");

    // The request carried the five-section prompt: the inspector shows what was sent, and the
    // server's own prompt token count covers it.
    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    assert_eq!(ctx["tokens_source"], "server", "llama.cpp's /tokenize counts the prompt exactly");
    let system = ctx["system_prompt"].as_str().unwrap();
    for needle in [
        "You are Maru",
        "[Custom instructions]",
        "[Project instructions: Family calendar]",
        "[Long-term memory]\n- The user's daughter is called Mina.",
    ] {
        assert!(system.contains(needle), "{needle:?} missing from the sent prompt:\n{system}");
    }
    assert_eq!(ctx["sha256"], ctx["last_sent"]["sha256"], "the inspector shows the prompt that was sent");
    assert!(prompt_tokens > ctx["tokens"].as_i64().unwrap(), "the server read the whole system prompt ({prompt_tokens} prompt tokens)");

    // A second turn with unchanged inputs: the server reuses its cache for the whole prefix.
    let events = s.say(sess, "And of Italy?").await;
    let second = &events.iter().find(|e| e.name == "done").expect("second turn completes").data["message"];
    let cached = second["cached_tokens"].as_i64().unwrap();
    let prompt = second["prompt_tokens"].as_i64().unwrap();
    assert!(
        cached > prompt_tokens / 2,
        "an unchanged system prompt and history must hit the prefix cache: {cached} of {prompt} reused (first turn had {prompt_tokens})"
    );
    println!("prefix cache on the second turn: {cached} of {prompt} prompt tokens reused");
}

#[tokio::test]
#[ignore = "needs llama-server: run through make test"]
async fn the_real_server_lists_its_model_with_context_length() {
    let llama = llama().await;
    let s = TestServer::start().await;
    s.use_server(&llama.base_url, "").await;
    let (_, models) = s.get("/api/models").await;
    assert_eq!(models[0]["context_length"], 4096, "the context length comes from the server: {models}");
}

#[tokio::test]
#[ignore = "needs llama-server: run through make test"]
async fn a_chat_on_a_second_server_talks_to_it_while_the_default_one_is_down() {
    let llama = llama().await;
    let s = TestServer::start().await;
    s.use_server("http://127.0.0.1:9/v1", "").await;
    s.patch("/api/settings", json!({ "temperature": 0.0, "max_tokens": 16 })).await;
    let (_, added) = s.post("/api/connections", json!({ "name": "llama.cpp", "base_url": llama.base_url })).await;
    let (_, models) = s.get(&format!("/api/models?connection_id={}", added["id"])).await;
    let model = models[0]["id"].as_str().unwrap_or_else(|| panic!("the second server lists its model: {models}"));
    let chat = s.session(None, "").await;
    let (st, v) = s.patch(&format!("/api/sessions/{chat}"), json!({ "connection_id": added["id"], "model": model })).await;
    assert_eq!(st.as_u16(), 200, "{v}");
    let events = s.say(chat, "Say hello.").await;
    let done = events.iter().find(|e| e.name == "done").unwrap_or_else(|| panic!("the real server answers: {events:?}"));
    assert_eq!(done.data["message"]["model"], model, "with the chat's own model");
    assert!(!done.data["message"]["content"].as_str().unwrap().trim().is_empty());
    let (_, context) = s.get(&format!("/api/sessions/{chat}/context")).await;
    assert_eq!(context["tokens_source"], "server", "the chat's own server counts its prompt: {}", context["tokens_source"]);
}

#[tokio::test]
#[ignore = "needs llama-server: run through make test"]
async fn a_real_server_takes_files_the_search_tool_and_its_results() {
    use maru::store::messages::{self, NewMessage, Role, Status};
    let llama = llama().await;
    let s = TestServer::start().await;
    s.patch("/api/settings", json!({ "endpoint_url": llama.base_url, "model": null, "temperature": 0.0, "max_tokens": 24 })).await;
    let sess = s.session(None, "").await;
    let form = reqwest::multipart::Form::new()
        .text("session_id", sess.to_string())
        .part("file", reqwest::multipart::Part::bytes(&b"The family budget meeting is on Friday at noon."[..]).file_name("budget.txt"));
    let res = s.http.post(s.url("/api/attachments")).bearer_auth(&s.token).multipart(form).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let file: serde_json::Value = res.json().await.unwrap();
    for _ in 0..500 {
        if s.get(&format!("/api/attachments/{}", file["id"])).await.1["status"] == "ready" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }

    // A round the tiny model would rarely choose to make on its own: a search_attachment call
    // and its real result, stored as a turn stores them. The next request carries the tool's
    // spec, the call and the passage; the server must take them and answer.
    let ctx = maru::app::ToolContext { session_id: sess, project_id: 1, message_id: None, store: s.app.store.clone() };
    let found = s.app.tools.run(ctx, "search_attachment", r#"{"query": "budget meeting"}"#).await.map(|r| r.text).expect("the tool runs");
    assert!(found.contains("budget.txt") && found.contains("Friday"), "{found}");
    let call =
        maru::llm::ToolCall { id: "call_1".into(), name: "search_attachment".into(), arguments: r#"{"query":"budget meeting"}"#.into() };
    s.app
        .store
        .with(|c| {
            messages::insert(
                c,
                &NewMessage { session_id: sess, role: Role::User, content: "When is the budget meeting?", ..Default::default() },
            )?;
            let asked = messages::insert(
                c,
                &NewMessage {
                    session_id: sess,
                    role: Role::Assistant,
                    status: Status::Complete,
                    tool_calls: std::slice::from_ref(&call),
                    ..Default::default()
                },
            )?;
            messages::insert(
                c,
                &NewMessage {
                    session_id: sess,
                    role: Role::Tool,
                    content: &found,
                    tool_call_id: Some("call_1"),
                    tool_name: Some("search_attachment"),
                    ..Default::default()
                },
            )?;
            Ok(asked.id)
        })
        .unwrap();
    let events = s.say(sess, "Answer from the file.").await;
    let done = events.iter().find(|e| e.name == "done").unwrap_or_else(|| panic!("the server takes the tool round: {events:?}"));
    assert_eq!(done.data["message"]["status"], "complete", "{done:?}");
    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    assert!(ctx["system_prompt"].as_str().unwrap().contains("budget.txt (text"), "④ lists the file: {}", ctx["system_prompt"]);
}

#[tokio::test]
#[ignore = "needs llama-server: run through make test"]
async fn a_chat_goes_on_past_the_real_window_by_summarising() {
    let llama = LlamaServer::start_with_context(2048).await.expect("set LLAMA_SERVER and SMOLLM_GGUF");
    let s = TestServer::start().await;
    s.patch(
        "/api/settings",
        json!({ "endpoint_url": llama.base_url, "model": null, "temperature": 0.0, "max_tokens": 24, "memory_mode": "off" }),
    )
    .await;
    let sess = s.session(None, "").await;
    let mut cached_after = vec![];
    let mut summaries_seen = 0;
    for turn in 0..14 {
        let question = format!(
            "Note {turn}: {} What is {turn} plus one?",
            "We planned the family trip, the budget and the school calendar in detail. ".repeat(6)
        );
        let mut events = s.say(sess, &question).await;
        // llama-server now and then drops a connection when it cannot restore a slot's cache;
        // a user would press regenerate, and so does this test, once.
        if events.iter().any(|e| e.data["code"] == "model_server.disconnected") {
            events = s.turn(&format!("/api/sessions/{sess}/regenerate"), None).await.collect().await;
        }
        let done = events.iter().find(|e| e.name == "done").unwrap_or_else(|| panic!("turn {turn} completes past the window: {events:?}"));
        assert_eq!(done.data["message"]["status"], "complete", "turn {turn}");
        let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
        let n = ctx["summaries"].as_array().unwrap().len();
        if n > summaries_seen || !cached_after.is_empty() {
            cached_after.push((turn, done.data["message"]["cached_tokens"].clone(), done.data["message"]["prompt_tokens"].clone()));
        }
        summaries_seen = n;
    }
    assert!(summaries_seen >= 1, "a 2,048-token window forced at least one summary");
    assert_eq!(s.history(sess).await.len(), 28, "every message is kept");
    eprintln!("cached/prompt tokens from the compacting turn on: {cached_after:?}");
}

#[tokio::test]
#[ignore = "needs llama-server: run through make test"]
async fn a_first_run_chats_with_the_demo_model_maru_starts() {
    let (Some(server), Some(model)) = (std::env::var_os("LLAMA_SERVER"), std::env::var_os("SMOLLM_GGUF")) else {
        panic!("set LLAMA_SERVER and SMOLLM_GGUF (eval \"$(tests/real-server/setup.sh)\")");
    };
    let s = TestServer::start().await;
    s.app.demo.use_files(server.into(), model.into());
    // What the banner's button does: start it, then point the settings at it.
    let (st, demo) = s.post("/api/demo", json!({})).await;
    assert_eq!(st.as_u16(), 200, "the demo model starts: {demo}");
    let (st, v) = s.patch("/api/settings", json!({ "endpoint_url": demo["base_url"], "model": demo["model"], "max_tokens": 16 })).await;
    assert_eq!(st.as_u16(), 200, "{v}");
    let sess = s.session(None, "").await;
    let events = s.say(sess, "Say hello.").await;
    assert!(events.iter().filter(|e| e.name == "token").count() >= 2, "the first message gets a streamed answer: {events:?}");
    let done = events.iter().find(|e| e.name == "done").unwrap_or_else(|| panic!("the turn completes: {events:?}"));
    assert_eq!(done.data["message"]["status"], "complete");
    assert_eq!(done.data["message"]["model"], demo["model"], "the reply names the demo model");
}

#[tokio::test]
#[ignore = "needs llama-server: run through make test"]
async fn tool_results_keep_the_real_servers_prefix_cache_across_turns() {
    use maru_tests::fake_openai::{FakeOpenAi, Reply};
    let llama = llama().await;
    // The fake server scripts the tool calls a tiny model would not make; every other request
    // goes to llama.cpp, which reads the results and reports what it reused.
    let fake = FakeOpenAi::start().await;
    fake.forward_to(llama.base_url.clone());
    let s = TestServer::start().await;
    let settings = json!({
        "endpoint_url": fake.base_url(), "model": "fake-model", "context_length": 4096, "temperature": 0.0,
        "max_tokens": 16, "memory_mode": "off", "tool_output_inline_tokens": 300
    });
    assert_eq!(s.patch("/api/settings", settings).await.0, 200);
    let sess = s.session(None, "").await;
    let report: String = (1..=30)
        .map(|i| {
            format!(
                "Budget item {i}: the family budget for month {i} sets aside money for rent, food, school and savings, \
                 reviewed at the budget meeting with every receipt of the month listed line by line.\n\n"
            )
        })
        .chain(["The zebra crossing is repainted in spring.\n".to_string()])
        .collect();
    assert_eq!(s.attach_indexed(sess, "report.txt", &report).await["status"], "ready");
    fake.push(Reply::tool_calls([
        ("search_attachment", r#"{"query": "budget", "limit": 10}"#),
        ("search_attachment", r#"{"query": "zebra", "limit": 1}"#),
    ]));
    let mut turns = vec![];
    for question in ["What does the report cover?", "Which month has rent?", "Is the crossing repainted?"] {
        let events = s.say(sess, question).await;
        let done = events.iter().find(|e| e.name == "done").unwrap_or_else(|| panic!("{question}: {events:?}"));
        let m = &done.data["message"];
        turns.push((m["prompt_tokens"].as_i64().expect("llama.cpp counts the prompt"), m["cached_tokens"].as_i64().unwrap_or(0)));
    }
    let tools: Vec<String> = s.history(sess).await.iter().filter(|m| m["role"] == "tool").map(|m| m["content"].to_string()).collect();
    assert!(tools.len() >= 2 && tools[0].contains("[This output is long") && !tools[1].contains("[This output is long"), "{tools:?}");
    let whole = s.app.store.with(|c| maru::store::tool_outputs::get(c, sess, 1)).unwrap().expect("the large result is kept");
    assert!(whole.content.len() > 4_000, "a result a turn later used to be cut to a receipt: {} bytes", whole.content.len());
    for (i, pair) in turns.windows(2).enumerate() {
        let ratio = pair[1].1 as f64 / pair[0].0 as f64;
        println!(
            "turn {}: {} of its prompt reused from the cache, {:.3} of the previous turn's {} tokens",
            i + 2,
            pair[1].1,
            ratio,
            pair[0].0
        );
        assert!(ratio >= 0.95, "turn {} re-read what the turn before had sent ({ratio:.3}): {turns:?}", i + 2);
    }
}

/// `(prompt tokens, cached tokens)` of a forwarded answer, as llama.cpp reported them.
fn reuse(answer: &str) -> (i64, i64) {
    let last = answer
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
        .rfind(|v| v["usage"].is_object())
        .unwrap_or_else(|| panic!("llama.cpp reports usage: {answer}"));
    let cached = last["usage"]["prompt_tokens_details"]["cached_tokens"].as_i64().or(last["timings"]["cache_n"].as_i64()).unwrap_or(0);
    (last["usage"]["prompt_tokens"].as_i64().unwrap(), cached)
}

#[tokio::test]
#[ignore = "needs llama-server: run through make test"]
async fn memory_extraction_keeps_a_single_slot_servers_cache() {
    use maru_tests::fake_openai::FakeOpenAi;
    // One slot, no second copy of a prompt, and `/props` hidden behind the forwarder: Maru cannot
    // know, as with Ollama serving one request at a time.
    let llama = LlamaServer::start_with(4096, &["-np", "1", "--cache-ram", "0"]).await.expect("set LLAMA_SERVER and SMOLLM_GGUF");
    let fake = FakeOpenAi::start().await;
    fake.forward_to(llama.base_url.clone());
    let s = TestServer::start().await;
    let settings = json!({
        "endpoint_url": fake.base_url(), "model": "fake-model", "context_length": 4096, "temperature": 0.0,
        "max_tokens": 16, "memory_mode": "review"
    });
    assert_eq!(s.patch("/api/settings", settings).await.0, 200);
    let sess = s.session(None, "").await;
    let mut turns = vec![];
    for i in 0..10 {
        let events = s.say(sess, &format!("I live in city number {i} and I like tea number {i}. Say hello.")).await;
        let done = events.iter().find(|e| e.name == "done").unwrap_or_else(|| panic!("turn {i}: {events:?}"));
        turns.push((done.data["message"]["prompt_tokens"].as_i64().unwrap(), done.data["message"]["cached_tokens"].as_i64().unwrap_or(0)));
        // The extraction runs to its end before the next question (a new turn would cancel it).
        // Up to 300 tokens of facts from a tiny model on two shared cores: a generous deadline.
        maru_tests::eventually_within("the extraction ends", 120, || async {
            fake.extraction_requests().len() > i && !s.app.runs.extracting(sess)
        })
        .await;
    }
    let extractions: Vec<(i64, i64)> = fake
        .forwarded_answers()
        .iter()
        .filter(|(req, _)| req["messages"].to_string().contains("Find lasting facts"))
        .map(|(_, a)| reuse(a))
        .collect();
    assert_eq!(extractions.len(), 10, "every turn had its extraction answered by the real server");
    assert_eq!(fake.title_requests().len(), 1, "the title is asked once, after the first exchange, and shares the prefix too");
    for (i, pair) in turns.windows(2).enumerate() {
        let ratio = pair[1].1 as f64 / pair[0].0 as f64;
        println!("turn {}: reused {:.3} of the previous turn's prompt ({} of {})", i + 2, ratio, pair[1].1, pair[0].0);
        assert!(ratio >= 0.95, "turn {}: the extraction between turns evicted the chat's prompt ({ratio:.3}): {turns:?}", i + 2);
    }
    // An extraction is its turn's prompt, the answer and the task: all but the task is reused.
    for (i, ((prompt, cached), (turn_prompt, _))) in extractions.iter().zip(&turns).enumerate() {
        println!(
            "extraction {}: reused {cached} of its {prompt} prompt tokens, {:.3} of its turn's prompt ({turn_prompt})",
            i + 1,
            *cached as f64 / *turn_prompt as f64
        );
        assert!(cached >= turn_prompt, "extraction {} re-read the chat instead of reusing it: {extractions:?} {turns:?}", i + 1);
    }
}

/// The estimate's error against llama.cpp's own counts (SmolLM2's tokenizer), on ten English and
/// ten Korean questions (`tests/real-server/corpus`). Before: the plain estimate (four ASCII
/// characters a token, one per other character). After: a text the server has counted is its
/// count (no error); one not counted yet, the estimate fitted to the server's counts of the
/// other nineteen.
#[tokio::test]
#[ignore = "needs llama-server: run through make test"]
async fn the_plan_counts_as_the_real_server_does_in_english_and_korean() {
    use maru::llm::{Client, Endpoint, Timeouts};
    use maru::prompt::tokens::{scope, Source, TokenCounts};
    use std::time::{Duration, Instant};
    let llama = llama().await;
    let client = Client::new(Endpoint::new(llama.base_url.clone()), Timeouts::default());
    let corpus = |file: &str| -> Vec<String> {
        let text = std::fs::read_to_string(format!("{}/real-server/corpus/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        text.split("\n\n").map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect()
    };
    let (en, ko) = (corpus("en.txt"), corpus("ko.txt"));
    let all: Vec<&str> = en.iter().chain(&ko).map(String::as_str).collect();
    let at = scope(&llama.base_url, "");
    let mut real = vec![];
    for text in &all {
        real.push(client.tokenize("", text).await.unwrap().expect("llama.cpp has a tokenizer") as f64);
    }
    let (mut before, mut after, mut counted) = (vec![vec![]; 2], vec![vec![]; 2], vec![vec![]; 2]);
    for (i, text) in all.iter().enumerate() {
        let lang = usize::from(i >= en.len());
        let others: Vec<&str> = all.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, t)| *t).collect();
        let counts = TokenCounts::default();
        counts.learn(&client, &at, "", &others, Instant::now() + Duration::from_secs(60)).await;
        let (fitted, source) = counts.count(&at, text);
        assert_eq!(source, Source::Fitted, "a text the server has not counted is estimated at the server's rate");
        counts.learn(&client, &at, "", &[text], Instant::now() + Duration::from_secs(60)).await;
        let (exact, source) = counts.count(&at, text);
        assert_eq!(source, Source::Server);
        let error = |n: usize| (n as f64 - real[i]).abs() / real[i];
        before[lang].push(error(maru::prompt::render::estimate_tokens(text)));
        after[lang].push(error(fitted));
        counted[lang].push(error(exact));
    }
    let mean = |v: &[f64]| 100.0 * v.iter().sum::<f64>() / v.len() as f64;
    for (lang, name) in ["English", "Korean"].iter().enumerate() {
        eprintln!(
            "token count error against llama.cpp (SmolLM2), {name}, mean of {}: estimate {:.1}%, fitted estimate {:.1}%, counted {:.1}%",
            before[lang].len(),
            mean(&before[lang]),
            mean(&after[lang]),
            mean(&counted[lang])
        );
        assert_eq!(mean(&counted[lang]), 0.0, "a counted text is the server's own count");
        assert!(
            mean(&after[lang]) < mean(&before[lang]).max(5.0),
            "{name}: the estimate fitted to the server's counts is closer than the plain one"
        );
    }
}

/// Hybrid search end to end against llama.cpp's own `/v1/embeddings`: a second llama-server in
/// embedding mode (`--embeddings`, as a user runs one beside the chat model) added as a server
/// and chosen as the embeddings model. SmolLM2's vectors are not meant to be good: this checks
/// the path (batches of the file's passages embedded and stored, the question embedded, the
/// outcome saying meaning was used), not the ranking, which the fake server's tests pin down.
#[tokio::test]
#[ignore = "needs llama-server: run through make test"]
async fn a_real_embeddings_server_embeds_the_files_and_search_uses_it() {
    let embedder = LlamaServer::start_with(2048, &["--embeddings", "--pooling", "mean"]).await.expect("set LLAMA_SERVER and SMOLLM_GGUF");
    let s = TestServer::start().await;
    let (status, added) = s.post("/api/connections", json!({ "name": "embeddings", "base_url": embedder.base_url })).await;
    assert!(status.is_success(), "the embeddings server is added like any other: {added}");
    let connection = added["id"].as_i64().unwrap();
    let (_, models) = s.get(&format!("/api/models?connection_id={connection}")).await;
    let model = models[0]["id"].as_str().unwrap_or_else(|| panic!("llama.cpp lists its model: {models}")).to_string();
    let (status, set) = s.patch("/api/settings", json!({ "embeddings": { "connection_id": connection, "model": model } })).await;
    assert!(status.is_success(), "choosing the embeddings model: {set}");

    let session = s.session(None, "").await;
    let notes: String = (1..=12).map(|n| format!("## Note {n}\n\nThe budget meeting number {n} moved to room {}.\n\n", n + 100)).collect();
    let file = s.attach_indexed(session, "notes.md", &notes).await;
    assert_eq!(file["status"], "ready", "{file}");
    let mut progress = json!(null);
    for _ in 0..600 {
        progress = s.get("/api/embeddings").await.1;
        if progress["passages"].as_u64().is_some_and(|n| n > 0) && progress["embedded"] == progress["passages"] {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(progress["embedded"], progress["passages"], "every passage of the file is embedded by the real server: {progress}");
    assert!(progress["failure"].is_null(), "no batch failed: {progress}");

    let ctx = maru::app::ToolContext { session_id: session, project_id: 1, message_id: None, store: s.app.store.clone() };
    let found = s.app.tools.run(ctx, "search_attachment", r#"{"query": "where is the budget meeting"}"#).await.expect("the tool runs");
    assert!(found.text.contains("notes.md") && found.text.contains("budget meeting"), "the search finds the notes: {}", found.text);
    let did = serde_json::to_value(&found.did).unwrap();
    assert_eq!(did["ranking"]["meaning"]["status"], "used", "the real server's vectors took part in the ranking: {did}");
}

/// A new chat's turns 2–10 each reuse what the turn before sent, with its title asked and a fact
/// learned between every two turns (memory on, facts accepted at once), on llama.cpp's own
/// settings (its host prompt cache on, `/props` as it answers) with one slot and with four.
/// The facts are scripted (the tiny model writes none); every other request is llama.cpp's.
/// Prints each turn's reuse.
#[tokio::test]
#[ignore = "needs llama-server: run through make test"]
async fn a_new_chats_turns_reuse_the_prefix_while_it_learns_facts() {
    use maru_tests::fake_openai::{FakeOpenAi, Reply};
    for slots in ["1", "4"] {
        let llama = LlamaServer::start_with(4096, &["-np", slots]).await.expect("set LLAMA_SERVER and SMOLLM_GGUF");
        let fake = FakeOpenAi::start().await;
        fake.forward_to(llama.base_url.clone());
        let props_url = format!("{}/props", llama.base_url.trim_end_matches("/v1"));
        fake.set_props(Some(reqwest::get(props_url).await.unwrap().json().await.unwrap()));
        let s = TestServer::start().await;
        let settings = json!({
            "endpoint_url": fake.base_url(), "model": "fake-model", "context_length": 4096, "temperature": 0.0,
            "max_tokens": 24, "memory_mode": "auto"
        });
        assert_eq!(s.patch("/api/settings", settings).await.0, 200);
        let sess = s.session(None, "").await;
        let mut turns = vec![];
        for i in 0..10 {
            fake.push_extraction(Reply::text([format!("[\"Grows {i} kinds of tomato on the balcony.\"]")]));
            let events = s.say(sess, &format!("I live in city number {i} and I like tea number {i}. Say hello.")).await;
            let done = events.iter().find(|e| e.name == "done").unwrap_or_else(|| panic!("turn {i}: {events:?}"));
            turns.push((
                done.data["message"]["prompt_tokens"].as_i64().unwrap(),
                done.data["message"]["cached_tokens"].as_i64().unwrap_or(0),
            ));
            maru_tests::eventually_within("the title and the extraction end", 120, || async {
                fake.extraction_requests().len() > i && !s.app.runs.extracting(sess)
            })
            .await;
        }
        let (_, facts) = s.get("/api/memories").await;
        assert!(!facts.as_array().unwrap().is_empty(), "facts were learned between the turns: {facts}");
        assert_eq!(fake.title_requests().len(), 1, "the title was asked, after the first exchange");
        for (i, pair) in turns.windows(2).enumerate() {
            let ratio = pair[1].1 as f64 / pair[0].0 as f64;
            println!("{slots} slot(s), turn {}: reused {ratio:.3} of the previous turn's prompt ({} of {})", i + 2, pair[1].1, pair[0].0);
        }
        for (i, pair) in turns.windows(2).enumerate() {
            let ratio = pair[1].1 as f64 / pair[0].0 as f64;
            assert!(
                ratio >= 0.95,
                "{slots} slot(s), turn {}: a fact learned in the chat changed its prompt, reuse {ratio:.3}: {turns:?}",
                i + 2
            );
        }
    }
}
