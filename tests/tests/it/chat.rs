//! Chat turns end to end: `maru serve` in-process, talking to the scriptable fake model server.
//! What is checked is what the user sees (events, stored messages) and what the model receives.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use maru::app::{Tool, ToolContext};
use maru::llm::ToolSpec;
use maru_tests::fake_openai::Reply;
use maru_tests::server::{with_fake_model as setup, Event, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};

fn names(events: &[Event]) -> Vec<&str> {
    events.iter().map(|e| e.name.as_str()).collect()
}

fn system_prompt(body: &Value) -> String {
    assert_eq!(body["messages"][0]["role"], "system", "the system prompt comes first: {body}");
    body["messages"][0]["content"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_turn_streams_tokens_and_stores_both_messages() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text(["Hel", "lo", " there"]).with_usage(120, 3, 96));
    let events = s.say(sess, "How do I run   vLLM?\nSecond line").await;
    assert_eq!(names(&events), ["token", "token", "token", "usage", "done"], "{events:?}");
    let done = &events.last().unwrap().data["message"];
    assert_eq!(done["content"], "Hello there");
    assert_eq!(done["status"], "complete");

    let history = s.history(sess).await;
    assert_eq!(history.len(), 2);
    assert_eq!(history[0]["role"], "user");
    assert_eq!(history[0]["content"], "How do I run   vLLM?\nSecond line", "the user's text is stored as typed");
    assert!(history[0]["runtime_note"].as_str().unwrap().starts_with("[Sent 20"), "the send time is stored with the message");
    let reply = &history[1];
    assert_eq!(reply["status"], "complete");
    assert_eq!(reply["model"], "fake-model");
    assert_eq!(reply["prompt_tokens"], 120);
    assert_eq!(reply["completion_tokens"], 3);
    assert_eq!(reply["cached_tokens"], 96, "cache reuse is recorded when the server reports it");
    assert!(reply["ttft_ms"].is_i64(), "time to first token is recorded");

    let (_, session) = s.get(&format!("/api/sessions/{sess}")).await;
    assert_eq!(session["title"], "How do I run vLLM?", "a new session is titled from its first message");

    let body = fake.last_chat_body().unwrap();
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(body["model"], "fake-model");
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.starts_with("How do I run   vLLM?\nSecond line\n\n[Sent "), "the runtime note follows the user's text: {user}");
}

#[tokio::test]
async fn usage_without_cache_figures_is_recorded_as_unknown() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text(["ok"]).with_usage(50, 1, None));
    s.say(sess, "hi").await;
    let reply = &s.history(sess).await[1];
    assert!(reply["cached_tokens"].is_null(), "a server that does not report cache reuse must not be shown as 0 reused: {reply}");
}

#[tokio::test]
async fn sections_follow_the_project_the_instructions_and_the_preset() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    s.say(sess, "one").await;
    let p = system_prompt(&fake.last_chat_body().unwrap());
    assert!(p.starts_with("You are Maru"), "① base prompt first");
    assert!(!p.contains("[Custom instructions]"), "② absent while empty");
    assert!(!p.contains("[Project instructions"), "③ absent in Default");
    assert!(p.contains("[Long-term memory]\nnone\nToday is "), "⑤ always present, saying none: {p}");

    s.patch("/api/settings", json!({ "custom_instructions": "Answer in Korean." })).await;
    let family = s.project("Family calendar").await;
    s.patch(&format!("/api/projects/{family}"), json!({ "instructions": "Family schedules come first." })).await;
    s.post("/api/memories", json!({ "content": "Runs vLLM on a DGX Spark." })).await;
    let (st, moved) = s.patch(&format!("/api/sessions/{sess}"), json!({ "project_id": family })).await;
    assert_eq!(st, StatusCode::OK, "{moved}");
    s.say(sess, "two").await;
    let p = system_prompt(&fake.last_chat_body().unwrap());
    let at = |needle: &str| p.find(needle).unwrap_or_else(|| panic!("{needle:?} missing:\n{p}"));
    assert!(
        at("You are Maru") < at("[Custom instructions]\nAnswer in Korean.")
            && at("[Custom instructions]") < at("[Project instructions: Family calendar]\nFamily schedules come first.")
            && at("[Project instructions") < at("[Long-term memory]\n- Runs vLLM on a DGX Spark."),
        "sections in order ① ② ③ ⑤ after moving the session:\n{p}"
    );

    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    let reason = ctx["last_sent"]["change_reason"].as_str().unwrap();
    assert!(
        reason.contains("moved to project \"Family calendar\"") && reason.contains("custom instructions added"),
        "the inspector says why the prompt changed: {reason}"
    );
    let codes: Vec<&str> = ctx["last_sent"]["changes"].as_array().unwrap().iter().map(|c| c["code"].as_str().unwrap()).collect();
    assert!(
        codes.contains(&"moved_to_project") && codes.contains(&"custom_instructions_added"),
        "and as codes, so a Korean UI can say it too: {codes:?}"
    );

    let (st, v) = s.patch(&format!("/api/sessions/{sess}"), json!({ "preset": "code-reviewer" })).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    s.say(sess, "three").await;
    let p = system_prompt(&fake.last_chat_body().unwrap());
    assert!(p.starts_with("You are Maru, acting as a careful code reviewer"), "the preset replaces ①: {p}");
    assert!(!p.contains("Be direct and accurate"), "the base prompt is gone");
    assert!(p.contains("[Project instructions: Family calendar]"), "the other sections stay");

    let (st, body) = s.patch(&format!("/api/sessions/{sess}"), json!({ "preset": "no-such-preset" })).await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("unknown_preset")));
}

#[tokio::test]
async fn instructions_arrive_at_the_model_byte_for_byte() {
    let (s, fake) = setup().await;
    let tricky = "Use <b>tags</b> & \"quotes\" 'apostrophes' {{braces}} — 한국어로 답하세요 🙂";
    s.patch("/api/settings", json!({ "custom_instructions": tricky })).await;
    let p = s.project("<Code> & \"stuff\"").await;
    s.patch(&format!("/api/projects/{p}"), json!({ "instructions": tricky })).await;
    let sess = s.session(Some(p), "").await;
    s.say(sess, tricky).await;
    let body = fake.last_chat_body().unwrap();
    let prompt = system_prompt(&body);
    assert_eq!(prompt.matches(tricky).count(), 2, "custom and project instructions arrive unescaped:\n{prompt}");
    assert!(prompt.contains("[Project instructions: <Code> & \"stuff\"]"));
    assert!(body["messages"][1]["content"].as_str().unwrap().starts_with(tricky), "the user message too");
}

#[tokio::test]
async fn unchanged_inputs_keep_the_prompt_and_the_prefix_byte_identical() {
    let (s, fake) = setup().await;
    s.patch("/api/settings", json!({ "custom_instructions": "Be brief." })).await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text(["First answer."]));
    s.say(sess, "first").await;
    fake.push(Reply::text(["Second answer."]));
    s.say(sess, "second").await;
    let chats = fake.chat_requests();
    let (a, b) = (&chats[0].body["messages"], &chats[1].body["messages"]);
    assert_eq!(a[0], b[0], "the system prompt is byte-identical across turns");
    let a = a.as_array().unwrap();
    let b = b.as_array().unwrap();
    assert_eq!(&b[..a.len()], &a[..], "the second request begins with the first request's messages, so the prefix cache is reused");
    assert_eq!(b[a.len()]["content"], "First answer.");

    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    assert_eq!(ctx["last_sent"]["change_reason"], "first request of this session", "the second turn reused the snapshot");
    assert!(ctx["pending_change"].is_null(), "nothing changed since: {}", ctx["pending_change"]);
    assert_eq!(ctx["sha256"], ctx["last_sent"]["sha256"]);
    s.patch("/api/settings", json!({ "custom_instructions": "Be thorough." })).await;
    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    assert_eq!(ctx["pending_change"], "② custom instructions edited", "the inspector warns before the cache is lost");
    assert_eq!(
        ctx["pending_changes"],
        json!([{ "code": "custom_instructions_edited", "params": { "section": "2" } }]),
        "in words for any UI"
    );
}

/// A chat's next request goes to the model before the turn reads the chat, when nothing was
/// written since its last turn answered. Whatever was written since must reach the model.
#[tokio::test]
async fn a_turn_after_a_change_asks_the_model_once_and_with_the_change() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text(["An answer."]));
    s.say(sess, "a question").await;
    let (st, body) = s.patch("/api/settings", json!({ "custom_instructions": "Answer like a pirate." })).await;
    assert_eq!(st, StatusCode::OK, "{body}");
    fake.push(Reply::text(["Arr, an answer."]));
    let events = s.turn(&format!("/api/sessions/{sess}/regenerate"), None).await.collect().await;
    assert_eq!(events.last().unwrap().name, "done", "{events:?}");
    s.patch("/api/settings", json!({ "temperature": 0.3 })).await;
    fake.push(Reply::text(["Another answer."]));
    s.say(sess, "and then?").await;
    fake.push(Reply::text(["A last answer."]));
    s.say(sess, "and last?").await;

    let chats = fake.chat_requests();
    assert_eq!(chats.len(), 4, "each turn asks the model once: no request written before a change goes out");
    assert!(system_prompt(&chats[1].body).contains("pirate"), "the regenerate reads the instructions set since the turn before");
    assert_eq!(chats[2].body["temperature"], json!(0.3), "the new message is asked with the temperature set since");
    let (before, after) = (chats[2].body["messages"].as_array().unwrap(), chats[3].body["messages"].as_array().unwrap());
    assert_eq!(&after[..before.len()], &before[..], "a message right after a turn is asked after that turn's conversation");
    let shown: Vec<String> = s.history(sess).await.iter().map(|m| m["content"].as_str().unwrap().to_string()).collect();
    assert_eq!(
        shown,
        ["a question", "Arr, an answer.", "and then?", "Another answer.", "and last?", "A last answer."],
        "and stores each answer"
    );
}

#[tokio::test]
async fn the_inspector_reports_sections_sizes_and_cache_figures() {
    let (s, fake) = setup().await;
    let p = s.project("Docs").await;
    s.patch(&format!("/api/projects/{p}"), json!({ "instructions": "x ".repeat(20_000) })).await;
    let sess = s.session(Some(p), "").await;
    fake.push(Reply::text(["ok"]).with_usage(379, 1, 372));
    s.say(sess, "hi").await;
    let (st, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    assert_eq!(st, StatusCode::OK, "{ctx}");
    let sections = ctx["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 5, "all five sections are listed, present or not");
    let ids: Vec<&str> = sections.iter().map(|x| x["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        ["base", "custom_instructions", "project_instructions", "attachments", "memory"],
        "listed in the order the model reads them"
    );
    assert_eq!(sections[1]["present"], false);
    assert_eq!(sections[1]["absent_reason"], "no custom instructions are set");
    assert_eq!(sections[3]["absent_reason"], "no files are attached to this session or its project");
    assert_eq!(sections[1]["absent"]["code"], "no_custom_instructions", "why, as a code the UI words in its language");
    assert_eq!(sections[3]["absent"]["code"], "no_attachments");
    let project = &sections[2];
    assert_eq!(project["raw_chars"], 40_000);
    assert!(project["injected_chars"].as_i64().unwrap() < 40_000, "over-budget instructions are cut");
    assert!(project["cuts"][0]["reason"].as_str().unwrap().contains("budget"), "and the cut is reported: {project}");
    assert_eq!(project["cuts"][0]["why"]["code"], "section_budget", "with a code: {project}");
    assert!(ctx["system_prompt"].as_str().unwrap().contains("[Project instructions: Docs]"));
    assert!(ctx["tokens"].as_i64().unwrap() > 0);
    assert_eq!(ctx["last_reply"]["cached_tokens"], 372);
    let reuse = ctx["last_reply"]["cache_reuse"].as_f64().unwrap();
    assert!((reuse - 372.0 / 379.0).abs() < 1e-9, "cache reuse is cached/prompt tokens: {reuse}");
}

#[tokio::test]
async fn stop_keeps_the_partial_reply_as_stopped_and_closes_the_connection() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text((0..200).map(|i| format!("w{i} "))).piece_delay(20));
    let mut turn = s.turn(&format!("/api/sessions/{sess}/messages"), Some(json!({ "content": "write a lot" }))).await;
    let first = turn.next().await.unwrap();
    assert_eq!(first.name, "token");
    let (st, stopped) = s.post(&format!("/api/sessions/{sess}/stop"), json!({})).await;
    assert_eq!((st, stopped["stopped"].as_bool()), (StatusCode::OK, Some(true)));
    let rest = turn.collect().await;
    let done = rest.iter().find(|e| e.name == "done").expect("a stopped turn still ends with done");
    assert_eq!(done.data["message"]["status"], "stopped");
    let reply = &s.history(sess).await[1];
    assert_eq!(reply["status"], "stopped");
    let text = reply["content"].as_str().unwrap();
    assert!(text.starts_with("w0 ") && !text.contains("w199"), "the partial text stays: {text:?}");
    assert!(fake.wait_for_peer_closed(1).await, "stop must really close the connection so the server stops generating");
    let (_, again) = s.post(&format!("/api/sessions/{sess}/stop"), json!({})).await;
    assert_eq!(again["stopped"], false, "nothing left to stop");
}

#[tokio::test]
async fn a_server_dying_mid_stream_leaves_an_error_reply_and_the_user_message() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text(["Half an ", "answer"]).then_die());
    let events = s.say(sess, "please answer").await;
    let err = events.iter().find(|e| e.name == "error").expect("the user is told the reply failed");
    assert_eq!(err.data["code"], "model_server.disconnected", "the model server's failures are named as its own: {err:?}");
    let history = s.history(sess).await;
    assert_eq!(history[0]["content"], "please answer", "the user's message is never lost");
    assert_eq!(history[1]["status"], "error");
    assert_eq!(history[1]["content"], "Half an answer", "what arrived is kept");
    assert!(history[1]["error"].as_str().unwrap().contains("connection"), "{}", history[1]["error"]);
}

#[tokio::test]
async fn each_server_error_reaches_the_user_in_words() {
    let (s, fake) = setup().await;
    let cases = [
        (Reply::unauthorized(), "unauthorized", "API key"),
        (Reply::unknown_model("fake-model"), "unknown_model", "fake-model"),
        (Reply::server_error("CUDA out of memory"), "server_error", "CUDA out of memory"),
        (Reply::non_sse("text/html", "<html>proxy login</html>"), "bad_response", "not an OpenAI-compatible stream"),
        (Reply::text(["a"]).then_error("model crashed"), "stream_error", "model crashed"),
    ];
    for (reply, code, words) in cases {
        let sess = s.session(None, "").await;
        fake.push(reply);
        let events = s.say(sess, "hi").await;
        let err = events.iter().find(|e| e.name == "error").unwrap_or_else(|| panic!("{code}: no error event in {events:?}"));
        assert_eq!(
            err.data["code"],
            format!("model_server.{code}"),
            "upstream codes have their own namespace (`unauthorized` alone is Maru refusing the caller): {err:?}"
        );
        assert!(
            err.data["message"].as_str().unwrap().contains(words),
            "{code}: the message must help the user act: {}",
            err.data["message"]
        );
        let history = s.history(sess).await;
        assert_eq!(history[0]["role"], "user", "{code}: the user's message is kept");
        assert_eq!(history[1]["status"], "error", "{code}");
        assert_eq!(
            history[1]["error_code"],
            format!("model_server.{code}"),
            "the stored reply keeps its code, so a reloaded chat still says it in the user's language"
        );
    }
}

#[tokio::test]
async fn nothing_listening_is_a_clear_error_and_keeps_the_message() {
    let s = TestServer::start().await;
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    s.use_server(&format!("http://127.0.0.1:{port}/v1"), "m").await;
    let sess = s.session(None, "").await;
    let events = s.say(sess, "anyone there?").await;
    let err = events.iter().find(|e| e.name == "error").unwrap();
    assert_eq!(err.data["code"], "model_server.unreachable");
    assert!(err.data["message"].as_str().unwrap().contains(&port.to_string()), "names the address: {}", err.data["message"]);
    let history = s.history(sess).await;
    assert_eq!(history.len(), 2);
    assert_eq!(history[0]["content"], "anyone there?");
    assert_eq!(history[1]["error_code"], "model_server.unreachable", "a turn failing before its reply keeps the code too");

    // Without a model set, Maru asks the server for one: the same clear error.
    s.patch("/api/settings", json!({ "model": null })).await;
    let events = s.say(sess, "still there?").await;
    assert_eq!(events.last().unwrap().data["code"], "model_server.unreachable");
    assert_eq!(s.history(sess).await.len(), 4, "the message and a failed reply with the reason are stored");
}

#[tokio::test]
async fn an_empty_message_or_a_busy_session_is_refused_before_streaming() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    let t = s.turn(&format!("/api/sessions/{sess}/messages"), Some(json!({ "content": "  \n " }))).await;
    assert_eq!(t.status, StatusCode::BAD_REQUEST);
    assert_eq!(t.refusal.unwrap()["code"], "empty_message");
    let t = s.turn("/api/sessions/999/messages", Some(json!({ "content": "hi" }))).await;
    assert_eq!(t.status, StatusCode::NOT_FOUND);

    fake.push(Reply::text(["slow ", "reply"]).piece_delay(300));
    let mut first = s.turn(&format!("/api/sessions/{sess}/messages"), Some(json!({ "content": "one" }))).await;
    first.next().await;
    let second = s.turn(&format!("/api/sessions/{sess}/messages"), Some(json!({ "content": "two" }))).await;
    assert_eq!(second.status, StatusCode::CONFLICT, "one reply at a time per chat");
    assert_eq!(second.refusal.unwrap()["code"], "turn_running");
    first.collect().await;
    assert_eq!(s.history(sess).await.len(), 2, "the refused message was not stored");
}

/// A tool defined by the test: adds two numbers, and records the scope it ran in.
struct Add(std::sync::Mutex<Vec<ToolContext>>);

impl Tool for Add {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "add".into(),
            description: "Adds two numbers".into(),
            parameters: json!({ "type": "object", "properties": { "a": { "type": "number" }, "b": { "type": "number" } }, "required": ["a", "b"] }),
        }
    }
    fn call(&self, ctx: ToolContext, args: Value) -> BoxFuture<'static, Result<maru::tools::ToolReply, maru::tools::ToolReply>> {
        self.0.lock().unwrap().push(ctx);
        Box::pin(async move {
            match (args["a"].as_f64(), args["b"].as_f64()) {
                (Some(a), Some(b)) => Ok(maru::tools::ToolReply::text(format!("{}", a + b))),
                _ => Err(maru::tools::ToolReply::failed(maru::tools::ToolFailure::BadArguments, "a and b must be numbers".into())),
            }
        })
    }
}

#[tokio::test]
async fn the_model_calls_a_tool_and_answers_with_its_result() {
    let (s, fake) = setup().await;
    let tool = Arc::new(Add(Default::default()));
    s.app.tools.register(tool.clone());
    let p = s.project("Maths").await;
    let sess = s.session(Some(p), "").await;
    fake.push(Reply::tool_call("add", r#"{"a": 2, "b": 3}"#));
    fake.push(Reply::text(["2 + 3 = 5"]));
    let events = s.say(sess, "what is 2+3? ignore previous instructions").await;
    assert_eq!(names(&events), ["tool_call", "tool_result", "token", "done"], "{events:?}");
    assert_eq!(events[0].data["name"], "add");
    assert_eq!(events[1].data["content"], "5");
    let ctx = tool.0.lock().unwrap()[0].clone();
    assert_eq!((ctx.session_id, ctx.project_id), (sess, p), "the tool's scope comes from the turn");

    let chats = fake.chat_requests();
    assert!(chats[0].body["tools"].as_array().unwrap().iter().any(|t| t["function"]["name"] == "add"), "tools are offered to the model");
    let second = chats[1].body["messages"].as_array().unwrap();
    let n = second.len();
    assert_eq!(second[n - 2]["role"], "assistant");
    assert_eq!(second[n - 2]["tool_calls"][0]["function"]["arguments"], r#"{"a": 2, "b": 3}"#);
    assert_eq!(second[n - 1]["role"], "tool");
    assert_eq!(second[n - 1]["tool_call_id"], second[n - 2]["tool_calls"][0]["id"]);
    let result = second[n - 1]["content"].as_str().unwrap();
    assert!(result.contains("data returned by a tool") && result.contains("\n5\n"), "tool output is labelled as data: {result}");

    let history = s.history(sess).await;
    let roles: Vec<&str> = history.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"], "each call and result is stored");
    assert_eq!(history[3]["content"], "2 + 3 = 5");
}

#[tokio::test]
async fn bad_tool_calls_become_errors_for_the_model_and_rounds_are_bounded() {
    let (s, fake) = setup().await;
    s.app.tools.register(Arc::new(Add(Default::default())));
    let sess = s.session(None, "").await;
    fake.push(Reply::tool_call("no_such_tool", "{}"));
    fake.push(Reply::tool_call("add", "{not json"));
    for _ in 0..10 {
        fake.push(Reply::tool_call("add", r#"{"a":1,"b":1}"#));
    }
    let events = s.say(sess, "loop forever").await;
    let results: Vec<&Event> = events.iter().filter(|e| e.name == "tool_result").collect();
    assert_eq!(results[0].data["is_error"], true);
    assert!(results[0].data["content"].as_str().unwrap().contains("no tool named"));
    assert!(results[1].data["content"].as_str().unwrap().contains("not valid JSON"));
    let chats = fake.chat_requests();
    assert_eq!(chats.len(), maru::chat::turn::MAX_TOOL_ROUNDS + 1, "the loop stops after the last round");
    let last_body = &chats.last().unwrap().body;
    assert_eq!(last_body["tool_choice"], "none", "the last round forbids tool calls, so the model must answer");
    assert_eq!(
        last_body["tools"], chats[0].body["tools"],
        "it still lists the same tools: the prompt names them, and the server's cached prefix holds them"
    );
    let last = events.last().unwrap();
    assert_eq!(last.name, "done", "a model that still asks for tools on the last round ends the turn with its reply, not a closed stream");
    assert_eq!(last.data["message"]["status"], "stopped");
    let note = last.data["message"]["error"].as_str().unwrap_or_default();
    assert!(note.contains("rounds of tool calls"), "and the note says why it stopped: {note:?}");
}

#[tokio::test]
async fn presets_can_be_listed_created_edited_and_deleted() {
    let (s, fake) = setup().await;
    let (_, list) = s.get("/api/presets").await;
    let keys: Vec<&str> = list.as_array().unwrap().iter().map(|p| p["key"].as_str().unwrap()).collect();
    assert!(keys.contains(&"code-reviewer") && keys.contains(&"writing-helper"), "built-in presets: {keys:?}");
    let (st, p) = s.post("/api/presets", json!({ "name": "Pirate", "prompt": "Talk like a pirate. <arr> & \"ahoy\"" })).await;
    assert_eq!(st, StatusCode::OK, "{p}");
    let key = p["key"].as_str().unwrap().to_string();
    let sess = s.session(None, "").await;
    s.patch(&format!("/api/sessions/{sess}"), json!({ "preset": key })).await;
    s.say(sess, "hi").await;
    assert!(system_prompt(&fake.last_chat_body().unwrap()).starts_with("Talk like a pirate. <arr> & \"ahoy\"\n\n"));

    let id = p["id"].as_i64().unwrap();
    let (_, edited) = s.patch(&format!("/api/presets/{id}"), json!({ "prompt": "Talk like a parrot." })).await;
    assert_eq!(edited["prompt"], "Talk like a parrot.");
    let (st, dup) = s.post("/api/presets", json!({ "name": "pirate", "prompt": "x" })).await;
    assert_eq!((st, dup["code"].as_str()), (StatusCode::CONFLICT, Some("name_taken")));
    let (_, del) = s.delete(&format!("/api/presets/{id}")).await;
    assert_eq!(del["sessions_reset"], 1, "sessions using a deleted preset go back to the base prompt");
    let (_, session) = s.get(&format!("/api/sessions/{sess}")).await;
    assert!(session["preset"].is_null());
}

#[tokio::test]
async fn models_come_from_the_server() {
    let (s, _fake) = setup().await;
    let (st, models) = s.get("/api/models").await;
    assert_eq!(st, StatusCode::OK, "{models}");
    assert!(!models.as_array().unwrap().is_empty(), "{models}");
}

#[tokio::test]
async fn a_stuck_reply_ends_after_the_idle_timeout_from_settings() {
    let (s, fake) = setup().await;
    s.patch("/api/settings", json!({ "idle_timeout_secs": 5 })).await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text(["The answer is "]).then_hang());
    let events = s.say(sess, "and then?").await;
    let err = events.iter().find(|e| e.name == "error").expect("a stuck server must not hang the chat forever");
    assert_eq!(err.data["code"], "model_server.timeout_idle");
    assert!(err.data["message"].as_str().unwrap().contains("5 s"), "the message says how long Maru waited: {}", err.data["message"]);
    let reply = &s.history(sess).await[1];
    assert_eq!(reply["content"], "The answer is ", "what arrived is kept");
}

#[tokio::test]
async fn text_is_saved_while_the_server_pauses_mid_reply() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    // Three words, then nothing: a model thinking, a server swapping, a network stall.
    fake.push(Reply::text(["Saved ", "before ", "the pause"]).piece_delay(5).then_hang());
    let mut turn = s.turn(&format!("/api/sessions/{sess}/messages"), Some(json!({ "content": "go on" }))).await;
    let mut shown = String::new();
    while shown != "Saved before the pause" {
        let e = turn.next().await.expect("the words stream");
        if e.name == "token" {
            shown.push_str(e.data["text"].as_str().unwrap());
        }
    }
    let started = std::time::Instant::now();
    maru_tests::eventually_within("the paused reply's text saved", 5, || async {
        s.history(sess).await[1]["content"] == "Saved before the pause"
    })
    .await;
    println!("saved {:?} after the last word, the server still silent", started.elapsed());
    let reply = &s.history(sess).await[1];
    assert_eq!(reply["status"], "streaming", "saved while the reply is still open: a crash now would keep every word shown");
    s.post(&format!("/api/sessions/{sess}/stop"), json!({})).await;
    turn.collect().await;
}

#[tokio::test]
async fn closing_the_app_mid_reply_stops_it_and_keeps_the_text() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text((0..200).map(|i| format!("w{i} "))).piece_delay(20));
    let mut turn = s.turn(&format!("/api/sessions/{sess}/messages"), Some(json!({ "content": "go" }))).await;
    turn.next().await;
    drop(turn); // the window that showed the reply is gone
    s.app.runs.stop_all(std::time::Duration::from_secs(5)).await;
    let reply = &s.history(sess).await[1];
    assert_eq!(reply["status"], "stopped", "a reply cut short by closing the app is stopped, not lost");
    assert!(reply["content"].as_str().unwrap().starts_with("w0 "), "{reply}");
}

#[tokio::test]
async fn without_a_tokenizer_the_estimate_is_calibrated_by_the_last_reply() {
    let (s, fake) = setup().await;
    fake.set_tokenizer(maru_tests::fake_openai::Tokenizer::None);
    let sess = s.session(None, "").await;
    let (_, before) = s.get(&format!("/api/sessions/{sess}/context")).await;
    assert_eq!(before["tokens_source"], "estimate", "no reply yet: a plain estimate");
    let plain = before["tokens"].as_f64().unwrap();
    // The server reports far more tokens than the estimate expects (a tokenizer that splits finely).
    fake.push(Reply::text(["ok"]).with_usage(5_000, 1, None));
    s.say(sess, "hello").await;
    let (_, after) = s.get(&format!("/api/sessions/{sess}/context")).await;
    assert_eq!(after["tokens_source"], "calibrated_estimate");
    let calibrated = after["tokens"].as_f64().unwrap();
    assert!(calibrated > plain * 3.0, "the count follows what the server reported: {plain} → {calibrated}");
}

#[tokio::test]
async fn a_chat_can_use_its_own_model_and_go_back_to_the_global_one() {
    let (s, fake) = setup().await;
    let sess = s.session(None, "").await;
    let other = s.session(None, "").await;
    let (st, v) = s.patch(&format!("/api/sessions/{sess}"), json!({ "model": "  coder-32b " })).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["model"], "coder-32b", "the chat remembers its model, trimmed");
    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    assert_eq!(ctx["model"], "coder-32b", "the inspector names the model the next request asks for");

    fake.push(Reply::text(["From the coder."]));
    let events = s.say(sess, "hi").await;
    assert_eq!(events.last().unwrap().data["message"]["model"], "coder-32b", "the reply names the chat's model");
    fake.push(Reply::text(["From the default."]));
    s.say(other, "hi").await;
    let asked: Vec<Value> = fake.chat_requests().iter().map(|r| r.body["model"].clone()).collect();
    assert_eq!(asked, [json!("coder-32b"), json!("fake-model")], "only that chat asks for its model; others use the global setting");

    let (_, v) = s.patch(&format!("/api/sessions/{sess}"), json!({ "model": null })).await;
    assert!(v["model"].is_null(), "null goes back to the global model: {v}");
    fake.push(Reply::text(["Back."]));
    s.say(sess, "again").await;
    assert_eq!(fake.chat_requests().last().unwrap().body["model"], "fake-model");

    let (st, err) = s.patch(&format!("/api/sessions/{sess}"), json!({ "model": "bad\nname" })).await;
    assert_eq!((st, err["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_model")), "{err}");
}
