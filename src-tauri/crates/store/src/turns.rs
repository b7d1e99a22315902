//! Turns in flight, as the database remembers them (`turns_in_flight`): a row from the
//! transaction that stores a turn's question until the turn has stored how it ended. Rows left at
//! start are turns a crash or a kill cut; nothing else is ever marked as cut.

use rusqlite::{params, Connection};

use super::now_ms;
use crate::error::Result;

/// The session's turn has begun (in the transaction that stores its question).
pub fn begin(conn: &Connection, session_id: i64) -> Result<()> {
    conn.prepare_cached("INSERT OR REPLACE INTO turns_in_flight (session_id, started_at) VALUES (?1, ?2)")?
        .execute(params![session_id, now_ms()])?;
    Ok(())
}

/// The session's turn has ended, whichever way.
pub fn end(conn: &Connection, session_id: i64) -> Result<()> {
    conn.prepare_cached("DELETE FROM turns_in_flight WHERE session_id = ?1")?.execute([session_id])?;
    Ok(())
}

/// At start: the sessions whose turn the last run did not end, forgotten as they are returned.
pub fn take_cut(conn: &Connection) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare("DELETE FROM turns_in_flight RETURNING session_id")?;
    let ids = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}
