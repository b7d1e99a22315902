//! Projects: labels that group sessions and carry project instructions (section ③).
//!
//! The Default project is created by the first migration and can never be deleted (a trigger
//! guards it too), renamed or given instructions: global custom instructions play that role.

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::text::name_key;
use super::{char_len, found, now_ms, one_line};
use crate::error::{Code, Error, Result};

pub use maru_types::projects::*;

pub const NAME_MAX_CHARS: usize = 200;
pub const INSTRUCTIONS_MAX_CHARS: usize = 100_000;

const SELECT: &str = "SELECT p.id, p.name, p.instructions, p.is_default, p.created_at, p.updated_at,
        (SELECT count(*) FROM sessions s WHERE s.project_id = p.id AND s.temporary = 0), p.folder,
        p.folder_exclude, p.tool_approval
    FROM projects p";

fn from_row(r: &Row) -> rusqlite::Result<Project> {
    Ok(Project {
        id: r.get(0)?,
        name: r.get(1)?,
        instructions: r.get(2)?,
        is_default: r.get(3)?,
        created_at: r.get(4)?,
        updated_at: r.get(5)?,
        session_count: r.get(6)?,
        folder: r.get(7)?,
        exclude: r.get::<_, String>(8)?.lines().map(str::to_string).collect(),
        tool_approval: r.get(9)?,
    })
}

/// Default first, then by name.
pub fn list(conn: &Connection) -> Result<Vec<Project>> {
    let mut stmt = conn.prepare_cached(&format!("{SELECT} ORDER BY p.is_default DESC, p.name_key, p.id"))?;
    let rows = stmt.query_map([], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn get(conn: &Connection, id: i64) -> Result<Project> {
    found(conn.prepare_cached(&format!("{SELECT} WHERE p.id = ?1"))?.query_row([id], from_row), "project", id)
}

/// `name`, or `name (2)`, `name (3)`… the first that no project has.
pub fn free_name(conn: &Connection, name: &str) -> Result<String> {
    for n in 1.. {
        let candidate = if n == 1 { name.to_string() } else { format!("{name} ({n})") };
        if find_by_name(conn, &candidate)?.is_none() {
            return Ok(candidate);
        }
    }
    unreachable!("some numbered name is free")
}

/// The projects linked to a folder: (id, folder).
pub fn with_folders(conn: &Connection) -> Result<Vec<(i64, String)>> {
    let mut stmt = conn.prepare_cached("SELECT id, folder FROM projects WHERE folder IS NOT NULL ORDER BY id")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The project with this name (compared as names are: ignoring case and Unicode forms).
pub fn find_by_name(conn: &Connection, name: &str) -> Result<Option<Project>> {
    Ok(conn.query_row(&format!("{SELECT} WHERE p.name_key = ?1"), [name_key(name)], from_row).optional()?)
}

pub fn default_id(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT id FROM projects WHERE is_default = 1", [], |r| r.get(0))?)
}

pub fn create(conn: &Connection, new: &NewProject) -> Result<Project> {
    let name = clean_name(&new.name)?;
    check_instructions(&new.instructions)?;
    ensure_name_free(conn, &name, None)?;
    let now = now_ms();
    conn.execute(
        "INSERT INTO projects (name, name_key, instructions, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
        params![name, name_key(&name), new.instructions, now],
    )?;
    get(conn, conn.last_insert_rowid())
}

pub fn update(conn: &Connection, id: i64, patch: &ProjectPatch) -> Result<Project> {
    let current = get(conn, id)?;
    if current.is_default && (patch.name.is_some() || patch.instructions.is_some() || patch.folder.is_some() || patch.exclude.is_some()) {
        return Err(Error::conflict(
            Code::DefaultProject,
            "the Default project cannot be renamed, given instructions or linked to a folder; use the global custom instructions for text every chat should see, or a project of its own for a folder",
        ));
    }
    let name = match &patch.name {
        Some(n) => {
            let n = clean_name(n)?;
            ensure_name_free(conn, &n, Some(id))?;
            n
        }
        None => current.name,
    };
    let instructions = match &patch.instructions {
        Some(i) => {
            check_instructions(i)?;
            i.clone()
        }
        None => current.instructions,
    };
    let folder = patch.folder.clone().unwrap_or(current.folder);
    // One pattern per line: the api layer has checked that none holds a line break.
    let exclude = patch.exclude.clone().unwrap_or(current.exclude).join("\n");
    let tool_approval = patch.tool_approval.unwrap_or(current.tool_approval);
    conn.execute(
        "UPDATE projects SET name = ?2, name_key = ?3, instructions = ?4, folder = ?5, folder_exclude = ?6, tool_approval = ?7,
             updated_at = ?8
         WHERE id = ?1",
        params![id, name, name_key(&name), instructions, folder, exclude, tool_approval, now_ms()],
    )?;
    get(conn, id)
}

/// Deletes a project, moving its sessions (with their messages) to Default. Its files stay with
/// the chats that were in it, each as that chat's own file, and no other chat sees them; with no
/// chats, they go. Returns the contents no file links to any more (their stored files can go
/// after the commit). Run it inside the caller's transaction: all of it stands or falls together.
pub fn delete(conn: &Connection, id: i64) -> Result<(DeletedProject, Vec<String>)> {
    let project = get(conn, id)?;
    if project.is_default {
        return Err(Error::conflict(Code::DefaultProject, "the Default project cannot be deleted"));
    }
    let default_project_id = default_id(conn)?;
    let chats = chat_ids(conn, id)?;
    let released = super::attachments::give_project_files_to_sessions(conn, id, &chats)?;
    let moved = conn.execute("UPDATE sessions SET project_id = ?1 WHERE project_id = ?2", params![default_project_id, id])?;
    conn.execute("DELETE FROM projects WHERE id = ?1", [id])?;
    Ok((DeletedProject { id, moved_sessions: moved as i64, default_project_id }, released))
}

/// A project name as stored: one line, trimmed, not empty, at most `NAME_MAX_CHARS`.
pub fn clean_name(raw: &str) -> Result<String> {
    let name = one_line(raw, NAME_MAX_CHARS, Code::InvalidName, "a project name")?;
    if name.is_empty() {
        return Err(Error::invalid(Code::InvalidName, "a project needs a name"));
    }
    Ok(name)
}

fn check_instructions(text: &str) -> Result<()> {
    let len = char_len(text);
    if len > INSTRUCTIONS_MAX_CHARS {
        return Err(Error::invalid(
            Code::InstructionsTooLong,
            format!("project instructions can have at most {INSTRUCTIONS_MAX_CHARS} characters (these have {len})"),
        ));
    }
    Ok(())
}

fn ensure_name_free(conn: &Connection, name: &str, except: Option<i64>) -> Result<()> {
    let taken: Option<String> = conn
        .query_row("SELECT name FROM projects WHERE name_key = ?1 AND id IS NOT ?2", params![name_key(name), except], |r| r.get(0))
        .optional()?;
    match taken {
        Some(existing) => {
            Err(Error::conflict(Code::NameTaken, format!("a project named \"{existing}\" already exists")).with("name", existing))
        }
        None => Ok(()),
    }
}

/// The ids of a project's chats, oldest first.
fn chat_ids(conn: &Connection, project_id: i64) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached("SELECT id FROM sessions WHERE project_id = ?1 ORDER BY id")?;
    let ids = stmt.query_map([project_id], |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}
