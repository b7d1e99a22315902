//! A chat or a project exported as JSON: the file's shape, read back by the import.

use serde::{Deserialize, Serialize};

use crate::messages::{Role, Status};
use crate::tool_calls::ToolCall;

/// One chat with its project and every message, oldest first.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ChatExport {
    /// Always `maru-chat`.
    pub format: String,
    pub version: u32,
    /// Unix milliseconds.
    pub exported_at: i64,
    pub session: ExportedSession,
    pub project: ExportedProject,
    pub messages: Vec<ExportedMessage>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ExportedSession {
    pub title: String,
    pub preset: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ExportedProject {
    pub name: String,
    pub instructions: String,
    pub is_default: bool,
}

/// A message as written, with its figures. Images sent with a message are not carried.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ExportedMessage {
    pub role: Role,
    pub content: String,
    pub status: Status,
    #[serde(default)]
    pub error: Option<String>,
    /// Why it failed, as a code the UI words in its language (see `Message::error_code`).
    #[serde(default)]
    pub error_code: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    /// The model server that wrote it, by the name it had then.
    #[serde(default)]
    pub server: Option<String>,
    #[serde(default)]
    pub reasoning: Option<String>,
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default)]
    pub tool_call_id: Option<String>,
    #[serde(default)]
    pub tool_name: Option<String>,
    /// A tool result's outcome as data; absent from exports made before Maru kept it.
    #[serde(default)]
    pub tool_outcome: Option<crate::tool_outcomes::ToolOutcome>,
    #[serde(default)]
    pub prompt_tokens: Option<i64>,
    #[serde(default)]
    pub completion_tokens: Option<i64>,
    #[serde(default)]
    pub cached_tokens: Option<i64>,
    #[serde(default)]
    pub ttft_ms: Option<i64>,
    #[serde(default)]
    pub tokens_per_second: Option<f64>,
    pub created_at: i64,
}
