//! The user's own presets (personas). Built-in presets are templates in `prompts/presets/`; a
//! session names its preset by key: a built-in file stem, or `user:<id>` for one of these.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use super::text::name_key;
use super::{char_len, found, now_ms, one_line};
use crate::error::{Code, Error, Result};

pub use maru_types::presets::*;

pub const NAME_MAX_CHARS: usize = 100;
pub const PROMPT_MAX_CHARS: usize = 20_000;
/// A description is a line or two shown under the name in the preset picker.
pub const DESCRIPTION_MAX_CHARS: usize = 500;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct UserPreset {
    pub id: i64,
    pub name: String,
    pub description: String,
    pub prompt: String,
    pub created_at: i64,
    pub updated_at: i64,
}

pub fn user_key(id: i64) -> String {
    format!("user:{id}")
}

/// The id in a `user:<id>` key.
pub fn user_key_id(key: &str) -> Option<i64> {
    key.strip_prefix("user:")?.parse().ok()
}

const SELECT: &str = "SELECT id, name, description, prompt, created_at, updated_at FROM presets";

fn from_row(r: &Row) -> rusqlite::Result<UserPreset> {
    Ok(UserPreset {
        id: r.get(0)?,
        name: r.get(1)?,
        description: r.get(2)?,
        prompt: r.get(3)?,
        created_at: r.get(4)?,
        updated_at: r.get(5)?,
    })
}

pub fn list(conn: &Connection) -> Result<Vec<UserPreset>> {
    let mut stmt = conn.prepare_cached(&format!("{SELECT} ORDER BY name_key"))?;
    let rows = stmt.query_map([], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn get(conn: &Connection, id: i64) -> Result<UserPreset> {
    found(conn.query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row), "preset", id)
}

pub fn create(conn: &Connection, new: &NewPreset) -> Result<UserPreset> {
    let name = clean_name(&new.name)?;
    check_prompt(&new.prompt)?;
    ensure_name_free(conn, &name, None)?;
    let now = now_ms();
    conn.execute(
        "INSERT INTO presets (name, name_key, description, prompt, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
        params![name, name_key(&name), check_description(&new.description)?, new.prompt, now],
    )?;
    get(conn, conn.last_insert_rowid())
}

pub fn update(conn: &Connection, id: i64, patch: &PresetPatch) -> Result<UserPreset> {
    let cur = get(conn, id)?;
    let name = match &patch.name {
        Some(n) => {
            let n = clean_name(n)?;
            ensure_name_free(conn, &n, Some(id))?;
            n
        }
        None => cur.name,
    };
    let prompt = patch.prompt.clone().unwrap_or(cur.prompt);
    check_prompt(&prompt)?;
    let description = match &patch.description {
        Some(d) => check_description(d)?,
        None => cur.description,
    };
    conn.execute(
        "UPDATE presets SET name = ?2, name_key = ?3, description = ?4, prompt = ?5, updated_at = ?6 WHERE id = ?1",
        params![id, name, name_key(&name), description, prompt, now_ms()],
    )?;
    get(conn, id)
}

/// Deletes a preset; sessions using it go back to the base prompt. Returns how many did.
pub fn delete(conn: &Connection, id: i64) -> Result<usize> {
    get(conn, id)?;
    let reset = conn.execute("UPDATE sessions SET preset = NULL WHERE preset = ?1", [user_key(id)])?;
    conn.execute("DELETE FROM presets WHERE id = ?1", [id])?;
    Ok(reset)
}

fn clean_name(raw: &str) -> Result<String> {
    let name = one_line(raw, NAME_MAX_CHARS, Code::InvalidName, "a preset name")?;
    if name.is_empty() {
        return Err(Error::invalid(Code::InvalidName, "a preset needs a name"));
    }
    Ok(name)
}

fn check_description(raw: &str) -> Result<String> {
    let text = raw.trim();
    let len = char_len(text);
    if len > DESCRIPTION_MAX_CHARS {
        return Err(Error::invalid(
            Code::InvalidDescription,
            format!("a preset description can have at most {DESCRIPTION_MAX_CHARS} characters (this one has {len}); the prompt itself can be longer"),
        ));
    }
    Ok(text.to_string())
}

fn check_prompt(prompt: &str) -> Result<()> {
    let len = char_len(prompt);
    if prompt.trim().is_empty() {
        return Err(Error::invalid(Code::InvalidPrompt, "a preset needs a prompt: it replaces the base prompt"));
    }
    if len > PROMPT_MAX_CHARS {
        return Err(Error::invalid(
            Code::InvalidPrompt,
            format!("a preset prompt can have at most {PROMPT_MAX_CHARS} characters (this one has {len})"),
        ));
    }
    Ok(())
}

fn ensure_name_free(conn: &Connection, name: &str, except: Option<i64>) -> Result<()> {
    let taken: Option<i64> = conn
        .query_row("SELECT id FROM presets WHERE name_key = ?1 AND id IS NOT ?2", params![name_key(name), except], |r| r.get(0))
        .optional()?;
    match taken {
        Some(_) => Err(Error::conflict(Code::NameTaken, format!("a preset named \"{name}\" already exists")).with("name", name)),
        None => Ok(()),
    }
}
