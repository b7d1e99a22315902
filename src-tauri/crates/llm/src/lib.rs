//! OpenAI-compatible client: streamed chat completions, model list, tokenize, embeddings and
//! reranking, local probe.
//!
//! - `sse`: bytes → SSE events (split anywhere)
//! - `stream`: event JSON → `Delta`s, tool calls accumulated by index
//! - `chat_stream`: the wire side of a reply (timeouts, cancellation, connection close)
//! - `client`: HTTP, retries, error mapping; `warm`: connections opened ahead of a chat request,
//!   and one kept ready between turns
//! - `embeddings`: embeddings and a reranker's scores, for hybrid search
//! - `models`: model list, context length, tokenize, probing local ports
//! - `request`: the request body types; `endpoint`: base URL, key, timeouts; `error`: `LlmError`

mod chat_stream;
mod client;
mod clients;
mod embeddings;
mod endpoint;
mod error;
mod models;
mod request;
mod sse;
mod stream;
mod warm;

pub use chat_stream::ChatStream;
pub use client::Client;
pub use clients::{ClientConfig, Clients};
pub use endpoint::{Endpoint, Timeouts};
pub use error::{LlmError, TimeoutPhase};
pub use models::{probe_local_servers, probe_ports, FoundServer, ModelInfo, LOCAL_PORTS};
pub use request::{ChatMessage, ChatRequest, Content, ContentPart, ImageUrl, Role, ToolCall, ToolSpec};
pub use stream::{Delta, Usage};
/// Re-exported so callers need not depend on tokio-util for the one type in `stream_chat`.
pub use tokio_util::sync::CancellationToken;
pub use warm::Sent;
