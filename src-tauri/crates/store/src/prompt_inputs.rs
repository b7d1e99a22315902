//! The revision of everything a system prompt is made of, kept by the triggers of migration
//! 0004: equal revisions mean equal inputs, so a turn can reuse its last prompt unread.

use rusqlite::Connection;

use crate::error::Result;

pub fn revision(conn: &Connection) -> Result<i64> {
    Ok(conn.prepare_cached("SELECT n FROM prompt_inputs_revision WHERE id = 1")?.query_row([], |r| r.get(0))?)
}
