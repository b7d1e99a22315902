//! Sessions: one conversation each. A session is the container (messages, attachments, session
//! memory all hang off its id); its project is only a label, so moving it moves everything.

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{connections, found, now_ms, one_line, projects};
use crate::error::{Code, Error, Result};

pub use maru_types::sessions::*;

pub const TITLE_MAX_CHARS: usize = 200;
pub const PAGE_DEFAULT: usize = 50;
pub const PAGE_MAX: usize = 200;

const SELECT: &str =
    "SELECT id, project_id, title, preset, model, connection_id, created_at, updated_at, imported_at, temporary FROM sessions";

fn from_row(r: &Row) -> rusqlite::Result<Session> {
    Ok(Session {
        id: r.get(0)?,
        project_id: r.get(1)?,
        title: r.get(2)?,
        preset: r.get(3)?,
        model: r.get(4)?,
        connection_id: r.get(5)?,
        created_at: r.get(6)?,
        updated_at: r.get(7)?,
        imported_at: r.get(8)?,
        temporary: r.get(9)?,
    })
}

pub fn get(conn: &Connection, id: i64) -> Result<Session> {
    found(conn.prepare_cached(&format!("{SELECT} WHERE id = ?1"))?.query_row([id], from_row), "session", id)
}

pub fn create(conn: &Connection, new: &NewSession) -> Result<Session> {
    let title = clean_title(&new.title)?;
    let project_id = match new.project_id {
        Some(id) => projects::get(conn, id)?.id,
        None => projects::default_id(conn)?,
    };
    let at = next_activity(conn, project_id)?;
    conn.execute(
        "INSERT INTO sessions (project_id, title, created_at, updated_at, temporary) VALUES (?1, ?2, ?3, ?3, ?4)",
        params![project_id, title, at, new.temporary],
    )?;
    get(conn, conn.last_insert_rowid())
}

pub fn update(conn: &Connection, id: i64, patch: &SessionPatch) -> Result<Session> {
    let current = get(conn, id)?;
    let title = match &patch.title {
        Some(t) => clean_title(t)?,
        None => current.title,
    };
    let project_id = match patch.project_id {
        Some(p) => projects::get(conn, p)?.id,
        None => current.project_id,
    };
    conn.execute(
        "UPDATE sessions SET title = ?2, project_id = ?3, updated_at = ?4 WHERE id = ?1",
        params![id, title, project_id, next_activity(conn, project_id)?],
    )?;
    if patch.title.is_some() {
        conn.execute("UPDATE sessions SET title_by = 'user' WHERE id = ?1", [id])?;
    }
    get(conn, id)
}

/// Sets the title only if it is still empty (automatic titles never overwrite the user's). The
/// text comes from a message, so it is made a valid one-line label rather than refused.
pub fn set_title_if_empty(conn: &Connection, id: i64, title: &str) -> Result<()> {
    let title = super::text::as_one_line(title, TITLE_MAX_CHARS);
    conn.prepare_cached("UPDATE sessions SET title = ?2, title_by = 'first_message' WHERE id = ?1 AND title = ''")?
        .execute(params![id, title])?;
    Ok(())
}

/// The title is still the one Maru made of the first message: the model may write a better one.
pub fn wants_model_title(conn: &Connection, id: i64) -> Result<bool> {
    let by: Option<String> = conn.query_row("SELECT title_by FROM sessions WHERE id = ?1", [id], |r| r.get(0)).optional()?;
    Ok(by.as_deref() == Some("first_message"))
}

/// The model was asked and gave nothing usable: the first message's title stays, for good.
pub fn settle_title(conn: &Connection, id: i64) -> Result<()> {
    conn.execute("UPDATE sessions SET title_by = 'model' WHERE id = ?1 AND title_by = 'first_message'", [id])?;
    Ok(())
}

/// The model's title, unless the user has named the chat meanwhile. Whether it was set.
pub fn set_model_title(conn: &Connection, id: i64, title: &str) -> Result<bool> {
    let title = super::text::as_one_line(title, TITLE_MAX_CHARS);
    let n = conn
        .execute("UPDATE sessions SET title = ?2, title_by = 'model' WHERE id = ?1 AND title_by = 'first_message'", params![id, title])?;
    Ok(n == 1)
}

/// A title the model wrote because the user asked for one again: it replaces any title.
pub fn set_title_by_model(conn: &Connection, id: i64, title: &str) -> Result<Session> {
    let title = super::text::as_one_line(title, TITLE_MAX_CHARS);
    let n = conn.execute("UPDATE sessions SET title = ?2, title_by = 'model' WHERE id = ?1", params![id, title])?;
    if n == 0 {
        return Err(Error::NotFound { what: "session", id });
    }
    get(conn, id)
}

pub fn set_preset(conn: &Connection, id: i64, preset: Option<&str>) -> Result<Session> {
    let session = get(conn, id)?;
    let at = next_activity(conn, session.project_id)?;
    conn.execute("UPDATE sessions SET preset = ?2, updated_at = ?3 WHERE id = ?1", params![id, preset, at])?;
    get(conn, id)
}

pub fn set_model(conn: &Connection, id: i64, model: Option<&str>) -> Result<Session> {
    let model = model.map(str::trim).filter(|m| !m.is_empty());
    if let Some(m) = model {
        connections::check_model(m)?;
    }
    get(conn, id)?;
    conn.execute("UPDATE sessions SET model = ?2 WHERE id = ?1", params![id, model])?;
    get(conn, id)
}

/// Sets the server the chat asks, which must be on (a server turned off answers no chat).
pub fn set_connection(conn: &Connection, id: i64, connection_id: Option<i64>) -> Result<Session> {
    get(conn, id)?;
    if let Some(cid) = connection_id {
        let server = connections::get(conn, cid)?;
        if !server.enabled {
            return Err(Error::conflict(
                Code::ConnectionOff,
                format!("the server \"{}\" is turned off; turn it on in settings first", server.name),
            )
            .with("name", &server.name));
        }
    }
    conn.execute("UPDATE sessions SET connection_id = ?2 WHERE id = ?1", params![id, connection_id])?;
    get(conn, id)
}

/// Marks activity so the session sorts first in its project.
pub fn touch(conn: &Connection, id: i64) -> Result<()> {
    conn.prepare_cached(
        "UPDATE sessions SET updated_at = max(?2, (SELECT max(updated_at) + 1 FROM sessions s WHERE s.project_id = sessions.project_id))
         WHERE id = ?1",
    )?
    .execute(params![id, now_ms()])?;
    Ok(())
}

/// "Now", but strictly after the project's latest activity, so that the newest action sorts
/// first even when several happen within one millisecond.
fn next_activity(conn: &Connection, project_id: i64) -> Result<i64> {
    let latest: Option<i64> =
        conn.prepare_cached("SELECT max(updated_at) FROM sessions WHERE project_id = ?1")?.query_row([project_id], |r| r.get(0))?;
    Ok(latest.map_or(now_ms(), |l| now_ms().max(l + 1)))
}

/// A temporary chat is kept from now on: listed, searchable, titled and remembered like any.
pub fn keep(conn: &Connection, id: i64) -> Result<Session> {
    get(conn, id)?;
    conn.execute("UPDATE sessions SET temporary = 0 WHERE id = ?1", [id])?;
    touch(conn, id)?;
    get(conn, id)
}

/// The temporary chats (all of them at start, where none is open any more).
pub fn temporary_ids(conn: &Connection) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached("SELECT id FROM sessions WHERE temporary = 1")?;
    let ids = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}

/// Deletes the session and, by cascade, its messages.
pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    get(conn, id)?;
    conn.execute("DELETE FROM sessions WHERE id = ?1", [id])?;
    Ok(())
}

/// One project's sessions, newest activity first, `limit` at a time.
pub fn list(conn: &Connection, project_id: i64, cursor: Option<&str>, limit: Option<usize>) -> Result<SessionPage> {
    projects::get(conn, project_id)?;
    let limit = limit.unwrap_or(PAGE_DEFAULT).clamp(1, PAGE_MAX);
    let (after_time, after_id) = match cursor {
        Some(c) => parse_cursor(c)?,
        None => (i64::MAX, i64::MAX),
    };
    let mut stmt = conn.prepare_cached(&format!(
        "{SELECT} WHERE project_id = ?1 AND temporary = 0 AND (updated_at, id) < (?2, ?3)
         ORDER BY updated_at DESC, id DESC LIMIT ?4"
    ))?;
    let mut sessions =
        stmt.query_map(params![project_id, after_time, after_id, limit as i64 + 1], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    let next_cursor = if sessions.len() > limit {
        sessions.truncate(limit);
        sessions.last().map(|s| format!("{}.{}", s.updated_at, s.id))
    } else {
        None
    };
    Ok(SessionPage { sessions, next_cursor })
}

fn parse_cursor(cursor: &str) -> Result<(i64, i64)> {
    let bad = || Error::invalid(Code::InvalidCursor, "the cursor is not one this server gave out; start again without a cursor");
    let (t, id) = cursor.split_once('.').ok_or_else(bad)?;
    Ok((t.parse().map_err(|_| bad())?, id.parse().map_err(|_| bad())?))
}

fn clean_title(raw: &str) -> Result<String> {
    one_line(raw, TITLE_MAX_CHARS, Code::InvalidTitle, "a session title")
}
