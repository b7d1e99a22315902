//! The SQLite store: one file (`maru.db`) holding every table, one module per table with its SQL.
//!
//! `Store` owns a single connection behind a mutex: Maru has one user, and SQLite serialises
//! writers anyway. Async callers go through [`Store::call`], which runs the closure on the blocking
//! pool so the HTTP and streaming tasks never wait on disk I/O.

pub mod memories;
pub mod messages;
mod migrate;
pub mod presets;
pub mod projects;
pub mod sessions;
pub mod settings;
pub mod snapshots;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use rusqlite::Connection;

use crate::error::{Error, Result};

pub use migrate::{latest_version, MIGRATIONS};

#[derive(Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// A database written by a newer Maru is refused untouched.
    pub fn open(path: &Path) -> Result<Store> {
        let conn = connect(path)?;
        Self::from_connection(conn, path, MIGRATIONS)
    }

    /// Opens with only the first `n` migrations: for upgrade tests that need an old schema.
    #[doc(hidden)]
    pub fn open_at_version(path: &Path, n: usize) -> Result<Store> {
        let conn = connect(path)?;
        Self::from_connection(conn, path, &MIGRATIONS[..n])
    }

    fn from_connection(mut conn: Connection, path: &Path, migrations: &[migrate::Migration]) -> Result<Store> {
        migrate::apply(&mut conn, migrations)?;
        restrict_permissions(path);
        Ok(Store { conn: Arc::new(Mutex::new(conn)), path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` with the connection on the blocking thread pool.
    pub async fn call<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.with(f))
            .await
            .map_err(|e| Error::Internal(anyhow::anyhow!("store task failed: {e}")))?
    }

    /// Runs `f` with the connection on the current thread (tests, benchmarks, start-up).
    pub fn with<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        // A panic while holding the lock leaves the connection itself intact: keep using it.
        let mut conn = self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut conn)
    }
}

fn connect(path: &Path) -> Result<Connection> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut conn = Connection::open(path).with_context(|| format!("opening {}", path.display()))?;
    // Transactions take the write lock up front: a deferred one that reads first and writes
    // later fails at once with "database is locked" when another connection wrote in between.
    conn.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
    conn.busy_timeout(Duration::from_secs(5))?;
    // WAL lets readers and the writer work at once; NORMAL is durable across app crashes in WAL.
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

#[cfg(unix)]
fn restrict_permissions(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    // The database holds the API key and private chats: owner only.
    for suffix in ["", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600));
    }
}

#[cfg(not(unix))]
fn restrict_permissions(_path: &Path) {}

/// Current time in Unix milliseconds, the unit of every timestamp in the store.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Counts characters, not bytes: limits are stated to users in characters.
pub(crate) fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// A one-line label (a name, a title): trimmed, at most `max` characters, no line breaks (it is
/// shown in lists and in prompt headers). `what` names it in the error, e.g. "a project name".
pub(crate) fn one_line(raw: &str, max: usize, code: &'static str, what: &str) -> Result<String> {
    let text = raw.trim();
    let len = char_len(text);
    if len > max {
        return Err(Error::invalid(code, format!("{what} can have at most {max} characters (this one has {len})")));
    }
    if text.chars().any(char::is_control) {
        return Err(Error::invalid(code, format!("{what} cannot contain line breaks or control characters")));
    }
    Ok(text.to_string())
}

/// Maps "no row" to a typed not-found error.
pub(crate) fn found<T>(r: rusqlite::Result<T>, what: &'static str, id: i64) -> Result<T> {
    match r {
        Ok(v) => Ok(v),
        Err(rusqlite::Error::QueryReturnedNoRows) => Err(Error::NotFound { what, id }),
        Err(e) => Err(e.into()),
    }
}
