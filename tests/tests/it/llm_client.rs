//! The model-server client (`maru::llm`) against the fake OpenAI-compatible server: streaming,
//! SSE edge cases, tool calls, every error class, timeouts, retries, cancellation, API key,
//! model list, tokenize and the local-port probe.
//!
//! Timeouts here are short only to trigger a phase on purpose, or long only to stop a broken
//! test from hanging; no assertion is about how fast anything was.

use std::time::Duration;

use futures_util::StreamExt;
use maru::llm::{
    probe_ports, CancellationToken, ChatMessage, ChatRequest, ChatStream, Client, Delta, Endpoint, LlmError, ModelInfo, TimeoutPhase,
    Timeouts, ToolCall, ToolSpec, Usage,
};
use maru_tests::fake_openai::{FakeModel, FakeOpenAi, Reply, Tokenizer, DEFAULT_REPLY};
use serde_json::json;

/// Long enough never to fire in a passing test.
fn relaxed() -> Timeouts {
    Timeouts { connect: Duration::from_secs(10), first_byte: Duration::from_secs(30), idle: Duration::from_secs(30) }
}

fn client(fake: &FakeOpenAi) -> Client {
    Client::new(Endpoint::new(fake.base_url()), relaxed())
}

fn request() -> ChatRequest {
    ChatRequest::new("fake-model", vec![ChatMessage::system("be brief"), ChatMessage::user("hi")])
}

/// Everything the stream yields until it ends (bounded, so a bug cannot hang the suite).
async fn drain(mut stream: ChatStream) -> (Vec<Delta>, Option<LlmError>) {
    let mut deltas = Vec::new();
    let mut error = None;
    let all = async {
        while let Some(item) = stream.next().await {
            match item {
                Ok(d) => deltas.push(d),
                Err(e) => {
                    assert!(error.is_none(), "a stream yields at most one error, then ends");
                    error = Some(e);
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), all).await.expect("the stream must end");
    (deltas, error)
}

/// Sends `request()` and drains the reply; a failure to start is returned as the error.
async fn turn(client: &Client) -> (Vec<Delta>, Option<LlmError>) {
    match client.stream_chat(&request(), CancellationToken::new()).await {
        Ok(stream) => drain(stream).await,
        Err(e) => (Vec::new(), Some(e)),
    }
}

fn text(deltas: &[Delta]) -> String {
    deltas.iter().filter_map(|d| if let Delta::Content(c) = d { Some(c.as_str()) } else { None }).collect()
}

fn reasoning(deltas: &[Delta]) -> String {
    deltas.iter().filter_map(|d| if let Delta::Reasoning(c) = d { Some(c.as_str()) } else { None }).collect()
}

fn finished(deltas: &[Delta]) -> (Option<String>, Vec<ToolCall>) {
    let all: Vec<_> = deltas
        .iter()
        .filter_map(|d| match d {
            Delta::Finished { finish_reason, tool_calls } => Some((finish_reason.clone(), tool_calls.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(all.len(), 1, "Finished must come exactly once, or the chat engine ends a turn twice: {deltas:?}");
    all.into_iter().next().unwrap()
}

fn usage(deltas: &[Delta]) -> Option<Usage> {
    deltas.iter().rev().find_map(|d| if let Delta::Usage(u) = d { Some(*u) } else { None })
}

fn expect_error(result: (Vec<Delta>, Option<LlmError>), code: &str, why: &str) -> (Vec<Delta>, LlmError) {
    let (deltas, error) = result;
    let error = error.unwrap_or_else(|| panic!("expected {code} ({why}), got a clean reply: {deltas:?}"));
    assert_eq!(error.code(), code, "{why}: {error}");
    (deltas, error)
}

async fn closed_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

// ---- streaming ----------------------------------------------------------------------------

#[tokio::test]
async fn streams_text_with_usage_and_cached_tokens() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text(["Hel", "lo", ", 마루"]).with_usage(12, 3, 8));
    let (deltas, error) = turn(&client(&fake)).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(text(&deltas), "Hello, 마루", "the user must see every piece, in order");
    assert_eq!(finished(&deltas).0.as_deref(), Some("stop"));
    assert_eq!(
        usage(&deltas),
        Some(Usage { prompt_tokens: Some(12), completion_tokens: Some(3), cached_tokens: Some(8) }),
        "the context inspector shows prompt-cache reuse from this"
    );
    assert_eq!(fake.peer_closed_streams(), 0, "a completed reply is not a hang-up (the counter means what it says)");
}

#[tokio::test]
async fn missing_cached_tokens_stay_unknown_and_llama_timings_fill_them() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text(["a"]).with_usage(12, 1, None));
    fake.push(Reply::text(["a"]).with_llama_timings(7, 372, 1));
    let (deltas, _) = turn(&client(&fake)).await;
    assert_eq!(usage(&deltas).unwrap().cached_tokens, None, "unknown must not be shown as '0 tokens reused'");
    let (deltas, _) = turn(&client(&fake)).await;
    assert_eq!(
        usage(&deltas),
        Some(Usage { prompt_tokens: Some(379), completion_tokens: Some(1), cached_tokens: Some(372) }),
        "llama.cpp reports cache reuse only in timings"
    );
}

#[tokio::test]
async fn empty_script_streams_the_default_reply() {
    let fake = FakeOpenAi::start().await;
    let (deltas, error) = turn(&client(&fake)).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(text(&deltas), DEFAULT_REPLY);
    assert!(usage(&deltas).is_some());
}

#[tokio::test]
async fn sends_the_openai_streaming_body() {
    let fake = FakeOpenAi::start().await;
    let mut req = request();
    req.temperature = Some(0.25);
    req.tools.push(ToolSpec { name: "search".into(), description: "find".into(), parameters: json!({"type": "object"}) });
    drain(client(&fake).stream_chat(&req, CancellationToken::new()).await.unwrap()).await;
    let sent = fake.chat_requests().pop().expect("one chat request");
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.body["stream"], json!(true), "without stream:true the user waits for the whole reply");
    assert_eq!(sent.body["stream_options"], json!({"include_usage": true}), "usage feeds the token budget");
    assert_eq!(sent.body["model"], json!("fake-model"));
    assert_eq!(sent.body["messages"], json!([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]));
    assert_eq!(sent.body["temperature"], json!(0.25));
    assert_eq!(sent.body["tools"][0]["function"]["name"], json!("search"));
    assert!(sent.body.get("top_p").is_none() && sent.body.get("max_tokens").is_none(), "unset options use the server's defaults");
    assert_eq!(sent.header("authorization"), None, "no key configured, none sent");
    assert!(sent.header("accept").unwrap_or("").contains("text/event-stream"));
}

#[tokio::test]
async fn reasoning_is_kept_apart_from_the_answer() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::reasoning(["Let me ", "think."], ["The answer", " is 4."]));
    let (deltas, error) = turn(&client(&fake)).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(reasoning(&deltas), "Let me think.", "thinking is shown folded, apart from the answer");
    assert_eq!(text(&deltas), "The answer is 4.", "thinking must not leak into the answer");
}

#[tokio::test]
async fn a_tool_call_is_assembled_from_pieces() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::tool_call("search_attachment", r#"{"query":"회의록","file":"notes.md"}"#));
    let (deltas, error) = turn(&client(&fake)).await;
    assert!(error.is_none(), "{error:?}");
    let (reason, calls) = finished(&deltas);
    assert_eq!(reason.as_deref(), Some("tool_calls"));
    assert_eq!(
        calls,
        vec![ToolCall {
            id: "call_fake_0".into(),
            name: "search_attachment".into(),
            arguments: r#"{"query":"회의록","file":"notes.md"}"#.into()
        }],
        "the tool must receive exactly the arguments the model wrote"
    );
}

#[tokio::test]
async fn interleaved_tool_calls_are_kept_apart_by_index() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::tool_calls([("search", r#"{"q":"alpha beta"}"#), ("remember", r#"{"fact":"likes tea"}"#)]).with_text(["Looking."]));
    let (deltas, _) = turn(&client(&fake)).await;
    assert_eq!(text(&deltas), "Looking.");
    let (_, calls) = finished(&deltas);
    assert_eq!(calls.len(), 2, "two calls must not be merged into one");
    assert_eq!((calls[0].name.as_str(), calls[0].arguments.as_str()), ("search", r#"{"q":"alpha beta"}"#));
    assert_eq!((calls[1].name.as_str(), calls[1].arguments.as_str()), ("remember", r#"{"fact":"likes tea"}"#));
}

// ---- SSE edge cases (raw bytes) --------------------------------------------------------------

fn content_chunk(text: &str) -> String {
    json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]}).to_string()
}

const FINISH: &str = r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#;

#[tokio::test]
async fn events_split_anywhere_and_packed_together_parse_the_same() {
    let whole = format!(
        ": ping\n\ndata: {}\r\n\r\ndata: {}\r\rdata: {}\r\rdata: {FINISH}\n\ndata: {{\"choices\":[],\"usage\":{{\"prompt_tokens\":5,\"completion_tokens\":3}}}}\n\ndata: [DONE]\n\n",
        content_chunk("안녕"),
        content_chunk("하세요"),
        content_chunk(" 🙂"),
    );
    let bytes = whole.into_bytes();
    // One byte per write: splits every UTF-8 character and every CRLF.
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::raw(bytes.iter().map(|b| vec![*b]).collect::<Vec<_>>()));
    // Everything in a single write: several events per read.
    fake.push(Reply::raw([bytes.clone()]));
    for how in ["one byte per read", "one read"] {
        let (deltas, error) = turn(&client(&fake)).await;
        assert!(error.is_none(), "{how}: {error:?}");
        assert_eq!(text(&deltas), "안녕하세요 🙂", "{how}: split characters must not turn into �");
        assert_eq!(usage(&deltas).unwrap().prompt_tokens, Some(5), "{how}: the usage chunk has empty choices");
        finished(&deltas);
    }
}

#[tokio::test]
async fn multi_line_data_comments_and_other_fields() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::raw([
        "event: message\nid: 1\nretry: 100\n: keep-alive\ndata: {\"choices\":[{\"index\":0,\n",
        "data: \"delta\":{\"content\":\"joined\"}}]}\n\n",
        "data: ",
        FINISH,
        "\n\ndata: [DONE]\n\n",
    ]));
    let (deltas, error) = turn(&client(&fake)).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(text(&deltas), "joined", "multi-line data is one event joined with newlines");
}

#[tokio::test]
async fn nothing_after_done_is_read() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::raw([format!("data: {}\n\ndata: [DONE]\n\ndata: not json at all\n\n", content_chunk("ok"))]));
    let (deltas, error) = turn(&client(&fake)).await;
    assert!(error.is_none(), "[DONE] ends the reply; anything after it is not ours: {error:?}");
    assert_eq!(text(&deltas), "ok");
    assert_eq!(finished(&deltas).0, None, "[DONE] without finish_reason still finishes");
}

#[tokio::test]
async fn finish_without_done_then_end_of_body_is_complete() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::raw([format!("data: {}\n\ndata: {FINISH}\n\n", content_chunk("fine"))]));
    let (deltas, error) = turn(&client(&fake)).await;
    assert!(error.is_none(), "a finished reply is complete even if [DONE] never comes: {error:?}");
    assert_eq!(text(&deltas), "fine");
}

#[tokio::test]
async fn finish_then_silence_ends_the_reply_without_error() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::raw([format!("data: {}\n\ndata: {FINISH}\n\n", content_chunk("done"))]).then_hang());
    let (deltas, error) = turn(&with_timeouts(&fake, 30_000, 300)).await;
    assert!(error.is_none(), "the answer was complete; a missing [DONE] must not turn it into an error: {error:?}");
    assert_eq!(text(&deltas), "done");
}

#[tokio::test]
async fn non_json_data_is_a_bad_response() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::raw(["data: <html>proxy error</html>\n\n"]));
    expect_error(turn(&client(&fake)).await, "bad_response", "garbage must not be shown as an answer");
}

// ---- errors mid-stream and broken streams ------------------------------------------------------

#[tokio::test]
async fn an_error_object_mid_stream_is_an_error() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text(["partial"]).then_error("CUDA out of memory"));
    let (deltas, error) = expect_error(turn(&client(&fake)).await, "stream_error", "the reply stopped for a reason");
    assert_eq!(text(&deltas), "partial", "what arrived before the error is kept");
    assert!(error.to_string().contains("CUDA out of memory"), "the server's reason helps the user: {error}");

    fake.push(Reply::raw([r#"data: {"object":"error","message":"engine dead","type":"InternalServerError","code":500}"#, "\n\n"]));
    let (_, error) = expect_error(turn(&client(&fake)).await, "stream_error", "vLLM's error shape");
    assert!(error.to_string().contains("engine dead"));
}

#[tokio::test]
async fn a_server_dying_mid_stream_is_a_disconnect_and_is_not_retried() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text(["Hel", "lo"]).then_die());
    let (deltas, error) = expect_error(turn(&client(&fake)).await, "disconnected", "a half answer must not look complete");
    assert_eq!(text(&deltas), "Hello");
    assert!(error.to_string().contains("connection"), "{error}");
    assert_eq!(fake.chat_requests().len(), 1, "after bytes arrived a retry would duplicate text");
}

#[tokio::test]
async fn a_clean_end_of_body_without_finish_is_a_disconnect() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text(["Hel"]).then_eof());
    expect_error(turn(&client(&fake)).await, "disconnected", "no [DONE] and no finish_reason: the reply is cut");
    fake.push(Reply::raw([format!("data: {}\n\ndata: {{\"choi", content_chunk("Hel"))]).then_die());
    expect_error(turn(&client(&fake)).await, "disconnected", "half a chunk then death");
}

#[tokio::test]
async fn a_reply_that_is_not_an_event_stream_is_a_bad_response() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::non_sse("text/html", "<html><title>Sign in</title></html>"));
    let (_, error) = expect_error(turn(&client(&fake)).await, "bad_response", "an HTML page is not a model reply");
    assert!(error.to_string().contains("text/html") && error.to_string().contains("Sign in"), "{error}");

    fake.push(Reply::non_sse("application/json", r#"{"id":"x","choices":[{"message":{"content":"hi"}}]}"#));
    expect_error(turn(&client(&fake)).await, "bad_response", "a non-streamed body is not an event stream");

    fake.push(Reply::non_sse("application/json", r#"{"error":"Unexpected endpoint or method."}"#));
    let (_, error) = expect_error(turn(&client(&fake)).await, "stream_error", "a 200 carrying an error object");
    assert!(error.to_string().contains("Unexpected endpoint"), "{error}");
}

// ---- HTTP errors -------------------------------------------------------------------------------

#[tokio::test]
async fn http_errors_map_to_distinct_actionable_errors() {
    let fake = FakeOpenAi::start().await;
    let c = client(&fake);

    fake.push(Reply::unauthorized());
    let (_, e) = expect_error(turn(&c).await, "unauthorized", "401");
    assert!(e.to_string().contains("requires an API key"), "tell the user to enter a key: {e}");

    fake.push(Reply::unknown_model("fake-model"));
    let (_, e) = expect_error(turn(&c).await, "unknown_model", "vLLM's 404 for a model it does not serve");
    assert!(e.to_string().contains("fake-model") && e.to_string().contains("model list"), "{e}");

    fake.push(Reply::status(400, r#"{"error":{"message":"model 'fake-model' not found"}}"#));
    expect_error(turn(&c).await, "unknown_model", "a 400 that says the model is missing");

    fake.push(Reply::context_too_long());
    let (_, e) = expect_error(turn(&c).await, "context_too_long", "vLLM's wording; the chat engine compacts and retries");
    assert!(e.to_string().contains("4096"), "keep the server's numbers: {e}");

    fake.push(Reply::llama_context_too_long());
    expect_error(turn(&c).await, "context_too_long", "llama.cpp's wording");

    fake.push(Reply::status(422, r#"{"detail":"temperature must be <= 2"}"#));
    let (_, e) = expect_error(turn(&c).await, "rejected", "other 4xx");
    assert!(e.to_string().contains("422") && e.to_string().contains("temperature"), "{e}");

    fake.push(Reply::server_error("KV cache allocation failed"));
    let (_, e) = expect_error(turn(&c).await, "server_error", "5xx");
    assert!(e.to_string().contains("500") && e.to_string().contains("KV cache allocation failed"), "{e}");
    assert_eq!(fake.chat_requests().len(), 7, "none of these is retried");
}

#[tokio::test]
async fn a_base_url_without_v1_gives_not_found_with_advice() {
    let fake = FakeOpenAi::start().await;
    let c = Client::new(Endpoint::new(fake.base_url().trim_end_matches("/v1")), relaxed());
    let (_, e) = expect_error(turn(&c).await, "not_found", "the route does not exist at all");
    assert!(e.to_string().contains("/v1"), "suggest the usual /v1 suffix: {e}");
}

#[tokio::test]
async fn gateway_errors_before_the_first_byte_are_retried() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::status(503, "Loading model"));
    fake.push(Reply::status(502, "bad gateway"));
    fake.push(Reply::text(["after retries"]));
    let (deltas, error) = turn(&client(&fake)).await;
    assert!(error.is_none(), "a server that is briefly busy should not fail the turn: {error:?}");
    assert_eq!(text(&deltas), "after retries");
    assert_eq!(fake.chat_requests().len(), 3);

    for _ in 0..4 {
        fake.push(Reply::status(504, "gateway timeout"));
    }
    let (_, e) = expect_error(turn(&client(&fake)).await, "server_error", "retries are bounded");
    assert!(e.to_string().contains("504"), "{e}");
    assert_eq!(fake.chat_requests().len(), 3 + 3, "at most 2 retries");
}

/// A server in front of `fake` that reads the first `drop_first` requests and closes their
/// connections without a word, as llama.cpp or uvicorn close a kept-alive connection that sat
/// idle, then passes the rest through. Its address, and how many connections it accepted.
async fn closes_first(fake: &FakeOpenAi, drop_first: usize) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let upstream = format!("127.0.0.1:{}", fake.port());
    let accepted = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            if counter.fetch_add(1, Ordering::SeqCst) < drop_first {
                let mut buf = [0u8; 4096];
                let _ = conn.read(&mut buf).await;
                drop(conn);
                continue;
            }
            let upstream = upstream.clone();
            tokio::spawn(async move {
                let mut to = tokio::net::TcpStream::connect(upstream).await.unwrap();
                let _ = tokio::io::copy_bidirectional(&mut conn, &mut to).await;
            });
        }
    });
    (format!("http://{addr}/v1"), accepted)
}

#[tokio::test]
async fn a_connection_closed_as_the_request_goes_out_is_sent_again_once() {
    use std::sync::atomic::Ordering;
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text(["answered anyway"]));
    let (url, accepted) = closes_first(&fake, 1).await;
    let (deltas, error) = turn(&Client::new(Endpoint::new(url), relaxed())).await;
    assert!(error.is_none(), "a server dropping an idle kept-alive connection must not fail the user's message: {error:?}");
    assert_eq!(text(&deltas), "answered anyway");
    assert_eq!(accepted.load(Ordering::SeqCst), 2, "sent again on a new connection");

    let (url, accepted) = closes_first(&fake, usize::MAX).await;
    let (_, e) = expect_error(turn(&Client::new(Endpoint::new(url), relaxed())).await, "disconnected", "a server that always hangs up");
    assert!(e.to_string().contains("before answering"), "{e}");
    assert_eq!(accepted.load(Ordering::SeqCst), 2, "sent again once only: a server that dies on the request is told as such");
}

// ---- a connection opened ahead -----------------------------------------------------------------

/// A server in front of `fake` that passes everything through and counts the connections it
/// accepted.
async fn counting(fake: &FakeOpenAi) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    closes_first(fake, 0).await
}

/// Waits (bounded) until `n` connections were accepted.
async fn accepted_reaches(accepted: &std::sync::atomic::AtomicUsize, n: usize) -> bool {
    for _ in 0..500 {
        if accepted.load(std::sync::atomic::Ordering::SeqCst) >= n {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn a_chat_request_goes_out_on_the_connection_opened_ahead() {
    use std::sync::atomic::Ordering;
    let key = "sk-test-AHEAD-4242";
    let fake = FakeOpenAi::start().await;
    fake.require_api_key(key);
    fake.push(Reply::text(["on the warm connection"]));
    let (url, accepted) = counting(&fake).await;
    let c = Client::new(Endpoint::new(url.clone()).with_api_key(key), relaxed());
    c.open_connection();
    assert!(accepted_reaches(&accepted, 1).await, "the connection is opened before any request, while the turn reads its chat");
    let (deltas, error) = turn(&c).await;
    assert!(error.is_none(), "a request on a connection opened ahead is answered as any other: {error:?}");
    assert_eq!(text(&deltas), "on the warm connection");
    assert_eq!(accepted.load(Ordering::SeqCst), 1, "the request used the connection opened ahead, so the turn did not wait for a new one");
    let sent = fake.chat_requests().pop().expect("one chat request");
    assert_eq!(sent.header("authorization"), Some(format!("Bearer {key}").as_str()), "the key goes with it, as on any request");
    assert!(sent.header("accept").unwrap_or("").contains("text/event-stream"));
    assert_eq!(
        sent.header("host"),
        Some(url.trim_start_matches("http://").trim_end_matches("/v1")),
        "the server is named as reqwest names it"
    );
    assert!(sent.header("user-agent").unwrap_or("").starts_with("maru/"), "servers' logs tell Maru's requests apart");
    assert_eq!(sent.body["messages"], json!([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]));

    let (deltas, error) = turn(&c).await;
    assert!(error.is_none() && text(&deltas) == DEFAULT_REPLY, "with none opened ahead, the usual way: {error:?}");
}

#[tokio::test]
async fn a_connection_opened_ahead_that_the_server_closed_is_not_a_failure() {
    use std::sync::atomic::Ordering;
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text(["answered anyway"]));
    let (url, accepted) = closes_first(&fake, 1).await;
    let c = Client::new(Endpoint::new(url), relaxed());
    c.open_connection();
    assert!(accepted_reaches(&accepted, 1).await);
    let (deltas, error) = turn(&c).await;
    assert!(error.is_none(), "a server that hung up on the connection opened ahead must not fail the user's message: {error:?}");
    assert_eq!(text(&deltas), "answered anyway");
    assert_eq!(accepted.load(Ordering::SeqCst), 2, "sent again at once on a new connection");

    // Nothing listening: the request is sent the usual way and fails as usual, naming the server.
    let port = closed_port().await;
    let c = Client::new(Endpoint::new(format!("http://127.0.0.1:{port}/v1")), relaxed());
    c.open_connection();
    let (_, e) = expect_error(turn(&c).await, "unreachable", "a server that is down reads as down, not as a failed warm-up");
    assert!(e.to_string().contains("Start the model server"), "{e}");
}

#[tokio::test]
async fn stop_closes_a_connection_opened_ahead() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text(["Hel"]).then_hang());
    let cancel = CancellationToken::new();
    let c = client(&fake);
    c.open_connection();
    let mut stream = c.stream_chat(&request(), cancel.clone()).await.unwrap();
    assert_eq!(stream.next().await.unwrap().unwrap(), Delta::Content("Hel".into()));
    cancel.cancel();
    assert_eq!(stream.next().await.unwrap().unwrap_err().code(), "cancelled");
    drop(stream);
    assert!(fake.wait_for_peer_closed(1).await, "Stop must close the connection so the server stops generating");
}

#[tokio::test]
async fn the_caller_is_told_once_the_request_has_gone_out() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let c = Client::new(Endpoint::new(format!("http://{}/v1", listener.local_addr().unwrap())), relaxed());
    c.open_connection();
    let (sent, gone) = tokio::sync::oneshot::channel();
    let asking = tokio::spawn({
        let c = c.clone();
        async move {
            match c.stream_chat_noting(&request(), CancellationToken::new(), Some(sent)).await {
                Ok(stream) => drain(stream).await,
                Err(e) => (Vec::new(), Some(e)),
            }
        }
    });
    let (mut conn, _) = tokio::time::timeout(Duration::from_secs(10), listener.accept()).await.unwrap().unwrap();
    let mut got = Vec::new();
    while !String::from_utf8_lossy(&got).contains("\"messages\"") {
        let mut buf = [0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(10), conn.read(&mut buf)).await.unwrap().unwrap();
        assert!(n > 0, "the request arrives whole");
        got.extend_from_slice(&buf[..n]);
    }
    assert!(
        matches!(tokio::time::timeout(Duration::from_secs(10), gone).await, Ok(Ok(()))),
        "told while the server has not answered yet: the turn stores its reply while the model computes, not after"
    );
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let answer = format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{body}", body.len());
    conn.write_all(answer.as_bytes()).await.unwrap();
    let (deltas, error) = asking.await.unwrap();
    assert!(error.is_none() && text(&deltas) == "ok", "and the answer is read as any other: {error:?}");

    // Sent the usual way (no connection opened ahead), `sent` is dropped as it is handed over.
    let fake = FakeOpenAi::start().await;
    let (sent, gone) = tokio::sync::oneshot::channel();
    let stream = client(&fake).stream_chat_noting(&request(), CancellationToken::new(), Some(sent)).await;
    assert!(stream.is_ok() && gone.await.is_err(), "a caller waiting to be told is never left waiting");
}

#[tokio::test]
async fn a_connection_opened_ahead_and_not_used_is_closed() {
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let c = Client::new(Endpoint::new(format!("http://{}/v1", listener.local_addr().unwrap())), relaxed());
    c.open_connection();
    let (mut conn, _) = tokio::time::timeout(Duration::from_secs(10), listener.accept()).await.unwrap().unwrap();
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_secs(30), conn.read(&mut buf)).await;
    assert!(
        matches!(read, Ok(Ok(0))),
        "a turn that never sent (it failed a check) must not hold a connection, and one of the server's threads, open: {read:?}"
    );
}

// ---- connection failures -----------------------------------------------------------------------

#[tokio::test]
async fn nothing_listening_names_the_url_and_suggests_starting_the_server() {
    let port = closed_port().await;
    let c = Client::new(Endpoint::new(format!("http://127.0.0.1:{port}/v1")), relaxed());
    let (_, e) = expect_error(turn(&c).await, "unreachable", "connection refused");
    let msg = e.to_string();
    assert!(msg.contains(&format!("127.0.0.1:{port}")) && msg.contains("Start the model server"), "{msg}");
}

#[tokio::test]
async fn an_unknown_host_is_a_dns_error() {
    let c = Client::new(Endpoint::new("http://no-such-host.invalid:8080/v1"), relaxed());
    let (_, e) = expect_error(turn(&c).await, "dns", "a typo in the host name");
    assert!(e.to_string().contains("no-such-host.invalid"), "{e}");
}

#[tokio::test]
async fn a_stopped_fake_server_refuses_connections() {
    let fake = FakeOpenAi::start().await;
    let c = client(&fake);
    turn(&c).await;
    fake.stop().await;
    expect_error(turn(&c).await, "unreachable", "stop() really stops the fake server");
}

// ---- timeouts ----------------------------------------------------------------------------------

fn with_timeouts(fake: &FakeOpenAi, first_byte_ms: u64, idle_ms: u64) -> Client {
    let t = Timeouts {
        connect: Duration::from_secs(10),
        first_byte: Duration::from_millis(first_byte_ms),
        idle: Duration::from_millis(idle_ms),
    };
    Client::new(Endpoint::new(fake.base_url()), t)
}

#[tokio::test]
async fn silence_before_the_first_byte_is_a_first_byte_timeout() {
    let fake = FakeOpenAi::start().await;
    let c = with_timeouts(&fake, 300, 30_000);
    // Headers held back: the server is still reading the prompt.
    fake.push(Reply::text(["late"]).delay(5_000));
    let (_, e) = expect_error(turn(&c).await, "timeout_first_byte", "no headers");
    assert!(matches!(e, LlmError::Timeout { phase: TimeoutPhase::FirstByte, .. }));
    assert!(e.to_string().contains("first-byte timeout"), "say which wait ran out: {e}");
    // Headers sent, body silent.
    fake.push(Reply::hang());
    expect_error(turn(&c).await, "timeout_first_byte", "headers but no body bytes");
}

#[tokio::test]
async fn a_slow_first_byte_within_the_timeout_is_fine() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text(["slow prefill"]).delay(300).piece_delay(100));
    let (deltas, error) = turn(&client(&fake)).await;
    assert!(error.is_none(), "big prompts take time; that is not an error: {error:?}");
    assert_eq!(text(&deltas), "slow prefill");
}

#[tokio::test]
async fn silence_mid_reply_is_an_idle_timeout_and_closes_the_connection() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text(["Hel"]).then_hang());
    let (deltas, e) = expect_error(turn(&with_timeouts(&fake, 30_000, 300)).await, "timeout_idle", "the server went quiet");
    assert_eq!(text(&deltas), "Hel");
    assert!(e.to_string().contains("idle"), "{e}");
    assert!(fake.wait_for_peer_closed(1).await, "a stuck generation must be abandoned, not left running");
}

#[tokio::test]
async fn a_connect_that_never_completes_is_a_connect_timeout() {
    // A listener whose accept queue is full: the kernel drops further SYNs, so connect hangs.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(0).unwrap();
    let addr = listener.local_addr().unwrap();
    let mut fillers = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_millis(200), tokio::net::TcpStream::connect(addr)).await {
            Ok(Ok(s)) => fillers.push(s),
            _ => break,
        }
        assert!(fillers.len() < 64, "the accept queue never filled; this kernel does not drop SYNs");
    }
    let t = Timeouts { connect: Duration::from_millis(300), ..relaxed() };
    let c = Client::new(Endpoint::new(format!("http://{addr}/v1")), t);
    let (_, e) = expect_error(turn(&c).await, "timeout_connect", "the server cannot take connections");
    assert!(e.to_string().contains(&addr.to_string()), "{e}");
    drop(listener);
}

// ---- cancellation ------------------------------------------------------------------------------

#[tokio::test]
async fn cancel_mid_reply_stops_and_closes_the_connection() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text(["Hel"]).then_hang());
    let cancel = CancellationToken::new();
    let mut stream = client(&fake).stream_chat(&request(), cancel.clone()).await.unwrap();
    assert_eq!(stream.next().await.unwrap().unwrap(), Delta::Content("Hel".into()));
    let next = tokio::spawn(async move {
        let item = stream.next().await;
        (item, stream.next().await)
    });
    cancel.cancel();
    let (item, after) = tokio::time::timeout(Duration::from_secs(30), next).await.expect("cancel must wake the reader").unwrap();
    assert_eq!(item.unwrap().unwrap_err().code(), "cancelled");
    assert!(after.is_none(), "nothing after the cancellation");
    assert!(fake.wait_for_peer_closed(1).await, "Stop must close the connection so the server stops generating (and stops using the GPU)");
}

#[tokio::test]
async fn dropping_the_stream_closes_the_connection() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text(["Hel"]).then_hang());
    let mut stream = client(&fake).stream_chat(&request(), CancellationToken::new()).await.unwrap();
    stream.next().await.unwrap().unwrap();
    drop(stream);
    assert!(fake.wait_for_peer_closed(1).await, "a dropped reply must not keep the server generating");
}

#[tokio::test]
async fn cancel_while_waiting_for_the_first_byte() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::hang());
    let cancel = CancellationToken::new();
    let stream = client(&fake).stream_chat(&request(), cancel.clone()).await.unwrap();
    cancel.cancel();
    let (deltas, error) = drain(stream).await;
    assert!(deltas.is_empty());
    assert_eq!(error.unwrap().code(), "cancelled");
    assert!(fake.wait_for_peer_closed(1).await, "a long prefill must be abandoned on Stop");
}

#[tokio::test]
async fn cancel_before_the_server_answers() {
    let fake = FakeOpenAi::start().await;
    fake.push(Reply::text(["never"]).delay(10_000));
    let cancel = CancellationToken::new();
    let c = client(&fake);
    let started = tokio::spawn({
        let cancel = cancel.clone();
        async move { c.stream_chat(&request(), cancel).await.map(|_| ()) }
    });
    while fake.chat_requests().is_empty() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    cancel.cancel();
    let result = tokio::time::timeout(Duration::from_secs(30), started).await.expect("cancel must not wait for the server").unwrap();
    assert_eq!(result.unwrap_err().code(), "cancelled");
}

// ---- API key -----------------------------------------------------------------------------------

#[tokio::test]
async fn the_api_key_is_sent_as_bearer_and_never_shown() {
    let key = "sk-test-SECRET-4242";
    let fake = FakeOpenAi::start().await;
    fake.require_api_key(key);
    let endpoint = Endpoint::new(fake.base_url()).with_api_key(key);
    let c = Client::new(endpoint.clone(), relaxed());

    let (deltas, error) = turn(&c).await;
    assert!(error.is_none(), "the right key is accepted: {error:?}");
    assert_eq!(text(&deltas), DEFAULT_REPLY);
    assert_eq!(fake.chat_requests()[0].header("authorization"), Some(format!("Bearer {key}").as_str()));

    for shown in [format!("{endpoint:?}"), format!("{c:?}")] {
        assert!(!shown.contains(key), "the key must never reach logs: {shown}");
    }

    // A server that echoes the key back in its error message.
    fake.push(Reply::status(401, format!(r#"{{"error":{{"message":"invalid api key {key}"}}}}"#)));
    let (_, e) = expect_error(turn(&c).await, "unauthorized", "401 with a key sent");
    let shown = e.to_string();
    assert!(shown.contains("rejected the API key"), "{shown}");
    assert!(!shown.contains(key) && !format!("{e:?}").contains(key), "the key must not appear in error text: {shown}");

    let wrong = Client::new(Endpoint::new(fake.base_url()).with_api_key("sk-wrong"), relaxed());
    expect_error(turn(&wrong).await, "unauthorized", "a wrong key");
    let none = Client::new(Endpoint::new(fake.base_url()), relaxed());
    let (_, e) = expect_error(turn(&none).await, "unauthorized", "no key");
    assert!(e.to_string().contains("requires an API key"), "{e}");
}

// ---- models, tokenize, probe -------------------------------------------------------------------

#[tokio::test]
async fn list_models_reads_vllm_max_model_len() {
    let fake = FakeOpenAi::start().await;
    fake.set_models(vec![FakeModel::vllm("Qwen/Qwen3-8B", 32768), FakeModel::vllm("small", 4096)]);
    let models = client(&fake).list_models().await.unwrap();
    assert_eq!(
        models,
        vec![
            ModelInfo { id: "Qwen/Qwen3-8B".into(), context_length: Some(32768), owned_by: Some("vllm".into()) },
            ModelInfo { id: "small".into(), context_length: Some(4096), owned_by: Some("vllm".into()) },
        ],
        "the context budget comes from this"
    );
    assert!(fake.requests().iter().all(|r| r.path != "/props"), "no need to ask /props when the list says it");
}

#[tokio::test]
async fn list_models_falls_back_to_llama_cpp_props() {
    let fake = FakeOpenAi::start().await;
    fake.set_models(vec![FakeModel::llama_cpp("smollm2")]);
    fake.set_props(Some(json!({"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1})));
    let c = client(&fake);
    assert_eq!(c.list_models().await.unwrap()[0].context_length, Some(4096), "newer llama.cpp");

    fake.set_props(Some(json!({"n_ctx": 2048})));
    assert_eq!(c.list_models().await.unwrap()[0].context_length, Some(2048), "older llama.cpp");

    fake.set_props(None);
    assert_eq!(c.list_models().await.unwrap()[0].context_length, None, "unknown stays unknown (a setting fills it)");
    let props = fake.requests().into_iter().filter(|r| r.path == "/props").count();
    assert_eq!(props, 3, "/props is read at the server root, beside /v1");
}

#[tokio::test]
async fn list_models_asks_props_per_model_on_a_llama_cpp_router() {
    let fake = FakeOpenAi::start().await;
    fake.set_models(vec![FakeModel::llama_cpp("a"), FakeModel::llama_cpp("b")]);
    fake.set_props(Some(json!({"default_generation_settings": {"n_ctx": 8192}})));
    let models = client(&fake).list_models().await.unwrap();
    assert!(models.iter().all(|m| m.context_length == Some(8192)), "{models:?}");
    let mut asked: Vec<_> = fake.requests().into_iter().filter(|r| r.path == "/props").filter_map(|r| r.query).collect();
    asked.sort();
    assert_eq!(asked, ["model=a", "model=b"]);
}

#[tokio::test]
async fn list_models_errors_are_the_same_errors() {
    let fake = FakeOpenAi::start().await;
    fake.require_api_key("k");
    let e = client(&fake).list_models().await.unwrap_err();
    assert_eq!(e.code(), "unauthorized", "settings show why the model list is empty: {e}");
    let port = closed_port().await;
    let e = Client::new(Endpoint::new(format!("http://127.0.0.1:{port}/v1")), relaxed()).list_models().await.unwrap_err();
    assert_eq!(e.code(), "unreachable", "{e}");
}

#[tokio::test]
async fn tokenize_uses_vllm_or_llama_cpp_and_reports_none_without_a_tokenizer() {
    let fake = FakeOpenAi::start().await;
    let c = client(&fake);
    assert_eq!(c.tokenize("fake-model", "one two three").await.unwrap(), Some(3), "vLLM's count");
    let sent = fake.requests().pop().unwrap();
    assert_eq!(sent.path, "/tokenize", "tokenize lives at the server root");
    assert_eq!(sent.body["model"], json!("fake-model"));

    fake.set_tokenizer(Tokenizer::LlamaCpp);
    assert_eq!(c.tokenize("fake-model", "one two three four").await.unwrap(), Some(4), "llama.cpp's token list");

    fake.set_tokenizer(Tokenizer::None);
    assert_eq!(c.tokenize("fake-model", "x").await.unwrap(), None, "no tokenizer: the caller estimates instead");
}

#[tokio::test]
async fn probe_finds_the_fake_server_and_nothing_on_a_closed_port() {
    let fake = FakeOpenAi::start().await;
    fake.set_models(vec![FakeModel::vllm("m1", 4096), FakeModel::vllm("m2", 4096)]);
    let closed = closed_port().await;
    let found = probe_ports(&[closed, fake.port()], Duration::from_secs(5)).await;
    assert_eq!(found.len(), 1, "only the port with a server: {found:?}");
    assert_eq!(found[0].base_url, fake.base_url(), "ready to use as the endpoint");
    assert_eq!(found[0].kind_guess, "vLLM");
    assert_eq!(found[0].models, ["m1", "m2"]);
    assert!(!found[0].needs_api_key);

    fake.require_api_key("k");
    let found = probe_ports(&[fake.port()], Duration::from_secs(5)).await;
    assert!(found[0].needs_api_key, "a server that wants a key is still found, so the user can enter it");
}
