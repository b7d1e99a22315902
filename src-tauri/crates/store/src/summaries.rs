//! Session summaries: what stands in for a long chat's older turns in requests (see
//! `chat::plan`). They belong to the session, so they move with it.

use rusqlite::{params, Connection, Row};

use super::now_ms;
use crate::error::Result;

pub use maru_types::summaries::*;

fn from_row(r: &Row) -> rusqlite::Result<Summary> {
    Ok(Summary { id: r.get(0)?, session_id: r.get(1)?, through_id: r.get(2)?, turns: r.get(3)?, content: r.get(4)?, created_at: r.get(5)? })
}

/// Oldest first: the order they are sent in.
pub fn list(conn: &Connection, session_id: i64) -> Result<Vec<Summary>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, session_id, through_id, turns, content, created_at FROM session_summaries WHERE session_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([session_id], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn add(conn: &Connection, session_id: i64, through_id: i64, turns: i64, content: &str) -> Result<Summary> {
    conn.execute(
        "INSERT INTO session_summaries (session_id, through_id, turns, content, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![session_id, through_id, turns, content, now_ms()],
    )?;
    let id = conn.last_insert_rowid();
    Ok(conn.query_row(
        "SELECT id, session_id, through_id, turns, content, created_at FROM session_summaries WHERE id = ?1",
        [id],
        from_row,
    )?)
}

/// Summaries covering messages from `message_id` on no longer describe the chat (a regenerate,
/// an edit, a delete rewrote it there): they go, and the plan summarises again when needed.
pub fn forget_from(conn: &Connection, session_id: i64, message_id: i64) -> Result<usize> {
    Ok(conn
        .prepare_cached("DELETE FROM session_summaries WHERE session_id = ?1 AND through_id >= ?2")?
        .execute(params![session_id, message_id])?)
}
