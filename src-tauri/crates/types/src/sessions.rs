//! Chats (`sessions`): their project, title, preset and model.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Session {
    pub id: i64,
    pub project_id: i64,
    pub title: String,
    pub preset: Option<String>,
    /// The model this chat asks for; `None`: the default model of its server.
    pub model: Option<String>,
    /// The server this chat asks (`/api/connections`); `None`: the default server.
    #[serde(default)]
    pub connection_id: Option<i64>,
    pub created_at: i64,
    /// Newest activity: creation, rename, move or the latest message.
    pub updated_at: i64,
    /// When it was imported from an exported chat: it is a copy.
    #[serde(default)]
    pub imported_at: Option<i64>,
    /// A temporary chat: never listed, searched, titled by the model, remembered or summarised,
    /// and deleted when closed or at the next start, unless kept (`POST /api/sessions/{id}/keep`).
    #[serde(default)]
    pub temporary: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSession {
    #[serde(default)]
    pub title: String,
    /// Default project when absent.
    pub project_id: Option<i64>,
    /// A temporary chat (see [`Session::temporary`]).
    #[serde(default)]
    pub temporary: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionPatch {
    pub title: Option<String>,
    /// Moves the session (and everything in it) to this project.
    pub project_id: Option<i64>,
    /// A preset key replaces the base prompt; `null` goes back to it. Checked by the api layer,
    /// which knows the built-in presets.
    #[serde(default, deserialize_with = "crate::present")]
    pub preset: Option<Option<String>>,
    /// This chat's model; `null` goes back to its server's default.
    #[serde(default, deserialize_with = "crate::present")]
    pub model: Option<Option<String>>,
    /// This chat's server; `null` goes back to the default server. Set with `model`, the two
    /// make the (server, model) pair the chat asks.
    #[serde(default, deserialize_with = "crate::present")]
    pub connection_id: Option<Option<i64>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SessionPage {
    pub sessions: Vec<Session>,
    /// Pass back as `cursor` for the next page; absent on the last page.
    pub next_cursor: Option<String>,
}
