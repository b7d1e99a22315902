//! Tool results kept whole (`tool_outputs`) because they were too large to send: the tool
//! message holds what the model got (a reference and the first lines), this the rest, for
//! `read_tool_output`. Each belongs to one chat and goes with it, or with its tool message.

use rusqlite::{params, Connection, OptionalExtension};

use super::now_ms;
use crate::error::Result;

/// A stored result, as `read_tool_output` reads it back.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub id: i64,
    pub tool: String,
    pub content: String,
}

/// Keeps a result whole; its id names it in the reference the model gets. `attach` ties it to
/// the tool message once that is stored (in the same transaction).
pub fn insert(conn: &Connection, session_id: i64, tool: &str, content: &str) -> Result<i64> {
    conn.prepare_cached("INSERT INTO tool_outputs (session_id, tool, content, created_at) VALUES (?1, ?2, ?3, ?4)")?.execute(params![
        session_id,
        tool,
        content,
        now_ms()
    ])?;
    Ok(conn.last_insert_rowid())
}

pub fn attach(conn: &Connection, id: i64, message_id: i64) -> Result<()> {
    conn.prepare_cached("UPDATE tool_outputs SET message_id = ?2 WHERE id = ?1")?.execute(params![id, message_id])?;
    Ok(())
}

/// A result of this chat's, or nothing: another chat's results are not there for it. `id` is the
/// one the model was given: a copy in a chat continued from another answers to its original's.
pub fn get(conn: &Connection, session_id: i64, id: i64) -> Result<Option<ToolOutput>> {
    Ok(conn
        .prepare_cached("SELECT id, tool, content FROM tool_outputs WHERE coalesce(named_as, id) = ?1 AND session_id = ?2")?
        .query_row(params![id, session_id], |r| Ok(ToolOutput { id: r.get(0)?, tool: r.get(1)?, content: r.get(2)? }))
        .optional()?)
}

/// How many results the chat keeps aside, for the inspector.
pub fn count(conn: &Connection, session_id: i64) -> Result<i64> {
    Ok(conn.prepare_cached("SELECT count(*) FROM tool_outputs WHERE session_id = ?1")?.query_row([session_id], |r| r.get(0))?)
}
