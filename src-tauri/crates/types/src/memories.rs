//! Long-term memory: the facts (section ⑤) and their review.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryStatus {
    /// Proposed by the model, waiting for the user.
    Pending,
    Accepted,
}

sql_text_enum!(MemoryStatus { Pending => "pending", Accepted => "accepted" });

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Memory {
    pub id: i64,
    pub content: String,
    pub pinned: bool,
    pub status: MemoryStatus,
    pub source_session_id: Option<i64>,
    pub source_message_id: Option<i64>,
    /// When it was last accepted or edited by the user: ⑤ lists the newest first, after pinned.
    pub confirmed_at: Option<i64>,
    /// A pending change to this accepted fact: accepting it rewrites that fact, dismissing it
    /// leaves the fact as it was (which stays in ⑤ meanwhile).
    pub replaces: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// Which facts to list.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryFilter {
    #[default]
    Accepted,
    Pending,
    All,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMemory {
    pub content: String,
    #[serde(default)]
    pub pinned: bool,
    pub source_session_id: Option<i64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryPatch {
    pub content: Option<String>,
    pub pinned: Option<bool>,
}
