//! The user's model servers (`connections`): a name, an OpenAI-compatible base URL, an API key,
//! whether it is on. One is the default: chats without a server of their own use it, and it can
//! be neither deleted nor turned off, so there is always a server to ask. The key is kept here
//! only: never returned, exported, logged or backed up.

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{char_len, found, now_ms};
use crate::error::{Code, Error, Result};

pub use maru_types::connections::*;

pub const NAME_MAX_CHARS: usize = 64;
/// A model server's address is a short URL; one longer than this is a mistake (a pasted page).
pub const URL_MAX_CHARS: usize = 2_048;

const SELECT: &str =
    "SELECT id, name, base_url, api_key, default_model, enabled, is_default, demo, created_at, updated_at FROM connections";

/// What the demo model's server is called until the user renames it.
pub const DEMO_NAME: &str = "Demo model";

fn from_row(r: &Row) -> rusqlite::Result<ServerConnection> {
    Ok(ServerConnection {
        id: r.get(0)?,
        name: r.get(1)?,
        base_url: r.get(2)?,
        api_key: r.get(3)?,
        default_model: r.get(4)?,
        enabled: r.get(5)?,
        is_default: r.get(6)?,
        demo: r.get(7)?,
        created_at: r.get(8)?,
        updated_at: r.get(9)?,
    })
}

/// The default server first, then the others as they were added.
pub fn list(conn: &Connection) -> Result<Vec<ServerConnection>> {
    let mut stmt = conn.prepare_cached(&format!("{SELECT} ORDER BY is_default DESC, id"))?;
    let rows = stmt.query_map([], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn get(conn: &Connection, id: i64) -> Result<ServerConnection> {
    found(conn.prepare_cached(&format!("{SELECT} WHERE id = ?1"))?.query_row([id], from_row), "server", id)
}

/// The default server: the first one the user added (or the demo model), which nothing removes; a
/// store edited by hand that has lost the mark asks the first server. A store with none yet (a
/// first run) gives a server with id 0 and no address, which [`check_set_up`] refuses to ask.
pub fn default(conn: &Connection) -> Result<ServerConnection> {
    let first = conn.prepare_cached(&format!("{SELECT} ORDER BY is_default DESC, id LIMIT 1"))?.query_row([], from_row).optional()?;
    Ok(first.unwrap_or_else(|| ServerConnection { name: String::new(), base_url: String::new(), ..ServerConnection::default() }))
}

/// Refuses to ask the server of a store with none yet, saying what to do.
pub fn check_set_up(server: &ServerConnection) -> Result<()> {
    if server.id == 0 && server.base_url.is_empty() {
        return Err(Error::invalid(
            Code::NoServer,
            "no model server is set up yet: add yours in Settings → Servers, or start the demo model",
        ));
    }
    Ok(())
}

/// The demo model's server, when it was started once.
pub fn demo(conn: &Connection) -> Result<Option<ServerConnection>> {
    Ok(conn.prepare_cached(&format!("{SELECT} WHERE demo = 1 ORDER BY id LIMIT 1"))?.query_row([], from_row).optional()?)
}

/// Keeps the demo model's one server at `base_url` (its port changes from start to start),
/// added the first time (the default when there is none yet). Its name and model, once the user
/// changed them, stay.
pub fn save_demo(conn: &Connection, base_url: &str, model: &str) -> Result<ServerConnection> {
    if let Some(c) = demo(conn)? {
        if c.base_url != base_url {
            check_url(base_url)?;
            conn.execute("UPDATE connections SET base_url = ?2, updated_at = ?3 WHERE id = ?1", params![c.id, base_url, now_ms()])?;
        }
        return get(conn, c.id);
    }
    let new = NewConnection {
        name: free_name(conn, DEMO_NAME, 0)?,
        base_url: base_url.into(),
        default_model: Some(model.into()),
        ..NewConnection::default()
    };
    let c = create(conn, &new)?;
    conn.execute("UPDATE connections SET demo = 1 WHERE id = ?1", [c.id])?;
    get(conn, c.id)
}

/// The default server's row, made again when a store edited by hand has lost it.
fn default_row(conn: &Connection) -> Result<ServerConnection> {
    let d = default(conn)?;
    if d.id != 0 {
        if !d.is_default {
            conn.execute("UPDATE connections SET is_default = 1, enabled = 1 WHERE id = ?1", [d.id])?;
        }
        return get(conn, d.id);
    }
    // A first run's settings given an address (scripts set `endpoint_url`): the server it names.
    let url = DEFAULT_URL;
    conn.execute(
        "INSERT INTO connections (name, base_url, is_default, created_at, updated_at) VALUES (?1, ?2, 1, ?3, ?3)",
        params![free_name(conn, &name_for(url), 0)?, url, now_ms()],
    )?;
    get(conn, conn.last_insert_rowid())
}

/// Changes the default server (what `endpoint_url`, `api_key` and `model` of the settings write,
/// for the scripts that set them).
pub fn update_default(conn: &Connection, patch: &ConnectionPatch) -> Result<ServerConnection> {
    let d = default_row(conn)?;
    update(conn, d.id, patch)
}

/// The server a chat asks: its own, else the default.
pub fn for_chat(conn: &Connection, connection_id: Option<i64>) -> Result<ServerConnection> {
    match connection_id {
        Some(id) => get(conn, id),
        None => default(conn),
    }
}

pub fn create(conn: &Connection, new: &NewConnection) -> Result<ServerConnection> {
    let mut c = ServerConnection {
        name: new.name.clone(),
        base_url: new.base_url.clone(),
        api_key: new.api_key.clone(),
        default_model: new.default_model.clone().unwrap_or_default(),
        enabled: new.enabled.unwrap_or(true),
        is_default: false,
        ..ServerConnection::default()
    };
    check(conn, &mut c)?;
    // The first server is the default one: there is always a server to ask once there is one.
    let first = default(conn)?.id == 0;
    conn.execute(
        "INSERT INTO connections (name, base_url, api_key, default_model, enabled, is_default, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5 OR ?6, ?6, ?7, ?7)",
        params![c.name, c.base_url, c.api_key, c.default_model, c.enabled, first, now_ms()],
    )?;
    get(conn, conn.last_insert_rowid())
}

pub fn update(conn: &Connection, id: i64, patch: &ConnectionPatch) -> Result<ServerConnection> {
    let mut c = get(conn, id)?;
    if let Some(v) = &patch.name {
        c.name.clone_from(v);
    }
    if let Some(v) = &patch.base_url {
        // A name that only said the old address says the new one.
        let (was, wanted) = (name_for(&c.base_url), name_for(v.trim().trim_end_matches('/')));
        if patch.name.is_none() && c.name == was && wanted != was {
            c.name = free_name(conn, &wanted, c.id)?;
        }
        c.base_url.clone_from(v);
    }
    if let Some(v) = &patch.default_model {
        c.default_model = v.clone().unwrap_or_default();
    }
    if let Some(v) = &patch.api_key {
        c.api_key.clone_from(v);
    }
    if let Some(v) = patch.enabled {
        c.enabled = v;
    }
    let make_default = patch.is_default == Some(true) && !c.is_default;
    if patch.is_default == Some(false) && c.is_default {
        return Err(Error::conflict(
            Code::DefaultConnection,
            format!("\"{}\" stays the default server until another one is made the default", c.name),
        )
        .with("name", &c.name));
    }
    if (c.is_default || make_default) && !c.enabled {
        return Err(Error::conflict(
            Code::DefaultConnection,
            format!("\"{}\" is the default server and cannot be turned off; make another one the default first", c.name),
        )
        .with("name", &c.name));
    }
    check(conn, &mut c)?;
    if make_default {
        conn.execute("UPDATE connections SET is_default = 0 WHERE is_default = 1", [])?;
    }
    conn.execute(
        "UPDATE connections SET name = ?2, base_url = ?3, api_key = ?4, default_model = ?5, enabled = ?6,
         is_default = is_default OR ?7, updated_at = ?8 WHERE id = ?1",
        params![id, c.name, c.base_url, c.api_key, c.default_model, c.enabled, make_default, now_ms()],
    )?;
    get(conn, id)
}

/// Removes a server; its chats go back to the default server (a trigger, in the same statement).
pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    let c = get(conn, id)?;
    if c.is_default {
        return Err(Error::conflict(
            Code::DefaultConnection,
            format!("\"{}\" is the default server and cannot be removed; make another one the default first", c.name),
        )
        .with("name", &c.name));
    }
    conn.execute("DELETE FROM connections WHERE id = ?1", [id])?;
    Ok(())
}

/// What a backup keeps of the servers: everything but their keys.
pub fn forget_secrets(conn: &Connection) -> Result<()> {
    conn.execute("UPDATE connections SET api_key = NULL", [])?;
    Ok(())
}

/// A server's name made of its address: no scheme, no API prefix ("127.0.0.1:8080"), as the
/// migration names the first one; room is left for `free_name`'s " (2)".
pub fn name_for(url: &str) -> String {
    let host = url.trim().trim_start_matches("https://").trim_start_matches("http://").replace("/v1", "");
    let host = host.trim_end_matches('/');
    let name = if host.is_empty() { url } else { host };
    // A long address makes a name that still fits.
    name.chars().take(NAME_MAX_CHARS - 5).collect()
}

/// `name`, or `name (2)`, `name (3)`… : the first no server but `except` has.
pub fn free_name(conn: &Connection, name: &str, except: i64) -> Result<String> {
    let taken = |n: &str| -> Result<bool> {
        let found = conn.query_row("SELECT 1 FROM connections WHERE lower(name) = lower(?1) AND id <> ?2", params![n, except], |_| Ok(()));
        Ok(found.optional()?.is_some())
    };
    if !taken(name)? {
        return Ok(name.to_string());
    }
    for i in 2.. {
        let candidate = format!("{name} ({i})");
        if !taken(&candidate)? {
            return Ok(candidate);
        }
    }
    unreachable!("some number is free")
}

/// Refuses a name that is blank, long or taken, and an address a request could not go to.
fn check(conn: &Connection, c: &mut ServerConnection) -> Result<()> {
    // The address first: a name made of a bad address would be refused for the wrong reason.
    c.base_url = c.base_url.trim().trim_end_matches('/').to_string();
    check_url(&c.base_url)?;
    c.name = c.name.trim().to_string();
    let len = char_len(&c.name);
    if len == 0 || len > NAME_MAX_CHARS || c.name.chars().any(|ch| ch.is_control() || super::text::is_format_char(ch)) {
        return Err(Error::invalid(Code::InvalidName, format!("a server's name is one line of 1 to {NAME_MAX_CHARS} characters"))
            .with("max", NAME_MAX_CHARS));
    }
    let taken: Option<i64> = conn
        .query_row("SELECT id FROM connections WHERE lower(name) = lower(?1) AND id IS NOT ?2", params![c.name, c.id], |r| r.get(0))
        .optional()?;
    if taken.is_some() {
        return Err(Error::conflict(Code::NameTaken, format!("a server named \"{}\" already exists", c.name)).with("name", &c.name));
    }
    c.default_model = c.default_model.trim().to_string();
    check_model(&c.default_model)?;
    if c.api_key.as_deref().is_some_and(|k| k.trim().is_empty()) {
        c.api_key = None;
    }
    Ok(())
}

/// A model server's address: an http(s) URL with a host, as typed. Whitespace, control and
/// invisible characters are refused rather than dropped or escaped (the URL parser would quietly
/// remove a tab or a line break, and a direction mark makes an address read as another).
pub fn check_url(url: &str) -> Result<()> {
    // Neither refusal repeats the address: it is too long to read, or it holds a secret.
    let len = char_len(url);
    if len > URL_MAX_CHARS {
        return Err(Error::invalid(
            Code::UrlTooLong,
            format!("the server address has {len} characters; Maru accepts up to {URL_MAX_CHARS}"),
        )
        .with("max", URL_MAX_CHARS));
    }
    if credentials(url).is_some() {
        return Err(Error::invalid(
            Code::CredentialsInUrl,
            "the server address holds a user name or password (before @); put the key in the API key field and write the address without it",
        ));
    }
    let refuse = |why: &str| {
        Err(Error::invalid(
            Code::InvalidEndpoint,
            format!("the server address {why}; write it like http://127.0.0.1:8080/v1 (got {url:?})"),
        )
        .with("url", url))
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control() || super::text::is_format_char(c)) {
        return refuse("cannot contain spaces, control or invisible characters");
    }
    let parsed = match url::Url::parse(url) {
        Ok(u) => u,
        Err(e) => return refuse(&format!("is not a valid URL ({e})")),
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return refuse("must start with http:// or https://");
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return refuse("has no host");
    }
    Ok(())
}

/// The longest model name a chat may name (servers' ids are short; this only stops garbage).
pub const MODEL_MAX_CHARS: usize = 300;

/// Refuses what no server names a model: a long text, a line break or control character.
pub fn check_model(model: &str) -> Result<()> {
    if model.chars().count() > MODEL_MAX_CHARS || model.chars().any(char::is_control) {
        return Err(Error::invalid(Code::InvalidModel, format!("a model name is one line of at most {MODEL_MAX_CHARS} characters")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{check_url, URL_MAX_CHARS};

    #[test]
    fn a_server_address_is_a_real_url_or_refused() {
        for good in ["http://127.0.0.1:8080/v1", "https://gpu.example.com/v1", "http://[::1]:8000/v1", "http://localhost:11434/v1"] {
            assert!(check_url(good).is_ok(), "{good} is a server address a user would type");
        }
        for bad in [
            "http://[::1:8000/v1",
            "http://127.0.0.1:65536/v1",
            "http://127.0.0.1:99999/v1",
            "http://127.0.0.1:8080/v1\u{7}",
            "http://127.0.0.1:80\t80/v1",
            "http://127.0.0.1:8080/\u{202e}1v",
            "http://gpu\u{200b}.example.com/v1",
            "http://",
            "localhost:8080",
            "ftp://127.0.0.1/v1",
        ] {
            let err = check_url(bad).expect_err(bad);
            assert_eq!(err.code(), "invalid_endpoint", "{bad:?} would fail every request later; it must be refused when saved");
        }
    }

    #[test]
    fn an_address_with_a_secret_in_it_is_refused_without_repeating_the_secret() {
        for bad in ["http://user:secret@gpu.example.com/v1", "https://secret@api.example.com/v1", "http://u:secret@[::1]:8000/v1"] {
            let err = check_url(bad).expect_err(bad);
            assert_eq!(err.code(), "credentials_in_url", "{bad}: the key goes in the API key field, where it is never shown again");
            assert!(!err.to_string().contains("secret"), "the refusal must not carry the secret into the log or the window: {err}");
            assert!(err.to_string().contains("API key field"), "it says where the key goes: {err}");
        }
        assert!(check_url("http://127.0.0.1:8080/v1/with@sign").is_ok(), "an @ in the path is not a credential");
    }

    #[test]
    fn an_address_has_a_length_limit() {
        let long = format!("http://127.0.0.1:8080/{}", "a".repeat(100_000));
        let err = check_url(&long).expect_err("a 100,000-character address");
        assert_eq!(err.code(), "url_too_long", "a pasted page is not a server address");
        assert!(err.to_string().len() < 200, "the refusal does not repeat the address: {} bytes", err.to_string().len());
        let at_limit = format!("http://127.0.0.1:8080/{}", "a".repeat(URL_MAX_CHARS - "http://127.0.0.1:8080/".len()));
        assert!(check_url(&at_limit).is_ok(), "an address of exactly the limit is kept");
    }
}
