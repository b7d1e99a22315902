//! What a turn tells the UI as it goes: the same events over Server-Sent Events and Tauri channels.

use serde::{Deserialize, Serialize};

use crate::llm::Usage;
use crate::store::messages::Message;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TurnEvent {
    Token { text: String },
    Reasoning { text: String },
    ToolCall { id: String, name: String, arguments: String },
    ToolResult { id: String, name: String, content: String, is_error: bool },
    Usage { usage: Usage },
    /// The turn ended; `message` is the final assistant reply as stored (complete or stopped).
    Done { message: Box<Message> },
    /// The turn failed; the user's message is kept and `message_id` is the failed reply, if any.
    Error { code: String, message: String, message_id: Option<i64> },
}

impl TurnEvent {
    /// The SSE event name.
    pub fn name(&self) -> &'static str {
        match self {
            TurnEvent::Token { .. } => "token",
            TurnEvent::Reasoning { .. } => "reasoning",
            TurnEvent::ToolCall { .. } => "tool_call",
            TurnEvent::ToolResult { .. } => "tool_result",
            TurnEvent::Usage { .. } => "usage",
            TurnEvent::Done { .. } => "done",
            TurnEvent::Error { .. } => "error",
        }
    }
}
