//! Long-term memory: global facts about the user, shared by every session and project (section ⑤).
//! Each fact keeps the session it came from, if any.

use rusqlite::{params, Connection, Row};
use serde::{Deserialize, Serialize};

use super::{char_len, found, now_ms, sessions};
use crate::error::{Error, Result};

pub const CONTENT_MAX_CHARS: usize = 2_000;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Memory {
    pub id: i64,
    pub content: String,
    pub pinned: bool,
    pub source_session_id: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct NewMemory {
    pub content: String,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub pinned: bool,
    pub source_session_id: Option<i64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct MemoryPatch {
    pub content: Option<String>,
    pub pinned: Option<bool>,
}

const SELECT: &str = "SELECT id, content, pinned, source_session_id, created_at, updated_at FROM memories";

fn from_row(r: &Row) -> rusqlite::Result<Memory> {
    Ok(Memory {
        id: r.get(0)?,
        content: r.get(1)?,
        pinned: r.get(2)?,
        source_session_id: r.get(3)?,
        created_at: r.get(4)?,
        updated_at: r.get(5)?,
    })
}

/// Pinned first, then oldest first: a stable order keeps the system prompt byte-identical.
pub fn list(conn: &Connection) -> Result<Vec<Memory>> {
    let mut stmt = conn.prepare_cached(&format!("{SELECT} ORDER BY pinned DESC, id"))?;
    let rows = stmt.query_map([], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn get(conn: &Connection, id: i64) -> Result<Memory> {
    found(conn.query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row), "memory", id)
}

pub fn create(conn: &Connection, new: &NewMemory) -> Result<Memory> {
    let content = clean_content(&new.content)?;
    if let Some(sid) = new.source_session_id {
        sessions::get(conn, sid)?;
    }
    let now = now_ms();
    conn.execute(
        "INSERT INTO memories (content, pinned, source_session_id, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
        params![content, new.pinned, new.source_session_id, now],
    )?;
    get(conn, conn.last_insert_rowid())
}

pub fn update(conn: &Connection, id: i64, patch: &MemoryPatch) -> Result<Memory> {
    let current = get(conn, id)?;
    let content = match &patch.content {
        Some(c) => clean_content(c)?,
        None => current.content,
    };
    let pinned = patch.pinned.unwrap_or(current.pinned);
    conn.execute("UPDATE memories SET content = ?2, pinned = ?3, updated_at = ?4 WHERE id = ?1", params![id, content, pinned, now_ms()])?;
    get(conn, id)
}

pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    get(conn, id)?;
    conn.execute("DELETE FROM memories WHERE id = ?1", [id])?;
    Ok(())
}

fn clean_content(raw: &str) -> Result<String> {
    let content = raw.trim();
    if content.is_empty() {
        return Err(Error::invalid("invalid_memory", "a memory needs some text"));
    }
    let len = char_len(content);
    if len > CONTENT_MAX_CHARS {
        return Err(Error::invalid(
            "invalid_memory",
            format!("a memory can have at most {CONTENT_MAX_CHARS} characters (this one has {len}); keep facts short"),
        ));
    }
    Ok(content.to_string())
}
