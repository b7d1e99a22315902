//! A backup's copy of the database: what a backup removes from it before it leaves the machine,
//! and what a restore checks and counts in it before it takes its place.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::error::Result;

/// Removes the secrets from a snapshot of the database at `snapshot` (for good: `secure_delete`
/// overwrites them, and the vacuum leaves no free page behind). Returns the stored files the
/// snapshot links (their sha256) and its schema version.
pub fn forget_secrets(snapshot: &Path) -> Result<(Vec<String>, i64)> {
    let conn = Connection::open(snapshot)?;
    conn.pragma_update(None, "secure_delete", "ON")?;
    // The model servers' keys (before migration 0021, the setting).
    conn.execute("DELETE FROM settings WHERE key = 'api_key'", [])?;
    super::connections::forget_secrets(&conn)?;
    // Tool servers come back turned off, their variables' and headers' values emptied.
    super::tool_servers::forget_secrets(&conn)?;
    conn.execute_batch("VACUUM")?;
    let shas = conn.prepare("SELECT sha256 FROM blobs ORDER BY sha256")?.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    let version = conn.query_row("SELECT coalesce(max(version), 0) FROM schema_migrations", [], |r| r.get(0)).unwrap_or(0);
    Ok((shas, version))
}

/// What a restored database holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub projects: i64,
    pub sessions: i64,
    pub messages: i64,
    pub memories: i64,
    pub tool_servers: i64,
}

/// Why a database file cannot be restored, in SQLite's own words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// It cannot be opened or read.
    Unreadable(String),
    /// It reads, but its integrity check fails.
    Damaged(String),
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::Unreadable(why) => write!(f, "it cannot be read: {why}"),
            Unusable::Damaged(why) => write!(f, "it is damaged: {why}"),
        }
    }
}

/// Checks the database file at `db` whole and counts what it holds.
pub fn check_and_count(db: &Path) -> std::result::Result<Counts, Unusable> {
    let unreadable = |e: rusqlite::Error| Unusable::Unreadable(e.to_string());
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(unreadable)?;
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).map_err(unreadable)?;
    if check != "ok" {
        return Err(Unusable::Damaged(check));
    }
    let count = |table: &str| conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get::<_, i64>(0));
    let counted = || -> rusqlite::Result<Counts> {
        Ok(Counts {
            projects: count("projects")?,
            sessions: count("sessions")?,
            messages: count("messages")?,
            memories: count("memories")?,
            // A backup older than tool servers has none.
            tool_servers: count("tool_servers").unwrap_or(0),
        })
    };
    counted().map_err(unreadable)
}
