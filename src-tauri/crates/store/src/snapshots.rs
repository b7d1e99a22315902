//! The last system prompt sent for each session, with why it last changed (see `prompt::prepare`).

use rusqlite::{params, Connection, OptionalExtension};

use super::now_ms;
use crate::error::Result;

#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub session_id: i64,
    pub inputs_sha256: String,
    pub prompt_sha256: String,
    pub prompt: String,
    /// JSON of `prompt::SnapshotReport`.
    pub report: String,
    pub changed_at: i64,
    pub change_reason: String,
    /// The same as codes (absent for snapshots stored before codes were kept).
    pub change_codes: Option<Vec<crate::error::Reason>>,
    pub used_at: i64,
}

pub fn get(conn: &Connection, session_id: i64) -> Result<Option<Snapshot>> {
    Ok(conn
        .prepare_cached(
            "SELECT session_id, inputs_sha256, prompt_sha256, prompt, report, changed_at, change_reason, used_at, change_codes
             FROM prompt_snapshots WHERE session_id = ?1",
        )?
        .query_row([session_id], |r| {
            Ok(Snapshot {
                session_id: r.get(0)?,
                inputs_sha256: r.get(1)?,
                prompt_sha256: r.get(2)?,
                prompt: r.get(3)?,
                report: r.get(4)?,
                changed_at: r.get(5)?,
                change_reason: r.get(6)?,
                used_at: r.get(7)?,
                change_codes: r.get::<_, Option<String>>(8)?.and_then(|j| serde_json::from_str(&j).ok()),
            })
        })
        .optional()?)
}

pub fn put(conn: &Connection, s: &Snapshot) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO prompt_snapshots (session_id, inputs_sha256, prompt_sha256, prompt, report, changed_at, change_reason, used_at, change_codes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT (session_id) DO UPDATE SET inputs_sha256 = excluded.inputs_sha256, prompt_sha256 = excluded.prompt_sha256,
             prompt = excluded.prompt, report = excluded.report, changed_at = excluded.changed_at,
             change_reason = excluded.change_reason, used_at = excluded.used_at, change_codes = excluded.change_codes",
    )?
    .execute(params![
        s.session_id,
        s.inputs_sha256,
        s.prompt_sha256,
        s.prompt,
        s.report,
        s.changed_at,
        s.change_reason,
        s.used_at,
        s.change_codes.as_ref().map(|c| serde_json::to_string(c).expect("reasons serialise"))
    ])?;
    Ok(())
}

pub fn mark_used(conn: &Connection, session_id: i64) -> Result<()> {
    conn.prepare_cached("UPDATE prompt_snapshots SET used_at = ?2 WHERE session_id = ?1")?.execute(params![session_id, now_ms()])?;
    Ok(())
}
