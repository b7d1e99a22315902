//! The SQLite store: one file (`maru.db`) holding every table, one module per table with its SQL.
//!
//! Store functions take a `&Connection` (a `&Transaction` derefs to one) and never open
//! transactions themselves: the caller owns it, so one user action is one transaction however
//! many tables it touches. [`Store::write`] runs a closure in one immediate transaction on the
//! single writer connection; [`Store::read`] runs it on one of a few read-only connections.
//! In WAL mode readers see the last commit and never wait for the writer, so a long write
//! (indexing a file, a compaction) does not delay listing sessions or a turn's partial saves.
//! Both run on the blocking pool so async tasks never wait on disk I/O or a lock. The one
//! exception is the first step of [`Store::write_in_two`], which a turn's start uses: it runs on
//! the caller's thread, and only when it need not wait for anything.

// The layers below, by the names the modules use.
use maru_error as error;

pub mod attachments;
pub mod backups;
pub mod changes;
pub mod connections;
pub mod exports;
pub mod forks;
pub mod imports;
pub mod memories;
pub mod messages;
mod migrate;
pub mod passage_vectors;
pub mod presets;
pub mod projects;
pub mod prompt_inputs;
pub mod search;
pub mod sessions;
pub mod settings;
pub mod shared_calls;
pub mod skills;
pub mod snapshots;
pub mod summaries;
#[cfg(test)]
mod tests;
pub mod text;
pub mod tool_outputs;
pub mod tool_servers;
pub mod turns;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use rusqlite::{Connection, OpenFlags, Transaction};

use crate::error::{Error, Result};

pub use migrate::{latest_version, MIGRATIONS};
pub use text::{char_len, one_line};

/// Idle read connections kept open; more are opened when several reads run at once.
const IDLE_READERS: usize = 4;

#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    writer: Arc<writer::Writer>,
    readers: Mutex<Vec<Connection>>,
    path: PathBuf,
    changes: changes::Changes,
    /// The global settings as last read on the writer, while they stay so (see `Store::settings`).
    settings: Mutex<Option<KnownSettings>>,
}

struct KnownSettings {
    /// `Changes::settings_generation` and the writer's `PRAGMA data_version` when read.
    generation: u64,
    data_version: i64,
    settings: settings::Settings,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// A database written by a newer Maru is refused untouched.
    pub fn open(path: &Path) -> Result<Store> {
        Self::open_with(path, MIGRATIONS)
    }

    /// Opens with only the first `n` migrations: for upgrade tests that need an old schema.
    #[doc(hidden)]
    pub fn open_at_version(path: &Path, n: usize) -> Result<Store> {
        Self::open_with(path, &MIGRATIONS[..n])
    }

    fn open_with(path: &Path, migrations: &[migrate::Migration]) -> Result<Store> {
        let mut conn = connect(path)?;
        migrate::apply(&mut conn, migrations)?;
        restrict_permissions(path);
        let changes = changes::Changes::default();
        changes.watch(&conn);
        let inner = Inner {
            writer: Arc::new(writer::Writer::new(conn)),
            readers: Mutex::new(Vec::new()),
            path: path.to_path_buf(),
            changes,
            settings: Mutex::new(None),
        };
        Ok(Store { inner: Arc::new(inner) })
    }

    /// What every commit changed from now on, as it commits (see [`changes`]).
    pub fn changes(&self) -> tokio::sync::broadcast::Receiver<changes::Change> {
        self.inner.changes.subscribe()
    }

    /// Runs `f` in one write transaction on the blocking pool; it commits when `f` succeeds and
    /// rolls back when it fails, so an error never leaves half an action behind.
    pub async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction) -> Result<T> + Send + 'static,
    {
        let store = self.clone();
        started(move || store.with(f)).await
    }

    /// One write transaction in two steps. `first` runs, and what it gives for the caller comes
    /// back at once with a future of the rest: once polled, `then` goes on in the same
    /// transaction on the blocking pool with the rest of what `first` gave, and commits. Nothing
    /// is kept unless both steps succeed; the transaction holds the writer until the future is
    /// polled, and rolls back if it is dropped unpolled. A turn reads its round in `first` and
    /// stores its reply's row once its request has gone out: on a small machine the thread
    /// that commits, woken earlier, would often take the core that was about to send.
    ///
    /// When the writer is free and no other process holds the database's write lock, `first`
    /// runs on the caller's own thread: a turn's request then goes out without waiting for two
    /// thread hand-offs (waking an idle thread is most of their cost on a small machine). It
    /// never waits there: if either is busy, `first` runs on the blocking pool.
    pub async fn write_in_two<A, R, B, F, T>(&self, first: F, then: T) -> Result<(A, impl std::future::Future<Output = Result<B>>)>
    where
        A: Send + 'static,
        R: Send + 'static,
        B: Send + 'static,
        F: FnOnce(&Connection) -> Result<(A, R)> + Send + 'static,
        T: FnOnce(&Connection, R) -> Result<B> + Send + 'static,
    {
        let writer = &self.inner.writer;
        let (loan, mine, rest) = match writer.try_lend().filter(|loan| begin(loan, Duration::ZERO).is_ok()) {
            Some(loan) => {
                // An error drops the loan, which rolls the transaction back.
                let (mine, rest) = first(&loan)?;
                (loan, mine, rest)
            }
            None => {
                let writer = writer.clone();
                started(move || {
                    let loan = writer.lend();
                    begin(&loan, BUSY_WAIT)?;
                    let (mine, rest) = first(&loan)?;
                    Ok((loan, mine, rest))
                })
                .await?
            }
        };
        let committed = async move {
            started(move || {
                let out = then(&loan, rest)?;
                loan.execute_batch("COMMIT")?;
                Ok(out)
            })
            .await
        };
        Ok((mine, committed))
    }

    /// What the database holds, as a value that changes with every write: this process's (the
    /// write connection's changes) and any other connection's (SQLite's data version). `None`
    /// while a write is under way: what it holds is changing.
    pub fn version(&self) -> Option<Version> {
        let loan = self.inner.writer.try_lend()?;
        version_of(&loan).ok()
    }

    /// [`Store::write`], and the [`Store::version`] it left, before any other write could start.
    pub async fn write_noting_version<T, F>(&self, f: F) -> Result<(T, Version)>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction) -> Result<T> + Send + 'static,
    {
        let store = self.clone();
        started(move || {
            let (out, held) = store.committed(f)?;
            Ok((out, version_of(&held)?))
        })
        .await
    }

    /// Runs `f` on a read-only connection on the blocking pool. It sees the last commit and never
    /// waits for a write in progress.
    pub async fn read<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T> + Send + 'static,
    {
        let store = self.clone();
        started(move || store.read_now(f)).await
    }

    /// [`Store::write`], then `after` on the committed result before any other write can start:
    /// for files whose lifetime follows rows. A stored file released by a commit is removed
    /// before another transaction can link the same content again (which then writes it anew).
    pub async fn write_then<T, F, A>(&self, f: F, after: A) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction) -> Result<T> + Send + 'static,
        A: FnOnce(&T) + Send + 'static,
    {
        let store = self.clone();
        started(move || store.with_then(f, after)).await
    }

    /// [`Store::write`] on the current thread (start-up, tests, benchmarks).
    pub fn with<T>(&self, f: impl FnOnce(&Transaction) -> Result<T>) -> Result<T> {
        self.with_then(f, |_| ())
    }

    /// [`Store::write_then`] on the current thread.
    pub fn with_then<T>(&self, f: impl FnOnce(&Transaction) -> Result<T>, after: impl FnOnce(&T)) -> Result<T> {
        let (out, held) = self.committed(f)?;
        after(&out);
        drop(held);
        Ok(out)
    }

    /// `f` in one write transaction, committed, with the writer still held: nothing else is
    /// written before the caller lets it go.
    fn committed<T>(&self, f: impl FnOnce(&Transaction) -> Result<T>) -> Result<(T, writer::Loan)> {
        let mut conn = self.inner.writer.lend();
        let tx = conn.transaction()?;
        let out = f(&tx)?;
        tx.commit()?;
        Ok((out, conn))
    }

    /// [`Store::read`] on the current thread.
    pub fn read_now<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let idle = self.inner.readers.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let conn = match idle {
            Some(c) => c,
            None => connect_reader(&self.inner.path)?,
        };
        let out = f(&conn);
        let mut idle = self.inner.readers.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < IDLE_READERS {
            idle.push(conn);
        }
        out
    }
}

impl Store {
    /// The global settings ([`settings::load`]) in a write transaction, `conn`. Every turn
    /// begins with them, and reading and checking them is a good part of its time before its
    /// request goes out: they are kept until a commit may have changed them, one of this
    /// process's (noted by the writer's update hook) or another process's (SQLite's
    /// `data_version`). On any other connection they are read as usual.
    pub fn settings(&self, conn: &Connection) -> Result<settings::Settings> {
        if conn.is_readonly(rusqlite::MAIN_DB)? {
            return settings::load(conn);
        }
        let generation = self.inner.changes.settings_generation();
        let data_version: i64 = conn.prepare_cached("PRAGMA data_version")?.query_row([], |r| r.get(0))?;
        let mut known = self.inner.settings.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = known.as_ref().filter(|k| (k.generation, k.data_version) == (generation, data_version)) {
            return Ok(k.settings.clone());
        }
        let settings = settings::load(conn)?;
        *known = Some(KnownSettings { generation, data_version, settings: settings.clone() });
        Ok(settings)
    }

    /// Copies the database as of one commit to `to`, with SQLite's online backup in a single
    /// step: the copy reads one snapshot, so a reply saving its text meanwhile is either wholly
    /// in it or not at all, and in WAL mode the writer never waits for it.
    pub fn snapshot(&self, to: &Path) -> Result<()> {
        let src = connect_reader(&self.inner.path)?;
        let mut dst = Connection::open(to).with_context(|| format!("creating {}", to.display()))?;
        let backup = rusqlite::backup::Backup::new(&src, &mut dst)?;
        // Busy only while a checkpoint holds the file for a moment: try again.
        let mut tries = 0;
        while backup.step(-1)? != rusqlite::backup::StepResult::Done {
            tries += 1;
            if tries > 250 {
                return Err(anyhow::anyhow!("the database stayed busy; try the backup again").into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        drop(backup);
        // One self-contained file, whatever mode the live database is in.
        dst.pragma_update(None, "journal_mode", "DELETE")?;
        Ok(())
    }
}

/// Begins an immediate transaction on the writer, waiting at most `wait` for another
/// process's write lock.
fn begin(conn: &Connection, wait: Duration) -> Result<()> {
    if wait == BUSY_WAIT {
        return Ok(conn.execute_batch("BEGIN IMMEDIATE")?);
    }
    conn.busy_timeout(wait)?;
    let begun = conn.execute_batch("BEGIN IMMEDIATE");
    conn.busy_timeout(BUSY_WAIT)?;
    Ok(begun?)
}

/// See [`Store::version`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Version {
    data: i64,
    changes: u64,
}

fn version_of(conn: &Connection) -> Result<Version> {
    let data = conn.prepare_cached("PRAGMA data_version")?.query_row([], |r| r.get(0))?;
    Ok(Version { data, changes: conn.total_changes() })
}

/// How long a statement waits for another process's lock on the database before it fails.
const BUSY_WAIT: Duration = Duration::from_secs(5);

/// `f` on the blocking pool from now on; the future gives its result.
fn started<T: Send + 'static>(
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> impl std::future::Future<Output = Result<T>> + Send + 'static {
    let task = tokio::task::spawn_blocking(f);
    async move { task.await.map_err(|e| Error::Internal(anyhow::anyhow!("store task failed: {e}")))? }
}

/// Prepared statements kept per connection. A turn's start alone runs a few dozen on the writer
/// (the settings, the branch, the prompt, the history, the reply): with rusqlite's default 16
/// they would be prepared again on every turn, which was most of a regenerate's time before its
/// request went out.
const STATEMENTS_KEPT: usize = 256;

fn connect_reader(path: &Path) -> Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(path, flags).with_context(|| format!("opening {} to read", path.display()))?;
    conn.busy_timeout(BUSY_WAIT)?;
    conn.set_prepared_statement_cache_capacity(STATEMENTS_KEPT);
    Ok(conn)
}

fn connect(path: &Path) -> Result<Connection> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut conn = Connection::open(path).with_context(|| format!("opening {}", path.display()))?;
    // Transactions take the write lock up front: a deferred one that reads first and writes
    // later fails at once with "database is locked" when another connection wrote in between.
    conn.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
    conn.busy_timeout(BUSY_WAIT)?;
    conn.set_prepared_statement_cache_capacity(STATEMENTS_KEPT);
    // WAL lets readers and the writer work at once; NORMAL is durable across app crashes in WAL.
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // The search triggers index text in the form `terms` gives it.
    conn.create_scalar_function(
        "maru_terms",
        1,
        rusqlite::functions::FunctionFlags::SQLITE_DETERMINISTIC | rusqlite::functions::FunctionFlags::SQLITE_UTF8,
        |ctx| Ok(maru_retrieval::analysis::index_terms(&ctx.get::<String>(0)?)),
    )?;
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

/// The most one search (of chats or of files) may take, in all.
pub const SEARCH_BUDGET: Duration = Duration::from_millis(45);
/// The most ranking one set of matches may take; past it, matches are taken unranked (a query of
/// common words matches most of the index, and ranking them all is the cost).
const RANKING_BUDGET: Duration = Duration::from_millis(30);

/// `find(true)`, the ranked matches, when they come within [`RANKING_BUDGET`] (and `deadline`);
/// else `find(false)`, unranked ones, until `deadline`; else nothing.
pub fn ranked_or_not<T: Default>(conn: &Connection, deadline: std::time::Instant, find: impl Fn(bool) -> rusqlite::Result<T>) -> Result<T> {
    Ok(ranked_or_said(conn, deadline, find)?.0)
}

/// [`ranked_or_not`], and whether what it found is ranked (false: the budget ran out first).
pub fn ranked_or_said<T: Default>(
    conn: &Connection,
    deadline: std::time::Instant,
    find: impl Fn(bool) -> rusqlite::Result<T>,
) -> Result<(T, bool)> {
    let ranking = deadline.min(std::time::Instant::now() + RANKING_BUDGET);
    match until(conn, ranking, || find(true))? {
        Some(found) => Ok((found, true)),
        None => Ok((until(conn, deadline, || find(false))?.unwrap_or_default(), false)),
    }
}

/// Runs the statements of `f` on `conn` until `deadline`: SQLite interrupts one still running
/// then, and `None` says so. Searches use it, so that what a query costs is bounded whatever it
/// asks for (a pasted paragraph of common words would otherwise rank most of the index).
pub fn until<T>(conn: &Connection, deadline: std::time::Instant, f: impl FnOnce() -> rusqlite::Result<T>) -> Result<Option<T>> {
    if std::time::Instant::now() >= deadline {
        return Ok(None);
    }
    // Checked every thousand virtual-machine steps: a few microseconds apart.
    conn.progress_handler(1000, Some(move || std::time::Instant::now() >= deadline));
    let out = f();
    conn.progress_handler(0, None::<fn() -> bool>);
    match out {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Current time in Unix milliseconds, the unit of every timestamp in the store.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Maps "no row" to a typed not-found error.
pub fn found<T>(r: rusqlite::Result<T>, what: &'static str, id: i64) -> Result<T> {
    match r {
        Ok(v) => Ok(v),
        Err(rusqlite::Error::QueryReturnedNoRows) => Err(Error::NotFound { what, id }),
        Err(e) => Err(e.into()),
    }
}
