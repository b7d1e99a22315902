//! A scriptable fake OpenAI-compatible model server: replies on demand (text, reasoning, tool
//! calls, raw SSE bytes, HTTP errors, delays, hangs, dying mid-stream), records every request,
//! and counts streams the client hung up on.
//!
//! ```ignore
//! let fake = FakeOpenAi::start().await;
//! fake.push(Reply::text(["Hel", "lo"]).with_usage(12, 2, 8));
//! fake.push(Reply::tool_call("search", r#"{"q":"x"}"#));
//! let client = Client::new(Endpoint::new(fake.base_url()), Timeouts::default());
//! // … after the turn:
//! assert_eq!(fake.chat_requests().len(), 2);
//! ```
//!
//! Chat completions take replies from a FIFO script; with the script empty they stream
//! "Hello from the fake server." with usage, or, after `forward_to`, are passed to a real server
//! (so a test scripts the rounds a tiny model would not make and a real one reads the rest). `GET /v1/models` is vLLM-like (`max_model_len`),
//! `GET /props` is llama.cpp-like (off by default), `POST /tokenize` answers in vLLM's shape
//! by default (one token per whitespace-separated word), `GET /health` answers 200.
//! `POST /v1/embeddings` and `POST /v1/rerank` answer with what `set_embeddings` and
//! `set_rerank` compute from each text (404 until they are set), and can be made to fail or to
//! wait (`embeddings_fail`, `embeddings_delay`, `rerank_delay`).

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use bytes::Bytes;
use futures_util::Stream;
use serde_json::{json, Value};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The text of the reply streamed when the script is empty.
pub const DEFAULT_REPLY: &str = "Hello from the fake server.";

/// A running fake server on 127.0.0.1 and a free port. Stops when dropped.
pub struct FakeOpenAi {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: watch::Sender<bool>,
    task: Option<JoinHandle<()>>,
}

/// One request as the fake server received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    /// Path without the query, e.g. `/v1/chat/completions`.
    pub path: String,
    pub query: Option<String>,
    /// Header names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    /// The JSON body; `Null` when empty, a `String` when not JSON.
    pub body: Value,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// A model in the fake `/v1/models` list.
#[derive(Debug, Clone, PartialEq)]
pub struct FakeModel {
    pub id: String,
    pub owned_by: String,
    pub max_model_len: Option<u32>,
}

impl FakeModel {
    /// As vLLM lists it: with `max_model_len`.
    pub fn vllm(id: impl Into<String>, max_model_len: u32) -> Self {
        FakeModel { id: id.into(), owned_by: "vllm".into(), max_model_len: Some(max_model_len) }
    }

    /// As llama.cpp lists it: no context length (that is in `/props`).
    pub fn llama_cpp(id: impl Into<String>) -> Self {
        FakeModel { id: id.into(), owned_by: "llamacpp".into(), max_model_len: None }
    }
}

/// Which `/tokenize` the fake server has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tokenizer {
    /// 404, like Ollama and LM Studio.
    None,
    /// `{"content"}` → `{"tokens":[…]}`.
    LlamaCpp,
    /// `{"model","prompt"}` → `{"count","max_model_len","tokens"}`.
    Vllm,
}

/// A text's vector, as the fake embeddings model sees it.
pub type EmbedFn = Arc<dyn Fn(&str) -> Vec<f32> + Send + Sync>;
/// A document's relevance to a query, as the fake reranker sees it.
pub type RerankFn = Arc<dyn Fn(&str, &str) -> f32 + Send + Sync>;

/// How `/v1/embeddings` or `/v1/rerank` answers.
#[derive(Clone)]
struct Scored<F> {
    compute: Option<F>,
    /// An HTTP error instead: status and body.
    fail: Option<(u16, String)>,
    delay: Duration,
    /// A further wait for requests of more than one input (a background batch, not a question).
    batch_delay: Duration,
}

impl<F> Default for Scored<F> {
    fn default() -> Self {
        Scored { compute: None, fail: None, delay: Duration::ZERO, batch_delay: Duration::ZERO }
    }
}

/// One scripted answer to a chat-completions request.
#[derive(Debug, Clone)]
pub struct Reply {
    body: ReplyBody,
    head_delay: Duration,
    piece_delay: Duration,
    usage: Option<(u32, u32, Option<u32>)>,
    timings: Option<(u32, u32, u32)>,
    finish_reason: Option<String>,
    end: End,
}

#[derive(Debug, Clone)]
enum ReplyBody {
    Chat { reasoning: Vec<String>, content: Vec<String>, tool_calls: Vec<(String, String)> },
    Raw(Vec<Bytes>),
    Http { status: u16, content_type: String, body: String },
}

/// How a streamed reply ends.
#[derive(Debug, Clone, PartialEq)]
enum End {
    /// finish chunk, usage chunk, `data: [DONE]`.
    Done,
    /// an error object, then `[DONE]` (as vLLM does).
    Error(String),
    /// the connection is aborted (no chunked-encoding end).
    Die,
    /// nothing more, ever (until the server stops).
    Hang,
    /// the body ends cleanly, without finish reason or `[DONE]`.
    Eof,
}

impl Reply {
    fn chat(reasoning: Vec<String>, content: Vec<String>, tool_calls: Vec<(String, String)>) -> Self {
        Reply::from_body(ReplyBody::Chat { reasoning, content, tool_calls })
    }

    fn from_body(body: ReplyBody) -> Self {
        Reply {
            body,
            head_delay: Duration::ZERO,
            piece_delay: Duration::ZERO,
            usage: None,
            timings: None,
            finish_reason: None,
            end: End::Done,
        }
    }

    /// Text streamed as the given pieces, one chunk each.
    pub fn text<S: Into<String>>(pieces: impl IntoIterator<Item = S>) -> Self {
        Reply::chat(Vec::new(), strings(pieces), Vec::new())
    }

    /// `reasoning_content` pieces, then content pieces.
    pub fn reasoning<R: Into<String>, S: Into<String>>(
        reasoning: impl IntoIterator<Item = R>,
        content: impl IntoIterator<Item = S>,
    ) -> Self {
        Reply::chat(strings(reasoning), strings(content), Vec::new())
    }

    /// One tool call; the name comes first, the arguments follow in 4-character pieces.
    pub fn tool_call(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        Reply::tool_calls([(name, arguments)])
    }

    /// Several tool calls; all names first, then their argument pieces interleaved round-robin.
    pub fn tool_calls<N: Into<String>, A: Into<String>>(calls: impl IntoIterator<Item = (N, A)>) -> Self {
        Reply::chat(Vec::new(), Vec::new(), calls.into_iter().map(|(n, a)| (n.into(), a.into())).collect())
    }

    /// Content pieces streamed before the tool calls of this reply.
    pub fn with_text<S: Into<String>>(mut self, pieces: impl IntoIterator<Item = S>) -> Self {
        if let ReplyBody::Chat { content, .. } = &mut self.body {
            *content = strings(pieces);
        }
        self
    }

    /// Bytes written exactly as given, one write each, as `text/event-stream`. Nothing is added:
    /// include `data: [DONE]\n\n` yourself if you want it.
    pub fn raw<B: Into<Bytes>>(pieces: impl IntoIterator<Item = B>) -> Self {
        let mut r = Reply::from_body(ReplyBody::Raw(pieces.into_iter().map(Into::into).collect()));
        r.end = End::Eof;
        r
    }

    /// Headers of an event stream, then silence: the server is still reading the prompt.
    pub fn hang() -> Self {
        Reply::raw(Vec::<Bytes>::new()).then_hang()
    }

    /// Any status with a body (JSON content type when the body looks like JSON).
    pub fn status(status: u16, body: impl Into<String>) -> Self {
        let body = body.into();
        let content_type = if body.trim_start().starts_with('{') { "application/json" } else { "text/plain; charset=utf-8" };
        Reply::from_body(ReplyBody::Http { status, content_type: content_type.into(), body })
    }

    /// A 200 that is not an event stream (a JSON page, an HTML login page, …).
    pub fn non_sse(content_type: impl Into<String>, body: impl Into<String>) -> Self {
        Reply::from_body(ReplyBody::Http { status: 200, content_type: content_type.into(), body: body.into() })
    }

    /// 401 as vLLM's `--api-key` answers it.
    pub fn unauthorized() -> Self {
        Reply::status(401, r#"{"error":"Unauthorized"}"#)
    }

    /// 404 in vLLM's wording for a model it does not serve.
    pub fn unknown_model(model: &str) -> Self {
        Reply::status(
            404,
            json!({"object": "error", "message": format!("The model `{model}` does not exist."), "type": "NotFoundError", "param": null, "code": 404})
                .to_string(),
        )
    }

    /// 400 in vLLM's wording for a prompt longer than the context window.
    pub fn context_too_long() -> Self {
        Reply::status(400, json!({"object": "error", "message": "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.", "type": "BadRequestError", "param": null, "code": 400}).to_string())
    }

    /// 400 in llama.cpp's wording for a prompt longer than the context window.
    pub fn llama_context_too_long() -> Self {
        Reply::status(400, json!({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 5000, "n_ctx": 4096}}).to_string())
    }

    /// 500 with an OpenAI-style error body.
    pub fn server_error(message: &str) -> Self {
        Reply::status(500, json!({"error": {"message": message, "type": "server_error", "code": 500}}).to_string())
    }

    /// Adds a usage chunk (empty `choices`) before `[DONE]`; `cached` goes to
    /// `prompt_tokens_details.cached_tokens` (left out when `None`).
    pub fn with_usage(mut self, prompt: u32, completion: u32, cached: impl Into<Option<u32>>) -> Self {
        self.usage = Some((prompt, completion, cached.into()));
        self
    }

    /// llama.cpp's `timings` (`prompt_n`, `cache_n`, `predicted_n`) on the last chunk.
    pub fn with_llama_timings(mut self, prompt_n: u32, cache_n: u32, predicted_n: u32) -> Self {
        self.timings = Some((prompt_n, cache_n, predicted_n));
        self
    }

    /// Waits this long before sending anything, headers included.
    pub fn delay(mut self, ms: u64) -> Self {
        self.head_delay = Duration::from_millis(ms);
        self
    }

    /// Waits this long between chunks (raw pieces included).
    pub fn piece_delay(mut self, ms: u64) -> Self {
        self.piece_delay = Duration::from_millis(ms);
        self
    }

    /// Overrides the finish reason (default `stop`, or `tool_calls` when there are calls).
    pub fn finish_reason(mut self, reason: impl Into<String>) -> Self {
        self.finish_reason = Some(reason.into());
        self
    }

    /// After the pieces, an error object (`{"error":{"message"}}`) instead of a finish.
    pub fn then_error(mut self, message: impl Into<String>) -> Self {
        self.end = End::Error(message.into());
        self
    }

    /// After the pieces, the connection is aborted: the server died mid-reply.
    pub fn then_die(mut self) -> Self {
        self.end = End::Die;
        self
    }

    /// After the pieces, nothing more until the client hangs up or the server stops.
    pub fn then_hang(mut self) -> Self {
        self.end = End::Hang;
        self
    }

    /// After the pieces, the body ends cleanly without a finish reason or `[DONE]`.
    pub fn then_eof(mut self) -> Self {
        self.end = End::Eof;
        self
    }
}

fn strings<S: Into<String>>(items: impl IntoIterator<Item = S>) -> Vec<String> {
    items.into_iter().map(Into::into).collect()
}

struct Shared {
    inner: Mutex<Inner>,
    /// Streams dropped before all their pieces were written: the client hung up.
    peer_closed: AtomicUsize,
}

struct Inner {
    script: VecDeque<Reply>,
    requests: Vec<RecordedRequest>,
    models: Vec<FakeModel>,
    props: Option<Value>,
    tokenizer: Tokenizer,
    api_key: Option<String>,
    extraction_replies: VecDeque<Reply>,
    extractions: Vec<RecordedRequest>,
    /// Where chat requests go when the script is empty (`…/v1`).
    upstream: Option<String>,
    /// What the real server answered, with the request it answered: the whole SSE text.
    forwarded: Vec<(Value, String)>,
    /// Maru's requests for a chat's title, and the answers scripted for them.
    titles: Vec<RecordedRequest>,
    title_replies: VecDeque<Reply>,
    embeddings: Scored<EmbedFn>,
    rerank: Scored<RerankFn>,
}

#[derive(Clone)]
struct AppState {
    shared: Arc<Shared>,
    shutdown: watch::Receiver<bool>,
}

impl FakeOpenAi {
    pub async fn start() -> FakeOpenAi {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let shared = Arc::new(Shared {
            inner: Mutex::new(Inner {
                script: VecDeque::new(),
                requests: Vec::new(),
                models: vec![FakeModel::vllm("fake-model", 8192)],
                props: None,
                tokenizer: Tokenizer::Vllm,
                api_key: None,
                extraction_replies: VecDeque::new(),
                extractions: Vec::new(),
                upstream: None,
                forwarded: Vec::new(),
                titles: Vec::new(),
                title_replies: VecDeque::new(),
                embeddings: Scored::default(),
                rerank: Scored::default(),
            }),
            peer_closed: AtomicUsize::new(0),
        });
        let (shutdown, rx) = watch::channel(false);
        let app = Router::new().fallback(handle).with_state(AppState { shared: shared.clone(), shutdown: rx.clone() });
        let mut stop = rx;
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stop.wait_for(|s| *s).await;
                })
                .await;
        });
        FakeOpenAi { addr, shared, shutdown, task: Some(task) }
    }

    /// `http://127.0.0.1:{port}/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Queues a reply for the next chat-completions request.
    pub fn push(&self, reply: Reply) {
        self.lock().script.push_back(reply);
    }

    /// Every request received so far, all routes, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// The chat-completions requests only.
    pub fn chat_requests(&self) -> Vec<RecordedRequest> {
        self.requests().into_iter().filter(|r| r.path == "/v1/chat/completions").collect()
    }

    /// What the next memory extraction request gets (else `[]`: nothing to remember).
    pub fn push_extraction(&self, reply: Reply) {
        self.lock().extraction_replies.push_back(reply);
    }

    /// Maru's memory extraction requests, apart from the turns' own.
    pub fn extraction_requests(&self) -> Vec<RecordedRequest> {
        self.lock().extractions.clone()
    }

    /// The JSON body of the last chat-completions request.
    pub fn last_chat_body(&self) -> Option<Value> {
        self.chat_requests().pop().map(|r| r.body)
    }

    /// From now on a chat request that finds the script empty goes to this real server
    /// (`…/v1`), and its answer streams back as it came.
    pub fn forward_to(&self, base_url: impl Into<String>) {
        self.lock().upstream = Some(base_url.into());
    }

    /// What the next title request gets (else an empty answer: the first message's title stays).
    pub fn push_title(&self, reply: Reply) {
        self.lock().title_replies.push_back(reply);
    }

    /// Maru's requests for a chat's title, apart from the turns' own.
    pub fn title_requests(&self) -> Vec<RecordedRequest> {
        self.lock().titles.clone()
    }

    /// The forwarded requests that have been answered, each with the real server's whole answer.
    pub fn forwarded_answers(&self) -> Vec<(Value, String)> {
        self.lock().forwarded.clone()
    }

    /// From now on `/v1/embeddings` answers each input with `f(text)`, and succeeds again.
    pub fn set_embeddings(&self, f: impl Fn(&str) -> Vec<f32> + Send + Sync + 'static) {
        let mut inner = self.lock();
        inner.embeddings.compute = Some(Arc::new(f));
        inner.embeddings.fail = None;
    }

    /// From now on `/v1/embeddings` answers with this HTTP status and body (`None`: as set).
    pub fn embeddings_fail(&self, fail: Option<(u16, &str)>) {
        self.lock().embeddings.fail = fail.map(|(s, b)| (s, b.to_string()));
    }

    /// From now on `/v1/embeddings` waits this long before answering.
    pub fn embeddings_delay(&self, delay: Duration) {
        self.lock().embeddings.delay = delay;
    }

    /// From now on `/v1/embeddings` waits this long before answering a request of several
    /// inputs (a batch of passages), and answers one input (a question) as before.
    pub fn embeddings_batch_delay(&self, delay: Duration) {
        self.lock().embeddings.batch_delay = delay;
    }

    /// From now on `/v1/rerank` scores each document with `f(query, document)`.
    pub fn set_rerank(&self, f: impl Fn(&str, &str) -> f32 + Send + Sync + 'static) {
        let mut inner = self.lock();
        inner.rerank.compute = Some(Arc::new(f));
        inner.rerank.fail = None;
    }

    /// From now on `/v1/rerank` waits this long before answering.
    pub fn rerank_delay(&self, delay: Duration) {
        self.lock().rerank.delay = delay;
    }

    /// The requests to `/v1/embeddings`, in order.
    pub fn embedding_requests(&self) -> Vec<RecordedRequest> {
        self.requests().into_iter().filter(|r| r.path == "/v1/embeddings").collect()
    }

    /// The requests to `/v1/rerank`, in order.
    pub fn rerank_requests(&self) -> Vec<RecordedRequest> {
        self.requests().into_iter().filter(|r| r.path == "/v1/rerank").collect()
    }

    pub fn set_models(&self, models: Vec<FakeModel>) {
        self.lock().models = models;
    }

    /// What `GET /props` returns; `None` (the default) answers 404 like vLLM.
    pub fn set_props(&self, props: Option<Value>) {
        self.lock().props = props;
    }

    pub fn set_tokenizer(&self, tokenizer: Tokenizer) {
        self.lock().tokenizer = tokenizer;
    }

    /// From now on every route answers 401 unless `Authorization: Bearer {key}` is sent.
    pub fn require_api_key(&self, key: impl Into<String>) {
        self.lock().api_key = Some(key.into());
    }

    /// Streams the client closed before they were fully written (stop, cancel, drop).
    pub fn peer_closed_streams(&self) -> usize {
        self.shared.peer_closed.load(Ordering::SeqCst)
    }

    /// Waits (up to 10 s, to avoid hanging a test) until at least `n` streams were closed by
    /// the client; returns whether that happened.
    pub async fn wait_for_peer_closed(&self, n: usize) -> bool {
        for _ in 0..500 {
            if self.peer_closed_streams() >= n {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }

    /// Stops accepting, ends hanging streams, closes idle connections.
    pub async fn stop(mut self) {
        let _ = self.shutdown.send(true);
        if let Some(task) = self.task.take() {
            if tokio::time::timeout(Duration::from_secs(5), task).await.is_err() {
                eprintln!("fake_openai: the server did not stop within 5 s");
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.shared.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for FakeOpenAi {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

async fn handle(State(state): State<AppState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, 256 * 1024 * 1024).await.unwrap_or_default();
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
    };
    let recorded = RecordedRequest {
        method: parts.method.to_string(),
        path: parts.uri.path().to_string(),
        query: parts.uri.query().map(str::to_string),
        headers: headers_of(&parts.headers),
        body: body.clone(),
    };
    // Maru's background memory extraction is kept apart, so that it never takes a reply
    // scripted for a turn and turn tests count only their own requests.
    // Titles likewise: what `push_title` scripted, else forwarded, else nothing (so the first
    // message's title stays), recorded apart.
    if is_title(&body) {
        let (reply, upstream) = {
            let mut inner = state.shared.inner.lock().unwrap_or_else(|e| e.into_inner());
            inner.titles.push(recorded);
            (inner.title_replies.pop_front(), inner.upstream.clone())
        };
        if let (None, Some(upstream)) = (&reply, upstream) {
            return forward(&state, &upstream, &body).await;
        }
        return respond(state, &body, reply.unwrap_or_else(|| Reply::text([""]))).await;
    }
    if is_extraction(&body) {
        let (reply, upstream) = {
            let mut inner = state.shared.inner.lock().unwrap_or_else(|e| e.into_inner());
            inner.extractions.push(recorded);
            (inner.extraction_replies.pop_front(), inner.upstream.clone())
        };
        if let (None, Some(upstream)) = (&reply, upstream) {
            return forward(&state, &upstream, &body).await;
        }
        return respond(state, &body, reply.unwrap_or_else(|| Reply::text(["[]"]))).await;
    }
    let (required_key, models, props, tokenizer, embeddings, rerank) = {
        let mut inner = state.shared.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.requests.push(recorded);
        (inner.api_key.clone(), inner.models.clone(), inner.props.clone(), inner.tokenizer, inner.embeddings.clone(), inner.rerank.clone())
    };
    if let Some(key) = required_key {
        let sent = parts.headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        if sent != Some(format!("Bearer {key}").as_str()) {
            return Reply::unauthorized().into_http_response();
        }
    }
    match (parts.method.clone(), parts.uri.path()) {
        (Method::POST, "/v1/chat/completions") => chat(state, &body).await,
        (Method::GET, "/v1/models") => json_response(StatusCode::OK, models_json(&models)),
        (Method::GET, "/props") => match props {
            Some(p) => json_response(StatusCode::OK, p),
            None => json_response(StatusCode::NOT_FOUND, json!({"detail": "Not Found"})),
        },
        (Method::POST, "/tokenize") => tokenize(tokenizer, &body, &models),
        (Method::GET, "/health") => json_response(StatusCode::OK, json!({"status": "ok"})),
        (Method::POST, "/v1/embeddings") => embed(embeddings, &body).await,
        (Method::POST, "/v1/rerank") => reranked(rerank, &body).await,
        _ => json_response(StatusCode::NOT_FOUND, json!({"detail": "Not Found"})),
    }
}

/// OpenAI's embeddings answer: each input (a string or a list of them) through `compute`.
async fn embed(scored: Scored<EmbedFn>, body: &Value) -> Response {
    tokio::time::sleep(scored.delay).await;
    if let Some((status, body)) = scored.fail {
        return Reply::status(status, body).into_http_response();
    }
    let Some(compute) = scored.compute else {
        return json_response(StatusCode::NOT_FOUND, json!({"detail": "Not Found"}));
    };
    let inputs: Vec<String> = match &body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items.iter().map(|i| i.as_str().unwrap_or_default().to_string()).collect(),
        _ => return json_response(StatusCode::BAD_REQUEST, json!({"error": {"message": "input is required"}})),
    };
    if inputs.len() > 1 {
        tokio::time::sleep(scored.batch_delay).await;
    }
    let data: Vec<Value> =
        inputs.iter().enumerate().map(|(index, text)| json!({"object": "embedding", "index": index, "embedding": compute(text)})).collect();
    json_response(StatusCode::OK, json!({"object": "list", "data": data, "model": body["model"]}))
}

/// llama.cpp's rerank answer: `results` with each document's index and score.
async fn reranked(scored: Scored<RerankFn>, body: &Value) -> Response {
    tokio::time::sleep(scored.delay).await;
    if let Some((status, body)) = scored.fail {
        return Reply::status(status, body).into_http_response();
    }
    let Some(compute) = scored.compute else {
        return json_response(StatusCode::NOT_FOUND, json!({"detail": "Not Found"}));
    };
    let query = body["query"].as_str().unwrap_or_default();
    let documents = body["documents"].as_array().cloned().unwrap_or_default();
    let results: Vec<Value> = documents
        .iter()
        .enumerate()
        .map(|(index, d)| json!({"index": index, "relevance_score": compute(query, d.as_str().unwrap_or_default())}))
        .collect();
    json_response(StatusCode::OK, json!({"model": body["model"], "results": results}))
}

/// A request for the chat's title: the chat, then the task (the template's first words).
fn is_title(body: &Value) -> bool {
    let last = body["messages"].as_array().and_then(|m| m.last());
    last.is_some_and(|m| m["role"] == "user" && m["content"].as_str().is_some_and(|s| s.starts_with("Write a title for this conversation")))
}

/// A request from Maru's memory extraction: the chat, then its task (the template's first words).
fn is_extraction(body: &Value) -> bool {
    let last = body["messages"].as_array().and_then(|m| m.last());
    last.is_some_and(|m| m["role"] == "user" && m["content"].as_str().is_some_and(|s| s.starts_with("Find lasting facts about the user")))
}

fn headers_of(headers: &HeaderMap) -> Vec<(String, String)> {
    headers.iter().map(|(n, v)| (n.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned())).collect()
}

fn json_response(status: StatusCode, body: Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

fn models_json(models: &[FakeModel]) -> Value {
    let data: Vec<Value> = models
        .iter()
        .map(|m| {
            let mut v = json!({"id": m.id, "object": "model", "created": 1_700_000_000, "owned_by": m.owned_by});
            if let Some(n) = m.max_model_len {
                v["max_model_len"] = json!(n);
            }
            v
        })
        .collect();
    json!({"object": "list", "data": data})
}

fn tokenize(tokenizer: Tokenizer, body: &Value, models: &[FakeModel]) -> Response {
    let count = |text: &str| text.split_whitespace().count();
    match tokenizer {
        Tokenizer::None => json_response(StatusCode::NOT_FOUND, json!({"detail": "Not Found"})),
        Tokenizer::LlamaCpp => {
            let n = body.get("content").and_then(Value::as_str).map_or(0, count);
            json_response(StatusCode::OK, json!({"tokens": (0..n).collect::<Vec<_>>()}))
        }
        Tokenizer::Vllm => match body.get("prompt").and_then(Value::as_str) {
            Some(prompt) => {
                let n = count(prompt);
                let max = models.first().and_then(|m| m.max_model_len);
                json_response(StatusCode::OK, json!({"count": n, "max_model_len": max, "tokens": (0..n).collect::<Vec<_>>()}))
            }
            None => json_response(StatusCode::BAD_REQUEST, json!({"object": "error", "message": "prompt is required"})),
        },
    }
}

async fn chat(state: AppState, body: &Value) -> Response {
    let (reply, upstream) = {
        let mut inner = state.shared.inner.lock().unwrap_or_else(|e| e.into_inner());
        (inner.script.pop_front(), inner.upstream.clone())
    };
    if let (None, Some(upstream)) = (&reply, upstream) {
        return forward(&state, &upstream, body).await;
    }
    let reply = reply.unwrap_or_else(|| Reply::text(["Hello", " from", " the", " fake", " server."]).with_usage(12, 6, None));
    respond(state, body, reply).await
}

/// The real server's answer to `body`, streamed through as it comes and recorded whole once it
/// has ended (`forwarded_answers`).
async fn forward(state: &AppState, upstream: &str, body: &Value) -> Response {
    match reqwest::Client::new().post(format!("{upstream}/chat/completions")).json(body).send().await {
        Ok(res) => {
            let status = StatusCode::from_u16(res.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
            let kind = res.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("application/json").to_string();
            let (shared, request, seen) = (state.shared.clone(), body.clone(), Arc::new(Mutex::new(Vec::new())));
            let stream = futures_util::StreamExt::map(res.bytes_stream(), move |chunk| {
                if let Ok(bytes) = &chunk {
                    seen.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(bytes);
                    if bytes.ends_with(b"data: [DONE]\n\n") || !kind_is_stream(&request) {
                        let answer = String::from_utf8_lossy(&seen.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
                        shared.inner.lock().unwrap_or_else(|e| e.into_inner()).forwarded.push((request.clone(), answer));
                    }
                }
                chunk
            });
            Response::builder()
                .status(status)
                .header(header::CONTENT_TYPE, kind)
                .body(Body::from_stream(stream))
                .unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
        }
        Err(e) => json_response(StatusCode::BAD_GATEWAY, json!({"error": {"message": format!("the real server is not reachable: {e}")}})),
    }
}

fn kind_is_stream(body: &Value) -> bool {
    body["stream"].as_bool().unwrap_or(false)
}

/// Answers a chat request with `reply`, streamed when the request asks for a stream.
async fn respond(state: AppState, body: &Value, reply: Reply) -> Response {
    if !reply.head_delay.is_zero() {
        let mut stop = state.shutdown.clone();
        tokio::select! {
            _ = tokio::time::sleep(reply.head_delay) => {}
            _ = stop.wait_for(|s| *s) => return StatusCode::SERVICE_UNAVAILABLE.into_response(),
        }
    }
    let model = body.get("model").and_then(Value::as_str).unwrap_or("fake-model").to_string();
    let streaming = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    match &reply.body {
        ReplyBody::Http { .. } => reply.into_http_response(),
        ReplyBody::Chat { .. } if !streaming => json_response(StatusCode::OK, reply.completion_json(&model)),
        _ => {
            let steps = reply.steps(&model);
            let stream = body_stream(steps, state.shared.clone(), state.shutdown.clone());
            Response::builder()
                .status(StatusCode::OK)
                .header(header::CONTENT_TYPE, "text/event-stream")
                .header(header::CACHE_CONTROL, "no-cache")
                .body(Body::from_stream(stream))
                .expect("valid response")
        }
    }
}

/// What the body stream does, in order.
enum Step {
    Write(Bytes),
    Sleep(Duration),
    Hang,
    Die,
}

impl Reply {
    fn into_http_response(self) -> Response {
        match self.body {
            ReplyBody::Http { status, content_type, body } => Response::builder()
                .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
                .header(header::CONTENT_TYPE, content_type)
                .body(Body::from(body))
                .expect("valid response"),
            _ => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        }
    }

    /// The writes (and waits) of a streamed reply.
    fn steps(&self, model: &str) -> Vec<Step> {
        let events: Vec<Bytes> = match &self.body {
            ReplyBody::Raw(pieces) => pieces.clone(),
            ReplyBody::Http { .. } => Vec::new(),
            ReplyBody::Chat { .. } => {
                let mut events: Vec<Bytes> = self.chunks(model).iter().map(sse).collect();
                if let End::Error(message) = &self.end {
                    events.push(sse(&json!({"error": {"message": message, "type": "internal_error", "code": 500}})));
                }
                if matches!(self.end, End::Done | End::Error(_)) {
                    events.push(Bytes::from_static(b"data: [DONE]\n\n"));
                }
                events
            }
        };
        let mut steps = Vec::new();
        for (i, bytes) in events.into_iter().enumerate() {
            if i > 0 && !self.piece_delay.is_zero() {
                steps.push(Step::Sleep(self.piece_delay));
            }
            steps.push(Step::Write(bytes));
        }
        match self.end {
            End::Hang => steps.push(Step::Hang),
            End::Die => {
                // Let hyper flush what was written (it does so when the body is pending), as a
                // crashing server's kernel would, before the connection is aborted.
                steps.push(Step::Sleep(Duration::from_millis(20)));
                steps.push(Step::Die);
            }
            _ => {}
        }
        steps
    }

    /// The chunk objects of a chat reply, as vLLM streams them: a role chunk, reasoning,
    /// content, tool-call headers then argument pieces round-robin, and (when the reply ends
    /// normally) a finish chunk and a usage chunk with empty `choices`.
    fn chunks(&self, model: &str) -> Vec<Value> {
        let ReplyBody::Chat { reasoning, content, tool_calls } = &self.body else {
            return Vec::new();
        };
        let envelope = |choices: Value| json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1_700_000_000, "model": model, "choices": choices});
        let delta = |delta: Value| envelope(json!([{"index": 0, "delta": delta, "finish_reason": null}]));
        let mut chunks = vec![delta(json!({"role": "assistant", "content": ""}))];
        chunks.extend(reasoning.iter().map(|r| delta(json!({"reasoning_content": r}))));
        chunks.extend(content.iter().map(|c| delta(json!({"content": c}))));
        for (i, (name, _)) in tool_calls.iter().enumerate() {
            let call = json!({"index": i, "id": format!("call_fake_{i}"), "type": "function", "function": {"name": name, "arguments": ""}});
            chunks.push(delta(json!({"tool_calls": [call]})));
        }
        let pieces: Vec<Vec<String>> = tool_calls.iter().map(|(_, args)| split_chars(args, 4)).collect();
        for round in 0..pieces.iter().map(Vec::len).max().unwrap_or(0) {
            for (i, piece) in pieces.iter().enumerate().filter_map(|(i, p)| Some((i, p.get(round)?))) {
                chunks.push(delta(json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})));
            }
        }
        if self.end != End::Done {
            return chunks;
        }
        let default = if tool_calls.is_empty() { "stop" } else { "tool_calls" };
        let reason = self.finish_reason.as_deref().unwrap_or(default);
        chunks.push(envelope(json!([{"index": 0, "delta": {}, "finish_reason": reason}])));
        if let Some(usage) = self.usage_json() {
            let mut chunk = envelope(json!([]));
            chunk["usage"] = usage;
            chunks.push(chunk);
        }
        // llama.cpp puts its timings on the last chunk.
        if let (Some((prompt_n, cache_n, predicted_n)), Some(last)) = (self.timings, chunks.last_mut()) {
            last["timings"] = json!({"prompt_n": prompt_n, "cache_n": cache_n, "predicted_n": predicted_n});
        }
        chunks
    }

    fn usage_json(&self) -> Option<Value> {
        let (p, c, cached) = self.usage?;
        let mut usage = json!({"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c});
        if let Some(cached) = cached {
            usage["prompt_tokens_details"] = json!({"cached_tokens": cached});
        }
        Some(usage)
    }

    /// The non-streamed `chat.completion` for a request with `"stream": false`.
    fn completion_json(&self, model: &str) -> Value {
        let ReplyBody::Chat { reasoning, content, tool_calls } = &self.body else {
            return Value::Null;
        };
        let mut message = json!({"role": "assistant", "content": content.concat()});
        if !reasoning.is_empty() {
            message["reasoning_content"] = json!(reasoning.concat());
        }
        if !tool_calls.is_empty() {
            message["tool_calls"] = tool_calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| json!({"id": format!("call_fake_{i}"), "type": "function", "function": {"name": name, "arguments": args}}))
                .collect();
        }
        let default = if tool_calls.is_empty() { "stop" } else { "tool_calls" };
        let mut v = json!({
            "id": "chatcmpl-fake", "object": "chat.completion", "created": 1_700_000_000, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason.as_deref().unwrap_or(default)}]
        });
        if let Some(usage) = self.usage_json() {
            v["usage"] = usage;
        }
        v
    }
}

fn sse(v: &Value) -> Bytes {
    Bytes::from(format!("data: {v}\n\n"))
}

fn split_chars(s: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

/// Counts the stream as closed by the peer when it is dropped with steps still to do.
struct PeerCloseGuard {
    shared: Arc<Shared>,
    done: bool,
}

impl Drop for PeerCloseGuard {
    fn drop(&mut self) {
        if !self.done {
            self.shared.peer_closed.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn body_stream(
    steps: Vec<Step>,
    shared: Arc<Shared>,
    shutdown: watch::Receiver<bool>,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    let guard = PeerCloseGuard { shared, done: steps.is_empty() };
    let state = (VecDeque::from(steps), guard, shutdown);
    futures_util::stream::unfold(state, |(mut steps, mut guard, mut shutdown)| async move {
        loop {
            let step = steps.pop_front()?;
            match step {
                Step::Write(bytes) => {
                    guard.done = steps.is_empty();
                    return Some((Ok(bytes), (steps, guard, shutdown)));
                }
                Step::Sleep(d) => {
                    let stopped = tokio::select! {
                        _ = tokio::time::sleep(d) => false,
                        _ = shutdown.wait_for(|s| *s) => true,
                    };
                    if stopped {
                        guard.done = true;
                        return Some((Err(std::io::Error::other("fake server stopped")), (steps, guard, shutdown)));
                    }
                }
                Step::Hang => {
                    let _ = shutdown.wait_for(|s| *s).await;
                    guard.done = true;
                    return Some((Err(std::io::Error::other("fake server stopped")), (steps, guard, shutdown)));
                }
                Step::Die => {
                    guard.done = true;
                    return Some((Err(std::io::Error::other("fake server died mid-reply")), (steps, guard, shutdown)));
                }
            }
        }
    })
}
