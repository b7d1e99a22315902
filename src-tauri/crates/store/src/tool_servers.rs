//! The user's MCP tool servers (`tool_servers`): how to start or reach each, whether it is on,
//! the projects it is off in, and the tools the user lets run without asking. The values of a
//! server's environment and headers may be secrets: they are kept here only, never shown.

use std::collections::BTreeMap;

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;

use super::{found, now_ms};
use crate::error::{Code, Error, Result};

pub use maru_types::tool_servers::*;

pub const NAME_MAX_CHARS: usize = 32;
const ARGS_MAX: usize = 64;
const VARS_MAX: usize = 64;
const TEXT_MAX_CHARS: usize = 4_000;

/// A server as stored, secrets included: never sent anywhere as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolServer {
    pub id: i64,
    pub name: String,
    pub transport: Transport,
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub url: String,
    pub headers: BTreeMap<String, String>,
    pub enabled: bool,
    pub always_allowed: Vec<String>,
    pub off_in: Vec<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl ToolServer {
    /// Offered in a chat of this project.
    pub fn on_in(&self, project_id: i64) -> bool {
        self.enabled && !self.off_in.contains(&project_id)
    }
}

const SELECT: &str =
    "SELECT id, name, transport, command, args, env, url, headers, enabled, always_allowed, off_in, created_at, updated_at FROM tool_servers";

fn json_col<T: serde::de::DeserializeOwned + Default>(r: &Row, i: usize) -> rusqlite::Result<T> {
    Ok(serde_json::from_str(&r.get::<_, String>(i)?).unwrap_or_default())
}

fn from_row(r: &Row) -> rusqlite::Result<ToolServer> {
    Ok(ToolServer {
        id: r.get(0)?,
        name: r.get(1)?,
        transport: r.get(2)?,
        command: r.get(3)?,
        args: json_col(r, 4)?,
        env: json_col(r, 5)?,
        url: r.get(6)?,
        headers: json_col(r, 7)?,
        enabled: r.get(8)?,
        always_allowed: json_col(r, 9)?,
        off_in: json_col(r, 10)?,
        created_at: r.get(11)?,
        updated_at: r.get(12)?,
    })
}

pub fn list(conn: &Connection) -> Result<Vec<ToolServer>> {
    let mut stmt = conn.prepare_cached(&format!("{SELECT} ORDER BY id"))?;
    let rows = stmt.query_map([], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn get(conn: &Connection, id: i64) -> Result<ToolServer> {
    found(conn.query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row), "tool server", id)
}

fn from_new(new: &NewToolServer) -> ToolServer {
    ToolServer {
        id: 0,
        name: new.name.clone(),
        transport: new.transport,
        command: new.command.clone().unwrap_or_default(),
        args: new.args.clone().unwrap_or_default(),
        env: new.env.clone().unwrap_or_default(),
        url: new.url.clone().unwrap_or_default(),
        headers: new.headers.clone().unwrap_or_default(),
        enabled: new.enabled.unwrap_or(true),
        always_allowed: vec![],
        off_in: vec![],
        created_at: now_ms(),
        updated_at: now_ms(),
    }
}

/// Whether `new` would be added as it is (the same checks as [`create`]), without adding it.
pub fn check_new(conn: &Connection, new: &NewToolServer) -> Result<()> {
    check(conn, &mut from_new(new))
}

pub fn create(conn: &Connection, new: &NewToolServer) -> Result<ToolServer> {
    let mut server = from_new(new);
    check(conn, &mut server)?;
    conn.execute(
        "INSERT INTO tool_servers (name, transport, command, args, env, url, headers, enabled, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
        params![
            server.name,
            server.transport,
            server.command,
            json(&server.args),
            json(&server.env),
            server.url,
            json(&server.headers),
            server.enabled,
            server.created_at
        ],
    )?;
    get(conn, conn.last_insert_rowid())
}

pub fn update(conn: &Connection, id: i64, patch: &ToolServerPatch) -> Result<ToolServer> {
    let mut s = get(conn, id)?;
    if let Some(v) = &patch.name {
        s.name.clone_from(v);
    }
    if let Some(v) = &patch.command {
        s.command.clone_from(v);
    }
    if let Some(v) = &patch.args {
        s.args.clone_from(v);
    }
    if let Some(v) = &patch.url {
        s.url.clone_from(v);
    }
    merge(&mut s.env, patch.env.as_ref());
    merge(&mut s.headers, patch.headers.as_ref());
    if let Some(v) = patch.enabled {
        s.enabled = v;
    }
    if let Some(v) = &patch.always_allowed {
        s.always_allowed.clone_from(v);
        s.always_allowed.sort();
        s.always_allowed.dedup();
    }
    if let Some(v) = &patch.off_in {
        s.off_in.clone_from(v);
        s.off_in.sort_unstable();
        s.off_in.dedup();
    }
    check(conn, &mut s)?;
    conn.execute(
        "UPDATE tool_servers SET name = ?2, command = ?3, args = ?4, env = ?5, url = ?6, headers = ?7, enabled = ?8,
         always_allowed = ?9, off_in = ?10, updated_at = ?11 WHERE id = ?1",
        params![
            id,
            s.name,
            s.command,
            json(&s.args),
            json(&s.env),
            s.url,
            json(&s.headers),
            s.enabled,
            json(&s.always_allowed),
            json(&s.off_in),
            now_ms()
        ],
    )?;
    get(conn, id)
}

/// Lets `tool` of server `id` run without asking from now on.
pub fn always_allow(conn: &Connection, id: i64, tool: &str) -> Result<ToolServer> {
    let mut allowed = get(conn, id)?.always_allowed;
    allowed.push(tool.to_string());
    update(conn, id, &ToolServerPatch { always_allowed: Some(allowed), ..Default::default() })
}

pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    get(conn, id)?;
    conn.execute("DELETE FROM tool_servers WHERE id = ?1", [id])?;
    Ok(())
}

/// What a backup keeps of the servers: each one disabled, its secrets emptied (names kept, so the
/// user sees what to fill in again). Returns how many there were.
pub fn forget_secrets(conn: &Connection) -> Result<usize> {
    let servers = list(conn)?;
    for s in &servers {
        let blank = |m: &BTreeMap<String, String>| json(&m.keys().map(|k| (k.clone(), String::new())).collect::<BTreeMap<_, _>>());
        conn.execute(
            "UPDATE tool_servers SET env = ?2, headers = ?3, enabled = 0 WHERE id = ?1",
            params![s.id, blank(&s.env), blank(&s.headers)],
        )?;
    }
    Ok(servers.len())
}

fn merge(into: &mut BTreeMap<String, String>, patch: Option<&BTreeMap<String, Option<String>>>) {
    for (k, v) in patch.into_iter().flatten() {
        match v {
            Some(v) => into.insert(k.clone(), v.clone()),
            None => into.remove(k),
        };
    }
}

fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Refuses what cannot start or reach a server, or would name its tools ambiguously.
fn check(conn: &Connection, s: &mut ToolServer) -> Result<()> {
    let bad = |msg: String| Err(Error::invalid(Code::InvalidToolServer, msg));
    s.name = s.name.trim().to_string();
    if s.name.is_empty()
        || s.name.chars().count() > NAME_MAX_CHARS
        || !s.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        || s.name.contains("__")
    {
        return Err(Error::invalid(
            Code::InvalidName,
            format!("a tool server's name is 1 to {NAME_MAX_CHARS} letters, digits, - or _ (no __): it names its tools for the model"),
        ));
    }
    let taken: Option<i64> = conn
        .query_row("SELECT id FROM tool_servers WHERE lower(name) = lower(?1) AND id IS NOT ?2", params![s.name, s.id], |r| r.get(0))
        .optional()?;
    if taken.is_some() {
        return Err(Error::conflict(Code::NameTaken, format!("a tool server named \"{}\" already exists", s.name)).with("name", &s.name));
    }
    s.command = s.command.trim().to_string();
    s.url = s.url.trim().to_string();
    match s.transport {
        Transport::Stdio if s.command.is_empty() => return bad("a stdio tool server needs the command that starts it".into()),
        Transport::Http if !(s.url.starts_with("http://") || s.url.starts_with("https://")) || url::Url::parse(&s.url).is_err() => {
            return bad(format!("a tool server's address is an http:// or https:// URL (got {:?})", s.url));
        }
        _ => {}
    }
    if s.args.len() > ARGS_MAX || s.env.len() > VARS_MAX || s.headers.len() > VARS_MAX {
        return bad(format!("a tool server takes at most {ARGS_MAX} arguments and {VARS_MAX} variables or headers"));
    }
    let texts = std::iter::once(&s.command)
        .chain(&s.args)
        .chain(s.env.keys())
        .chain(s.env.values())
        .chain(s.headers.keys())
        .chain(s.headers.values());
    for t in texts {
        if t.chars().count() > TEXT_MAX_CHARS || t.contains('\0') {
            return bad(format!("a tool server's command, arguments and variables are at most {TEXT_MAX_CHARS} characters, without NUL"));
        }
    }
    if s.env.keys().chain(s.headers.keys()).any(|k| k.is_empty() || k.contains('=') || k.chars().any(char::is_whitespace)) {
        return bad("a variable or header name is a single word, without = or spaces".into());
    }
    Ok(())
}
