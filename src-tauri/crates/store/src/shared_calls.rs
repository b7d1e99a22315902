//! The calls other apps made of the tools the user shared, newest first: what Settings shows
//! under "Share with other apps". Only the newest [`KEPT`] are kept, so an app calling in a loop
//! cannot grow the database without end.

use rusqlite::{params, Connection};

use super::now_ms;
use crate::error::Result;

pub use maru_types::sharing::SharedCall;

/// Calls kept; older ones are dropped as new ones come.
pub const KEPT: i64 = 500;
/// The longest client name, tool name and summary kept: a line each in the list.
const CLIENT_MAX_CHARS: usize = 100;
const SUMMARY_MAX_CHARS: usize = 200;

/// `raw` as one line of at most `max` characters: control characters (line breaks) become
/// spaces, and a longer one is cut with an ellipsis.
fn one_line(raw: &str, max: usize) -> String {
    let flat: String = raw.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &flat[..at]),
        None => flat,
    }
}

/// Notes a call: the app by the name it gave, what it asked in a line, and whether it was answered.
pub fn record(conn: &Connection, client: &str, tool: &str, summary: &str, error: Option<&str>) -> Result<SharedCall> {
    let (client, tool, summary) =
        (one_line(client, CLIENT_MAX_CHARS), one_line(tool, CLIENT_MAX_CHARS), one_line(summary, SUMMARY_MAX_CHARS));
    let error = error.map(|e| one_line(e, SUMMARY_MAX_CHARS));
    let at = now_ms();
    conn.execute(
        "INSERT INTO shared_calls (at, client, tool, summary, ok, error) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![at, client, tool, summary, error.is_none(), error],
    )?;
    let id = conn.last_insert_rowid();
    conn.execute("DELETE FROM shared_calls WHERE id <= ?1", params![id - KEPT])?;
    Ok(SharedCall { id, at, client, tool, summary, ok: error.is_none(), error })
}

/// The newest calls first, at most `limit`.
pub fn list(conn: &Connection, limit: usize) -> Result<Vec<SharedCall>> {
    let mut stmt = conn.prepare_cached("SELECT id, at, client, tool, summary, ok, error FROM shared_calls ORDER BY id DESC LIMIT ?1")?;
    let rows = stmt
        .query_map(params![limit as i64], |r| {
            Ok(SharedCall {
                id: r.get(0)?,
                at: r.get(1)?,
                client: r.get(2)?,
                tool: r.get(3)?,
                summary: r.get(4)?,
                ok: r.get(5)?,
                error: r.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, crate::Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(&dir.path().join("maru.db")).unwrap();
        (dir, store)
    }

    #[test]
    fn only_the_newest_calls_are_kept_and_listed_newest_first() {
        let (_dir, store) = store();
        store
            .with(|c| {
                for i in 0..(KEPT + 20) {
                    record(c, "Claude Desktop", "search_chats", &format!("query {i}"), None)?;
                }
                Ok(())
            })
            .unwrap();
        let count: i64 = store.with(|c| Ok(c.query_row("SELECT count(*) FROM shared_calls", [], |r| r.get(0))?)).unwrap();
        assert_eq!(count, KEPT, "an app calling in a loop must not grow the database without end");
        let newest = store.with(|c| list(c, 3)).unwrap();
        assert_eq!(newest[0].summary, format!("query {}", KEPT + 19), "the list the user reads starts with the latest call");
    }

    #[test]
    fn a_long_or_multiline_summary_is_kept_as_one_short_line() {
        let (_dir, store) = store();
        let call = store.with(|c| record(c, "app\nname", "remember", &"x\n".repeat(1_000), Some("refused"))).unwrap();
        assert!(!call.summary.contains('\n') && call.summary.chars().count() <= SUMMARY_MAX_CHARS + 1, "one line per call in Settings");
        assert_eq!(call.client, "app name", "a client's name is one line too");
        assert!(!call.ok && call.error.as_deref() == Some("refused"), "a refused call shows as refused");
    }
}
