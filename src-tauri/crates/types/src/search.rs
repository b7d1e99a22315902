//! What a search finds: a chat's message, or a passage of an attached file.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ChatHit {
    pub session_id: i64,
    pub project_id: i64,
    pub title: String,
    /// The best matching message, to open the chat at; absent when only the title matched.
    pub message_id: Option<i64>,
    /// A short excerpt of that message (or the title) around the first match.
    pub snippet: String,
    /// `[start, end)` character ranges of the matched words in `snippet`.
    #[schema(schema_with = ranges)]
    pub highlights: Vec<[usize; 2]>,
    /// The message is an earlier version (a reply regenerated since, a message edited and
    /// resent), found because the search asked for versions too.
    pub earlier_version: bool,
}

/// A passage of an attached file that matches, for search across everything.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct FileHit {
    pub attachment_id: i64,
    pub name: String,
    /// The chat the file is attached to; absent for a project's file.
    pub session_id: Option<i64>,
    /// The project it belongs to (the chat's, for a chat's file).
    pub project_id: i64,
    /// Where in the file: its page (PDFs) and first line.
    pub page: Option<i64>,
    pub line: i64,
    /// A short excerpt around the first match, as plain text.
    pub snippet: String,
    /// `[start, end)` character ranges of the matched words in `snippet`.
    #[schema(schema_with = ranges)]
    pub highlights: Vec<[usize; 2]>,
}

/// `[start, end)` pairs, documented as pairs (a plain array of arrays would lose their length).
fn ranges() -> utoipa::openapi::Array {
    use utoipa::openapi::{ArrayBuilder, ObjectBuilder, Type};
    let end = || ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0));
    let pair = ArrayBuilder::new()
        .prefix_items([end(), end()])
        .min_items(Some(2))
        .max_items(Some(2))
        .items(utoipa::openapi::schema::ArrayItems::False);
    ArrayBuilder::new().items(pair).build()
}
