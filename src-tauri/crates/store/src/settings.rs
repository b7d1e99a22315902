//! Settings: one typed struct with defaults (declared in `maru_types::settings`), stored as one
//! JSON value per key so that adding a setting needs no migration and an unknown stored key (from
//! a newer Maru) is simply kept.

use rusqlite::{params, Connection};

use super::char_len;
use super::connections::ServerConnection;
use crate::error::{Code, Error, Result};

pub use maru_types::settings::*;

pub const CUSTOM_INSTRUCTIONS_MAX_CHARS: usize = 100_000;

/// The settings a chat's requests use: the global ones, with the chat's own server and model.
pub fn for_session(conn: &Connection, session_id: i64) -> Result<Settings> {
    for_chat(conn, &super::sessions::get(conn, session_id)?)
}

/// The global settings with the chat's own server and model, if it has them; a chat that names
/// no model asks its server's default one.
pub fn for_chat(conn: &Connection, session: &super::sessions::Session) -> Result<Settings> {
    in_chat(conn, load(conn)?, session)
}

/// [`for_chat`] from the global settings `s` already read.
pub fn in_chat(conn: &Connection, mut s: Settings, session: &super::sessions::Session) -> Result<Settings> {
    if let Some(id) = session.connection_id.filter(|&id| id != s.server.id) {
        s = on(s, super::connections::get(conn, id)?);
    }
    if let Some(model) = &session.model {
        s.model = model.clone();
    }
    Ok(s)
}

/// These settings asking `server`, with its default model.
fn on(mut s: Settings, server: ServerConnection) -> Settings {
    s.model = server.default_model.clone();
    s.server = server;
    s
}

/// A chat on a server the user turned off is refused before anything is stored.
pub fn check_server_on(s: &Settings) -> Result<()> {
    super::connections::check_set_up(&s.server)?;
    if s.server.enabled {
        return Ok(());
    }
    let name = &s.server.name;
    Err(Error::conflict(
        Code::ConnectionOff,
        format!("this chat's server \"{name}\" is turned off; turn it on in settings, or choose another model"),
    )
    .with("name", name))
}

pub fn load(conn: &Connection) -> Result<Settings> {
    let mut stmt = conn.prepare_cached("SELECT key, value FROM settings")?;
    let mut map = serde_json::Map::new();
    for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))? {
        let (key, value) = row?;
        if let Ok(v) = serde_json::from_str(&value) {
            map.insert(key, v);
        }
    }
    // Unknown keys are ignored and a malformed value falls back to its default, field by field.
    let defaults = serde_json::to_value(Settings::default()).expect("settings serialise");
    let mut merged = defaults.as_object().cloned().unwrap_or_default();
    // Every turn reads the settings: try them all at once, and probe key by key only when one
    // of them does not parse.
    let mut all = merged.clone();
    all.extend(map.iter().filter(|(k, _)| merged.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone())));
    if let Ok(settings) = serde_json::from_value::<Settings>(serde_json::Value::Object(all)) {
        return Ok(on(settings, super::connections::default(conn)?));
    }
    for (k, v) in map {
        if merged.contains_key(&k) {
            let mut probe = merged.clone();
            probe.insert(k.clone(), v.clone());
            if serde_json::from_value::<Settings>(serde_json::Value::Object(probe)).is_ok() {
                merged.insert(k, v);
            }
        }
    }
    let settings: Settings = serde_json::from_value(serde_json::Value::Object(merged)).map_err(anyhow::Error::from)?;
    Ok(on(settings, super::connections::default(conn)?))
}

/// Validates the whole patch first, then writes it (in the caller's transaction: all or nothing).
pub fn update(conn: &Connection, patch: &SettingsPatch) -> Result<Settings> {
    if patch.endpoint_url.is_some() || patch.api_key.is_some() || patch.model.is_some() {
        let server = super::connections::ConnectionPatch {
            base_url: patch.endpoint_url.as_ref().map(|u| u.as_deref().unwrap_or(super::connections::DEFAULT_URL).to_string()),
            api_key: patch.api_key.clone(),
            default_model: patch.model.clone(),
            ..Default::default()
        };
        super::connections::update_default(conn, &server)?;
    }
    let before = load(conn)?;
    let mut s = before.clone().patched(patch);
    if patch.sharing.is_some() {
        s.sharing.projects = check_sharing(conn, &s.sharing, &before.sharing)?;
    }
    validate(conn, &s)?;

    let value = serde_json::to_value(&s).map_err(anyhow::Error::from)?;
    for (key, v) in value.as_object().into_iter().flatten() {
        conn.execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![key, v.to_string()],
        )?;
    }
    Ok(s)
}

fn validate(conn: &Connection, s: &Settings) -> Result<()> {
    for (what, choice) in [("embeddings", &s.embeddings), ("reranker", &s.reranker)] {
        if let Some(choice) = choice {
            super::connections::get(conn, choice.connection_id)?;
            if choice.model.trim().is_empty() || choice.model.contains('\n') || char_len(&choice.model) > 500 {
                return Err(Error::invalid(Code::InvalidModel, format!("choose the {what} model by its name as the server lists it")));
            }
        }
    }
    let len = char_len(&s.custom_instructions);
    if len > CUSTOM_INSTRUCTIONS_MAX_CHARS {
        return Err(Error::invalid(
            Code::InstructionsTooLong,
            format!("custom instructions can have at most {CUSTOM_INSTRUCTIONS_MAX_CHARS} characters (these have {len})"),
        ));
    }
    s.check_bounds()
}

/// The projects whose files are shared, as they are to be stored: each named once, each one that
/// exists. A project deleted since it was shared drops out (its files are gone with it), so a
/// list the UI sends back with it still in is saved without it; a project newly named must exist.
fn check_sharing(conn: &Connection, sharing: &maru_types::sharing::Sharing, before: &maru_types::sharing::Sharing) -> Result<Vec<i64>> {
    let max = maru_types::sharing::Sharing::PROJECTS_MAX;
    if sharing.projects.len() > max {
        return Err(Error::invalid(
            Code::InvalidSharing,
            format!("at most {max} projects can share their files (this names {})", sharing.projects.len()),
        )
        .with("max", max));
    }
    let mut kept = Vec::with_capacity(sharing.projects.len());
    for &id in &sharing.projects {
        if kept.contains(&id) {
            return Err(Error::invalid(Code::InvalidSharing, format!("project {id} is named twice among the shared projects")));
        }
        match super::projects::get(conn, id) {
            Ok(_) => kept.push(id),
            Err(Error::NotFound { .. }) if before.projects.contains(&id) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(kept)
}
