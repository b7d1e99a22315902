//! Projects: labels that group chats and carry project instructions (section ③).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Project {
    pub id: i64,
    pub name: String,
    pub instructions: String,
    pub is_default: bool,
    /// A folder on the user's disk the project follows (absolute), if any.
    pub folder: Option<String>,
    /// Paths of the folder left out of the project's files, one `.gitignore` pattern each (the
    /// folder's own `.maruignore` leaves out more).
    pub exclude: Vec<String>,
    /// How its chats ask about the calls of the user's tool servers.
    pub tool_approval: ToolApproval,
    pub session_count: i64,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewProject {
    pub name: String,
    #[serde(default)]
    pub instructions: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProjectPatch {
    pub name: Option<String>,
    pub instructions: Option<String>,
    /// Links the project to a folder (an absolute path to a directory); `null` unlinks it. Checked
    /// by the api layer, which looks at the disk.
    #[serde(default, deserialize_with = "crate::present")]
    pub folder: Option<Option<String>>,
    /// Replaces the patterns of paths left out of the folder; checked by the api layer.
    pub exclude: Option<Vec<String>>,
    pub tool_approval: Option<ToolApproval>,
}

/// How a project's chats ask about the calls of the user's tool servers (a tool the user always
/// allows runs without asking either way).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolApproval {
    /// Every call waits for the user.
    #[default]
    Ask,
    /// A tool its server marks read-only (`readOnlyHint`) runs without asking; the others ask.
    ReadOnlyRuns,
}

sql_text_enum!(ToolApproval { Ask => "ask", ReadOnlyRuns => "read_only_runs" });

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DeletedProject {
    pub id: i64,
    /// Sessions moved to the Default project by the deletion.
    pub moved_sessions: i64,
    pub default_project_id: i64,
}
