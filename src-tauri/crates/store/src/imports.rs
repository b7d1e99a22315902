//! Chats brought in from another app's data export (ChatGPT, Claude) as whole message trees.
//! Each remembers where it came from (`sessions.import_source`, migration 0027), so that the
//! same export imported twice adds only the chats not here yet.

use rusqlite::{params, Connection, OptionalExtension};

use super::messages::Role;
use super::sessions::TITLE_MAX_CHARS;
use crate::error::Result;

/// A conversation as another app kept it, read into Maru's terms.
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignChat {
    /// Where it came from, unique across exports: `chatgpt:<id>`, `claude:<uuid>`.
    pub source: String,
    pub title: String,
    pub created_at: i64,
    pub updated_at: i64,
    /// Parents before their children; siblings in the order the app made them (the last one is
    /// the newest version).
    pub messages: Vec<ForeignMessage>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ForeignMessage {
    /// The index in [`ForeignChat::messages`] of the message this one follows (always earlier);
    /// `None` for a first message.
    pub parent: Option<usize>,
    pub role: Role,
    pub content: String,
    pub model: Option<String>,
    pub created_at: i64,
    /// On the conversation as the app last showed it.
    pub main_line: bool,
}

/// Whether a chat from `source` is here already.
pub fn is_imported(conn: &Connection, source: &str) -> Result<bool> {
    Ok(conn.prepare_cached("SELECT 1 FROM sessions WHERE import_source = ?1")?.query_row([source], |_| Ok(())).optional()?.is_some())
}

/// Adds the chat to `project_id` with its whole tree, its title and times; `None` when a chat
/// from the same source is here already. The main line is the chosen branch; among the versions
/// off it, the newest of each set is the one chosen, so that choosing an earlier version of a
/// message shows the branch as the app last showed it there.
pub fn insert(conn: &Connection, project_id: i64, chat: &ForeignChat) -> Result<Option<i64>> {
    if is_imported(conn, &chat.source)? {
        return Ok(None);
    }
    super::projects::get(conn, project_id)?;
    let title = super::text::as_one_line(&chat.title, TITLE_MAX_CHARS);
    conn.prepare_cached(
        "INSERT INTO sessions (project_id, title, created_at, updated_at, imported_at, import_source) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![project_id, title, chat.created_at, chat.updated_at.max(chat.created_at), super::now_ms(), chat.source])?;
    let session_id = conn.last_insert_rowid();
    let chosen = chosen(&chat.messages);
    let mut ids: Vec<i64> = Vec::with_capacity(chat.messages.len());
    let mut insert = conn.prepare_cached(
        "INSERT INTO messages (session_id, role, content, status, model, created_at, updated_at, parent_id, chosen, on_path)
         VALUES (?1, ?2, ?3, 'complete', ?4, ?5, ?5, ?6, ?7, ?8)",
    )?;
    for (m, chosen) in chat.messages.iter().zip(chosen) {
        // Parents come first, so ids grow along every branch, as the tree needs (messages.rs).
        let parent = m.parent.map(|p| ids[p]);
        insert.execute(params![session_id, m.role, m.content, m.model, m.created_at, parent, chosen, m.main_line])?;
        ids.push(conn.last_insert_rowid());
    }
    Ok(Some(session_id))
}

/// Which message is the chosen version among its siblings: the one on the main line, or else
/// the last.
fn chosen(messages: &[ForeignMessage]) -> Vec<bool> {
    let mut last_of: std::collections::HashMap<Option<usize>, usize> = std::collections::HashMap::new();
    let mut main_of: std::collections::HashMap<Option<usize>, usize> = std::collections::HashMap::new();
    for (i, m) in messages.iter().enumerate() {
        last_of.insert(m.parent, i);
        if m.main_line {
            main_of.insert(m.parent, i);
        }
    }
    messages.iter().enumerate().map(|(i, m)| main_of.get(&m.parent).or_else(|| last_of.get(&m.parent)) == Some(&i)).collect()
}
