//! `LlmError`: every way talking to the model server can fail, worded so the user knows what to do.
//!
//! Classification lives here too: HTTP status + body → variant, and reqwest transport error →
//! variant. Messages quoted from the server are trimmed; the API key never appears in them
//! (the client redacts server text before it gets here).

use maru_error::UpstreamCode;
use std::fmt;
use std::io::ErrorKind;
use std::time::Duration;

use serde::Serialize;

/// Which wait ran out. Each has its own default and its own advice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutPhase {
    /// Opening the TCP (and TLS) connection.
    Connect,
    /// From sending the request to the first byte of the reply body (prompt processing).
    FirstByte,
    /// Between two reads of a reply that has started.
    Idle,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    #[error("The server address \"{url}\" is not valid: {reason}. Use a URL like http://127.0.0.1:8080/v1.")]
    InvalidUrl { url: String, reason: String },

    #[error(
        "Nothing is listening at {url}: the connection was refused. Start the model server, or check the address and port in settings."
    )]
    Unreachable { url: String },

    #[error("Could not find the host \"{host}\" (DNS lookup failed). Check the server address in settings.")]
    Dns { host: String },

    #[error("Could not talk to {url}: {detail}.")]
    Network { url: String, detail: String },

    #[error("{}", timeout_text(*.phase, *.after, .url))]
    Timeout { phase: TimeoutPhase, after: Duration, url: String },

    #[error("{}", unauthorized_text(*.status, *.key_sent, .url, .message))]
    Unauthorized { status: u16, key_sent: bool, url: String, message: String },

    #[error("The server has no model named \"{model}\". Pick one from the model list in settings. (Server said: {message})")]
    UnknownModel { model: String, message: String },

    #[error("Nothing at {url} (HTTP 404). Check the base URL: OpenAI-compatible servers usually serve under /v1, e.g. http://127.0.0.1:8080/v1. (Server said: {message})")]
    NotFound { url: String, message: String },

    /// The prompt does not fit the model's context window. The turn ends with this error; the
    /// user shortens the chat or starts a new one (nothing is compacted automatically yet).
    #[error("The conversation is too long for the model's context window. Start a new chat, or delete older messages from this one. (Server said: {message})")]
    ContextTooLong { message: String },

    #[error("The server rejected the request (HTTP {status}): {message}")]
    Rejected { status: u16, message: String },

    #[error("The server failed (HTTP {status}): {message}. Check the server's log.")]
    ServerError { status: u16, message: String },

    /// The reply is not what an OpenAI-compatible server sends (not SSE, not JSON, …).
    #[error("The server's reply is not an OpenAI-compatible stream: {detail}")]
    BadResponse { detail: String },

    /// The server put an error object into the stream after the reply had started.
    #[error("The server reported an error mid-reply: {message}")]
    StreamError { message: String },

    #[error("The connection to the server was lost before the reply was complete ({detail}). The server may have crashed or restarted: check its log and try again.")]
    Disconnected { detail: String },

    #[error("Stopped.")]
    Cancelled,
}

fn timeout_text(phase: TimeoutPhase, after: Duration, url: &str) -> String {
    let secs = after.as_secs_f64();
    match phase {
        TimeoutPhase::Connect => format!(
            "Could not connect to {url} within {secs} s. Check that the server is running and reachable (address, firewall, VPN)."
        ),
        TimeoutPhase::FirstByte => format!(
            "The server at {url} accepted the request but sent nothing for {secs} s. A long prompt on a slow machine can take this long: raise the first-byte timeout in settings, or shorten the conversation."
        ),
        TimeoutPhase::Idle => format!(
            "The server stopped sending in the middle of the reply (nothing for {secs} s). It may be overloaded or stuck: try again, or raise the idle timeout in settings."
        ),
    }
}

fn unauthorized_text(status: u16, key_sent: bool, url: &str, message: &str) -> String {
    let advice = if key_sent { "rejected the API key: check the key in settings" } else { "requires an API key: enter it in settings" };
    format!("The server at {url} {advice} (HTTP {status}). (Server said: {message})")
}

impl LlmError {
    /// Stable machine-readable code; the UI branches on it (as `model_server.<code>`).
    pub fn code(&self) -> &'static str {
        self.upstream().as_str()
    }

    /// The code as the one list of the model server's codes names it.
    pub fn upstream(&self) -> UpstreamCode {
        match self {
            LlmError::InvalidUrl { .. } => UpstreamCode::InvalidUrl,
            LlmError::Unreachable { .. } => UpstreamCode::Unreachable,
            LlmError::Dns { .. } => UpstreamCode::Dns,
            LlmError::Network { .. } => UpstreamCode::Network,
            LlmError::Timeout { phase: TimeoutPhase::Connect, .. } => UpstreamCode::TimeoutConnect,
            LlmError::Timeout { phase: TimeoutPhase::FirstByte, .. } => UpstreamCode::TimeoutFirstByte,
            LlmError::Timeout { phase: TimeoutPhase::Idle, .. } => UpstreamCode::TimeoutIdle,
            LlmError::Unauthorized { .. } => UpstreamCode::Unauthorized,
            LlmError::UnknownModel { .. } => UpstreamCode::UnknownModel,
            LlmError::NotFound { .. } => UpstreamCode::NotFound,
            LlmError::ContextTooLong { .. } => UpstreamCode::ContextTooLong,
            LlmError::Rejected { .. } => UpstreamCode::Rejected,
            LlmError::ServerError { .. } => UpstreamCode::ServerError,
            LlmError::BadResponse { .. } => UpstreamCode::BadResponse,
            LlmError::StreamError { .. } => UpstreamCode::StreamError,
            LlmError::Disconnected { .. } => UpstreamCode::Disconnected,
            LlmError::Cancelled => UpstreamCode::Cancelled,
        }
    }

    /// Worth another attempt before any byte of the reply arrived: the request never reached
    /// a working server, so retrying cannot duplicate work.
    pub(crate) fn is_connect_failure(&self) -> bool {
        matches!(self, LlmError::Unreachable { .. } | LlmError::Timeout { phase: TimeoutPhase::Connect, .. })
    }

    pub fn disconnected(detail: impl Into<String>) -> Self {
        LlmError::Disconnected { detail: detail.into() }
    }

    pub(crate) fn bad_response(detail: impl Into<String>) -> Self {
        LlmError::BadResponse { detail: detail.into() }
    }
}

/// A model-server failure as Maru's API reports it: `model_server.<code>` with this message.
impl From<LlmError> for maru_error::Error {
    fn from(e: LlmError) -> Self {
        maru_error::Error::Upstream { code: e.upstream(), message: e.to_string() }
    }
}

/// Maps an HTTP error status and its body to the variant the user (and the chat engine) needs.
pub(crate) fn from_status(status: u16, body: &str, model: Option<&str>, url: &str, key_sent: bool) -> LlmError {
    let message = server_message(body);
    let lower = message.to_lowercase();
    match status {
        401 | 403 => LlmError::Unauthorized { status, key_sent, url: url.to_string(), message },
        // 429 is a rate limit ("exceeds the quota"), never an oversized prompt.
        _ if (400..500).contains(&status) && status != 429 && mentions_context_overflow(&lower) => LlmError::ContextTooLong { message },
        404 | 400 if model.is_some_and(|m| mentions_unknown_model(status, &lower, m)) => {
            LlmError::UnknownModel { model: model.unwrap_or_default().to_string(), message }
        }
        404 => LlmError::NotFound { url: url.to_string(), message },
        400..=499 => LlmError::Rejected { status, message },
        _ => LlmError::ServerError { status, message },
    }
}

/// The wordings vLLM, llama.cpp, LM Studio and OpenAI use when the prompt does not fit.
pub(crate) fn mentions_context_overflow(lower: &str) -> bool {
    const HINTS: &[&str] = &[
        "context length",
        "context_length",
        "maximum context",
        "context size",
        "context window",
        "exceed_context",
        "exceeds the",
        "too long",
        "too large",
        "maximum model length",
        "max_model_len",
        "longer than the maximum",
    ];
    HINTS.iter().any(|h| lower.contains(h))
}

/// A 404 naming the model is about the model; a 400 must also say it is missing, because
/// "model x does not support tools" names the model too.
fn mentions_unknown_model(status: u16, lower: &str, model: &str) -> bool {
    const HINTS: &[&str] =
        &["not found", "does not exist", "not exist", "unknown", "no such", "not loaded", "invalid model", "not available"];
    let names_it = !model.is_empty() && lower.contains(&model.to_lowercase());
    let says_missing = HINTS.iter().any(|h| lower.contains(h));
    match status {
        404 => names_it || lower.contains("model") && says_missing,
        _ => (names_it || lower.contains("model")) && says_missing,
    }
}

/// The human part of an error body: OpenAI `{"error":{"message"}}`, `{"error":"…"}`,
/// vLLM `{"object":"error","message"}`, FastAPI `{"detail"}`, else the text itself. Trimmed.
pub(crate) fn server_message(body: &str) -> String {
    let from_json = serde_json::from_str::<serde_json::Value>(body).ok().and_then(|v| error_message(&v));
    let text = from_json.unwrap_or_else(|| body.to_string());
    let text = if text.trim().is_empty() { "(empty reply)".to_string() } else { text };
    trim_for_display(&text)
}

/// The message of an error object, wherever the server put it; `None` when `v` is no error.
pub(crate) fn error_message(v: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    let as_text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => other.get("message").and_then(Value::as_str).map(str::to_string).or_else(|| Some(other.to_string())),
    };
    if let Some(e) = v.get("error").filter(|e| !e.is_null()) {
        return as_text(e);
    }
    if v.get("object").and_then(Value::as_str) == Some("error") {
        return Some(v.get("message").and_then(as_text).unwrap_or_else(|| v.to_string()));
    }
    v.get("detail").and_then(as_text)
}

/// One line, at most ~300 characters: enough to act on, short enough for a toast.
pub(crate) fn trim_for_display(text: &str) -> String {
    const MAX: usize = 300;
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

/// Maps a reqwest error that happened before a response arrived.
pub(crate) fn from_transport(err: &reqwest::Error, url: &str, host: &str, connect_timeout: Duration) -> LlmError {
    let chain = source_chain(err);
    if err.is_connect() && err.is_timeout() {
        return LlmError::Timeout { phase: TimeoutPhase::Connect, after: connect_timeout, url: url.to_string() };
    }
    if chain.iter().any(|e| io_kind(*e) == Some(ErrorKind::ConnectionRefused)) {
        return LlmError::Unreachable { url: url.to_string() };
    }
    let text: Vec<String> = chain.iter().map(|e| e.to_string()).collect();
    // The request went out and the connection died before an answer: the server crashed or
    // was restarted while reading the prompt.
    let lost = chain.iter().any(|e| {
        matches!(
            io_kind(*e),
            Some(ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted | ErrorKind::BrokenPipe | ErrorKind::UnexpectedEof)
        )
    }) || text.iter().any(|t| t.contains("connection closed before message completed"));
    if !err.is_connect() && lost {
        return LlmError::disconnected("the server closed the connection before answering");
    }
    if err.is_connect() && text.iter().any(|t| t.contains("dns error") || t.contains("failed to lookup address")) {
        return LlmError::Dns { host: host.to_string() };
    }
    // The innermost cause is the most specific ("tls handshake eof", "connection reset", …).
    let detail = text.last().cloned().unwrap_or_else(|| "unknown network error".into());
    LlmError::Network { url: url.to_string(), detail: trim_for_display(&detail) }
}

/// Short description of a failure while reading a body that had started.
pub(crate) fn body_failure_detail(err: &reqwest::Error) -> String {
    let chain = source_chain(err);
    let detail = chain.last().map(|e| e.to_string()).unwrap_or_else(|| "read failed".into());
    trim_for_display(&detail)
}

fn source_chain(err: &reqwest::Error) -> Vec<&(dyn std::error::Error + 'static)> {
    let mut out: Vec<&(dyn std::error::Error + 'static)> = Vec::new();
    let mut cur = std::error::Error::source(err);
    while let Some(e) = cur {
        out.push(e);
        cur = e.source();
    }
    out
}

fn io_kind(e: &(dyn std::error::Error + 'static)) -> Option<ErrorKind> {
    e.downcast_ref::<std::io::Error>().map(std::io::Error::kind)
}

impl fmt::Display for TimeoutPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeoutPhase::Connect => "connect",
            TimeoutPhase::FirstByte => "first byte",
            TimeoutPhase::Idle => "idle",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VLLM_CONTEXT: &str = r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#;
    const LLAMA_CONTEXT: &str = r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}"#;
    const VLLM_NO_MODEL: &str =
        r#"{"object":"error","message":"The model `gpt-9` does not exist.","type":"NotFoundError","param":null,"code":404}"#;

    #[test]
    fn context_overflow_is_recognised_in_vllm_and_llama_cpp_wording() {
        for body in [VLLM_CONTEXT, LLAMA_CONTEXT] {
            let e = from_status(400, body, Some("m"), "http://x/v1", false);
            assert_eq!(e.code(), "context_too_long", "the chat engine compacts only on this variant: {body}");
        }
    }

    #[test]
    fn unknown_model_names_the_model() {
        let e = from_status(404, VLLM_NO_MODEL, Some("gpt-9"), "http://x/v1", false);
        assert!(matches!(&e, LlmError::UnknownModel { model, .. } if model == "gpt-9"), "{e:?}");
        assert!(e.to_string().contains("gpt-9"), "the user must see which model name was wrong");
        let ollama = r#"{"error":{"message":"model \"qwen\" not found, try pulling it first","type":"api_error"}}"#;
        assert_eq!(from_status(404, ollama, Some("qwen"), "u", false).code(), "unknown_model");
    }

    #[test]
    fn plain_404_points_at_the_base_url() {
        let e = from_status(404, r#"{"detail":"Not Found"}"#, Some("m"), "http://x/chat/completions", false);
        assert_eq!(e.code(), "not_found", "a 404 that is not about a model means a wrong base URL");
        assert!(e.to_string().contains("/v1"));
    }

    #[test]
    fn auth_errors_say_whether_a_key_was_sent() {
        let missing = from_status(401, "", None, "u", false).to_string();
        let wrong = from_status(403, "", None, "u", true).to_string();
        assert!(missing.contains("requires an API key"), "{missing}");
        assert!(wrong.contains("rejected the API key"), "{wrong}");
    }

    #[test]
    fn other_statuses_keep_status_and_trimmed_message() {
        let e = from_status(500, &format!("boom {}", "x".repeat(2000)), None, "u", false);
        assert_eq!(e.code(), "server_error");
        let text = e.to_string();
        assert!(text.contains("500") && text.contains("boom") && text.chars().count() < 500, "{text}");
        assert_eq!(from_status(422, r#"{"detail":"bad temperature"}"#, None, "u", false).code(), "rejected");
    }

    #[test]
    fn error_message_reads_every_shape() {
        let v = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
        assert_eq!(error_message(&v(r#"{"error":{"message":"a"}}"#)).as_deref(), Some("a"));
        assert_eq!(error_message(&v(r#"{"error":"b"}"#)).as_deref(), Some("b"));
        assert_eq!(error_message(&v(r#"{"object":"error","message":"c"}"#)).as_deref(), Some("c"));
        assert_eq!(error_message(&v(r#"{"choices":[],"error":null}"#)), None);
    }
}
