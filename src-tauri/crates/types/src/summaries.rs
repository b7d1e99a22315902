//! A summary that stands in for a chat's older messages once they no longer fit.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Summary {
    pub id: i64,
    pub session_id: i64,
    /// It replaces every message of the session up to this one.
    pub through_id: i64,
    /// How many of the user's turns it replaces.
    pub turns: i64,
    pub content: String,
    pub created_at: i64,
}
