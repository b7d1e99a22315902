//! `Client`: HTTP to the model server. Sends requests with the bearer key, waits per phase,
//! retries what is safe to retry, honours cancellation, and turns failures into `LlmError`s.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{RequestBuilder, Response, StatusCode, Url};
use tokio_util::sync::CancellationToken;
use tracing::{debug, instrument, warn};

use super::chat_stream::ChatStream;
use super::endpoint::{is_loopback, shown_url, Endpoint, Timeouts, USER_AGENT};
use super::error::{self, LlmError, TimeoutPhase};
use super::request::ChatRequest;
use super::warm::{self, Sent, Warm};

/// Retries happen only before any byte of a reply arrived (connect failures, 502/503/504),
/// so a retry can never duplicate text the user already saw.
const MAX_RETRIES: u32 = 2;
const BACKOFF: [Duration; 2] = [Duration::from_millis(250), Duration::from_millis(750)];
/// Model lists, props and tokenize answer at once on any healthy server.
const SMALL_CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Error bodies and non-SSE replies are read only this far: enough for a message.
const ERROR_BODY_CAP: usize = 64 * 1024;

/// A connection to one OpenAI-compatible server. Cheap to clone (the pool is shared).
#[derive(Clone)]
pub struct Client {
    endpoint: Endpoint,
    timeouts: Timeouts,
    max_retries: u32,
    http: reqwest::Client,
    /// Connections opened ahead of chat requests ([`Client::open_connection`]).
    warm: Arc<Warm>,
    /// The chat URL, parsed once (every turn needs it twice); `None` when the base URL is bad,
    /// which each request then reports.
    chat_url: Option<Url>,
}

impl Client {
    pub fn new(endpoint: Endpoint, timeouts: Timeouts) -> Client {
        let mut builder = reqwest::Client::builder()
            .connect_timeout(timeouts.connect)
            .tcp_nodelay(true)
            .pool_idle_timeout(Duration::from_secs(30))
            .user_agent(USER_AGENT);
        // A system-wide HTTP proxy must not capture requests to a server on this machine.
        if endpoint.api_url("").is_ok_and(|u| is_loopback(&u)) {
            builder = builder.no_proxy();
        }
        let http = builder.build().unwrap_or_else(|e| {
            warn!(error = %e, "falling back to a default HTTP client");
            reqwest::Client::new()
        });
        let chat_url = endpoint.api_url("chat/completions").ok();
        Client { endpoint, timeouts, max_retries: MAX_RETRIES, http, warm: Arc::default(), chat_url }
    }

    /// Starts opening a connection for the next chat request, which will go out on it: for a
    /// caller with work to do first (a turn reading its chat), that work then hides the connect.
    /// Does nothing where the usual way must be kept (HTTPS, a proxy: see `warm`).
    pub fn open_connection(&self) {
        if let Some(url) = &self.chat_url {
            self.warm.open(url, self.timeouts.connect);
        }
    }

    /// Keeps a connection to the server ready for the next turn's request (its
    /// [`Client::open_connection`] takes it), for a while: see `warm`. Where the usual way must
    /// be kept (HTTPS, a proxy), it does nothing.
    pub fn keep_ready(&self) {
        if let Some(url) = &self.chat_url {
            self.warm.keep_ready(url, self.timeouts.connect);
        }
    }

    /// No retries: for probing, where a refused connection is the answer, not a hiccup.
    pub(crate) fn without_retries(mut self) -> Self {
        self.max_retries = 0;
        self
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Starts a streamed chat completion. Returns once the server answered with a stream;
    /// the deltas come from the returned `ChatStream`. Cancelling `cancel` (or dropping the
    /// stream) closes the connection, which makes the server stop generating.
    #[instrument(skip_all, fields(model = %req.model), err(Display, level = "warn"))]
    pub async fn stream_chat(&self, req: &ChatRequest, cancel: CancellationToken) -> Result<ChatStream, LlmError> {
        self.stream_chat_noting(req, cancel, None).await
    }

    /// [`Client::stream_chat`], telling `sent` once the request has gone out (see [`Sent`]).
    /// Work that must not delay the request can wait for it: on a small machine, a thread woken
    /// before then often takes the very core that was about to send.
    pub async fn stream_chat_noting(
        &self,
        req: &ChatRequest,
        cancel: CancellationToken,
        sent: Option<Sent>,
    ) -> Result<ChatStream, LlmError> {
        self.stream_chat_body(req.body(), &req.model, cancel, sent).await
    }

    /// [`Client::stream_chat_noting`] for a request already serialised ([`ChatRequest::body`])
    /// asking `model`.
    pub async fn stream_chat_body(
        &self,
        body: Vec<u8>,
        model: &str,
        cancel: CancellationToken,
        sent: Option<Sent>,
    ) -> Result<ChatStream, LlmError> {
        let url = match &self.chat_url {
            Some(url) => url.clone(),
            None => self.endpoint.api_url("chat/completions")?,
        };
        debug!(url = %shown_url(&url), bytes = body.len(), "sending chat request");
        let build = || {
            self.authorised(self.http.post(url.clone()))
                .header(ACCEPT, "text/event-stream")
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone())
        };
        let (resp, started) = self.send(build, &url, self.timeouts.first_byte, &cancel, self.warm.take(), sent).await?;
        if !resp.status().is_success() {
            return Err(self.status_error(resp, Some(model), &url).await);
        }
        let content_type = resp.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
        if !content_type.to_ascii_lowercase().starts_with("text/event-stream") {
            return Err(self.not_a_stream(resp, &content_type).await);
        }
        Ok(ChatStream::new(resp, &url, started, self.timeouts, cancel, self.endpoint.clone()))
    }

    /// GET or POST for the small JSON calls (models, props, tokenize): status and body text.
    pub(crate) async fn small_call(&self, build: impl Fn() -> RequestBuilder, url: &Url) -> Result<(StatusCode, String), LlmError> {
        self.json_call(build, url, SMALL_CALL_TIMEOUT.min(self.timeouts.first_byte)).await
    }

    /// A JSON call that may take as long as a reply's first byte (a batch of embeddings on a
    /// busy server): status and body text. A caller with a tighter budget drops the future,
    /// which closes the connection.
    pub(crate) async fn json_call(
        &self,
        build: impl Fn() -> RequestBuilder,
        url: &Url,
        wait: Duration,
    ) -> Result<(StatusCode, String), LlmError> {
        let (resp, _) = self.send(|| self.authorised(build()), url, wait, &CancellationToken::new(), None, None).await?;
        let status = resp.status();
        let body = read_capped(resp, 16 * 1024 * 1024, self.timeouts.idle).await;
        Ok((status, self.endpoint.redact(&body)))
    }

    pub(crate) fn timeouts(&self) -> Timeouts {
        self.timeouts
    }

    pub(crate) fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// The error for a non-success status, with the server's (redacted, trimmed) message.
    pub(crate) fn error_for_status(&self, status: StatusCode, body: &str, model: Option<&str>, url: &Url) -> LlmError {
        let body = self.endpoint.redact(body);
        error::from_status(status.as_u16(), &body, model, &shown_url(url), self.endpoint.key().is_some())
    }

    fn authorised(&self, req: RequestBuilder) -> RequestBuilder {
        match self.endpoint.key() {
            Some(key) => req.bearer_auth(key),
            None => req,
        }
    }

    /// Sends with retries; returns the response (any status) and when its attempt started.
    /// The first attempt goes out on the connection `warm` opens, when there is one; `on_sent`
    /// is told when it has gone out.
    async fn send(
        &self,
        build: impl Fn() -> RequestBuilder,
        url: &Url,
        wait: Duration,
        cancel: &CancellationToken,
        mut warm: Option<warm::Opening>,
        mut on_sent: Option<Sent>,
    ) -> Result<(Response, Instant), LlmError> {
        let mut attempt = 0;
        loop {
            let started = Instant::now();
            let sent = async {
                match warm.take() {
                    Some(opening) => match build().build() {
                        Ok(request) => warm::send(opening, request, on_sent.take()).await,
                        Err(e) => Err(self.transport_error(&e, url)),
                    },
                    // reqwest cannot tell when it wrote: dropped as the request is handed to it.
                    None => {
                        drop(on_sent.take());
                        build().send().await.map_err(|e| self.transport_error(&e, url))
                    }
                }
            };
            let outcome = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                r = tokio::time::timeout(wait, sent) => r,
            };
            let outcome = match outcome {
                Err(_) => Err(LlmError::Timeout { phase: TimeoutPhase::FirstByte, after: wait, url: shown_url(url) }),
                Ok(outcome) => outcome,
            };
            // A kept-alive connection the server closed as the request went out (llama.cpp's and
            // uvicorn's servers drop idle ones after 5 s), or one opened ahead that failed, fails
            // before any answer: sent again at once on a new connection. Only once, so a server
            // that really dies on the request still reads as one that did.
            if attempt == 0 && self.max_retries > 0 && matches!(outcome, Err(LlmError::Disconnected { .. })) {
                debug!("the server closed a kept-alive connection as the request went out; sending it again");
                attempt += 1;
                continue;
            }
            let retry = attempt < self.max_retries
                && match &outcome {
                    Ok(resp) => matches!(resp.status().as_u16(), 502..=504),
                    // A transport error before any response is safe to retry: the user has seen
                    // nothing yet.
                    Err(e) => e.is_connect_failure() || matches!(e, LlmError::Network { .. }),
                };
            if !retry {
                return outcome.map(|resp| (resp, started));
            }
            match &outcome {
                Ok(resp) => warn!(status = resp.status().as_u16(), attempt, "server busy or restarting, retrying"),
                Err(e) => warn!(error = %e, attempt, "connect failed, retrying"),
            }
            drop(outcome);
            tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                _ = tokio::time::sleep(BACKOFF[attempt as usize]) => {}
            }
            attempt += 1;
        }
    }

    fn transport_error(&self, err: &reqwest::Error, url: &Url) -> LlmError {
        let e = error::from_transport(err, &shown_url(url), url.host_str().unwrap_or(""), self.timeouts.connect);
        match e {
            LlmError::Network { url, detail } => LlmError::Network { url, detail: self.endpoint.redact(&detail) },
            other => other,
        }
    }

    async fn status_error(&self, resp: Response, model: Option<&str>, url: &Url) -> LlmError {
        let status = resp.status();
        let body = read_capped(resp, ERROR_BODY_CAP, self.timeouts.idle).await;
        self.error_for_status(status, &body, model, url)
    }

    /// A 200 that is not an event stream: a JSON error some servers send with 200, a proxy's
    /// HTML page, or a server that ignored `"stream": true`.
    async fn not_a_stream(&self, resp: Response, content_type: &str) -> LlmError {
        let body = self.endpoint.redact(&read_capped(resp, ERROR_BODY_CAP, self.timeouts.idle).await);
        if let Some(message) = serde_json::from_str(&body).ok().and_then(|v| error::error_message(&v)) {
            let message = error::trim_for_display(&message);
            if error::mentions_context_overflow(&message.to_lowercase()) {
                return LlmError::ContextTooLong { message };
            }
            return LlmError::StreamError { message };
        }
        let shown_type = if content_type.is_empty() { "no content type" } else { content_type };
        LlmError::bad_response(format!(
            "expected an event stream (text/event-stream) but got {shown_type}. Is the base URL an OpenAI-compatible API? The reply began: \"{}\"",
            error::trim_for_display(&body.chars().take(200).collect::<String>())
        ))
    }
}

/// Reads at most `cap` bytes of a body, giving up quietly on silence or error: the caller only
/// needs enough text to explain a failure.
pub(crate) async fn read_capped(mut resp: Response, cap: usize, idle: Duration) -> String {
    let mut buf = Vec::new();
    while buf.len() < cap {
        match tokio::time::timeout(idle, resp.chunk()).await {
            Ok(Ok(Some(bytes))) => buf.extend_from_slice(&bytes),
            _ => break,
        }
    }
    buf.truncate(cap);
    String::from_utf8_lossy(&buf).into_owned()
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").field("endpoint", &self.endpoint).field("timeouts", &self.timeouts).finish()
    }
}
