//! What changed in the data, as every window and tab hears it (`GET /api/events`).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Change {
    /// A chat was created or changed (title, project, preset, model, its last activity).
    SessionChanged {
        session_id: i64,
    },
    SessionDeleted {
        session_id: i64,
    },
    /// A project was created, renamed, linked, or deleted (its chats moved to Default).
    ProjectsChanged,
    /// A reply began being written in the chat.
    TurnStarted {
        session_id: i64,
    },
    /// The chat's turn ended, however it ended.
    TurnEnded {
        session_id: i64,
    },
    /// This listener fell behind and missed changes: read everything again.
    Resync,
}
