//! A chat's messages: the user's, the model's replies with how they ended, and tool results.

use serde::{Deserialize, Serialize};

use crate::tool_calls::ToolCall;
use crate::tool_outcomes::ToolOutcome;

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    #[default]
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    #[default]
    Complete,
    Streaming,
    /// The user pressed stop; the partial text stays.
    Stopped,
    /// Maru closed or crashed while the reply was streaming; the partial text stays.
    Interrupted,
    Error,
}

sql_text_enum!(Role { User => "user", Assistant => "assistant", Tool => "tool" });

sql_text_enum!(Status {
    Complete => "complete", Streaming => "streaming", Stopped => "stopped",
    Interrupted => "interrupted", Error => "error",
});

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Message {
    pub id: i64,
    pub session_id: i64,
    pub role: Role,
    pub content: String,
    pub status: Status,
    pub error: Option<String>,
    /// Why it failed, stopped or was interrupted, as a code the UI words in its language
    /// (`model_server.*`, `reply_too_long`, `interrupted`…); `error` is the English text.
    pub error_code: Option<String>,
    pub model: Option<String>,
    /// Assistant: the model server that wrote it, by the name it had then.
    pub server: Option<String>,
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
    /// Prompt tokens the server reused from its cache; absent when the server does not say.
    pub cached_tokens: Option<i64>,
    pub ttft_ms: Option<i64>,
    pub tokens_per_second: Option<f64>,
    /// User: the exact send time, sent to the model with the message but not shown in the UI.
    pub runtime_note: Option<String>,
    /// Assistant: the model's reasoning, apart from its answer.
    pub reasoning: Option<String>,
    /// Assistant: the tool calls it made.
    pub tool_calls: Vec<ToolCall>,
    /// Tool: the call this result answers, and the tool's name.
    pub tool_call_id: Option<String>,
    pub tool_name: Option<String>,
    /// Tool: what the call did, as data (absent for results stored before Maru kept it).
    pub tool_outcome: Option<ToolOutcome>,
    /// User: the images (attachment ids) sent with it, in order.
    pub images: Vec<i64>,
    /// The message this one follows; absent for a chat's first message.
    pub parent_id: Option<i64>,
    /// The ids of this message's versions (itself and its siblings), oldest first; empty when
    /// it has no other version.
    pub versions: Vec<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct MessagePage {
    /// Newest first.
    pub messages: Vec<Message>,
    /// Pass back as `before` for the older page; absent when there is none.
    pub next_before: Option<i64>,
}
