//! Sharing with other apps: which of Maru's tools another app (Claude Desktop, an editor) may
//! call through `maru mcp` or `/mcp`, and the record of each call, which the user sees in
//! Settings.

use serde::{Deserialize, Serialize};

/// What is shared, by group; nothing by default. A group left off is not listed to the other
/// app at all, so its model never sees that the tool exists.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Sharing {
    /// `search_memory`: the saved facts about the user.
    pub memory_read: bool,
    /// `remember`, `update_memory`, `forget`, under the same review rule as Maru's own model.
    pub memory_write: bool,
    /// `search_chats`: every kept chat, in every project.
    pub chats: bool,
    /// `search_project_files`: the files of these projects only (ids of `/api/projects`); none
    /// shares no file.
    pub projects: Vec<i64>,
}

impl Sharing {
    /// The most projects one setting names: more than anyone shares, few enough to check.
    pub const PROJECTS_MAX: usize = 1_000;
}

/// One call another app made, newest first in `GET /api/sharing/calls`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SharedCall {
    pub id: i64,
    /// When, in milliseconds since 1970.
    pub at: i64,
    /// The app, by the name it gave when it connected (`clientInfo.name` of `initialize`); empty
    /// when it gave none.
    pub client: String,
    pub tool: String,
    /// What it asked, in a line: the query, the fact, the id.
    pub summary: String,
    /// The call was answered; `false`: refused or failed (`error` says why).
    pub ok: bool,
    pub error: Option<String>,
}
