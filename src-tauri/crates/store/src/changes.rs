//! What changed in the data, as every window and tab needs to hear it (`GET /api/events`): a chat
//! created, renamed, moved or deleted, a project changed, a turn that starts or ends, whatever
//! made the change (the API, a turn, the title the model gave, an import).
//!
//! Taken from SQLite itself: the writer connection's update hook notes the rows of the tables
//! that matter, and its commit hook sends them once the transaction commits (a rolled-back one
//! sends nothing). So no code path can change a chat without the others hearing of it. Only what
//! changed is sent, never the data: a listener reads that through the API.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rusqlite::hooks::Action;
use rusqlite::Connection;
use tokio::sync::broadcast;

pub use maru_types::changes::*;

/// Changes kept for a listener that is slow to read; past that it is told to read everything again.
const BACKLOG: usize = 256;

/// The channel changes go out on.
#[derive(Clone)]
pub struct Changes {
    tx: broadcast::Sender<Change>,
    /// Counts the writes and rollbacks that may have changed the settings (see `Store::settings`).
    settings: Arc<AtomicU64>,
}

impl Default for Changes {
    fn default() -> Self {
        Changes { tx: broadcast::channel(BACKLOG).0, settings: Arc::default() }
    }
}

impl Changes {
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.tx.subscribe()
    }

    /// Changes whenever this process writes a row the settings are read from, and when a write
    /// is rolled back (it may have read settings it had changed itself).
    pub(crate) fn settings_generation(&self) -> u64 {
        self.settings.load(Ordering::Acquire)
    }

    /// Sends what `conn` commits from now on.
    pub(crate) fn watch(&self, conn: &Connection) {
        let pending: Arc<Mutex<Vec<Change>>> = Arc::default();
        let noted = pending.clone();
        let (settings, undone) = (self.settings.clone(), self.settings.clone());
        conn.update_hook(Some(move |action: Action, _db: &str, table: &str, rowid: i64| {
            if matches!(table, "settings" | "connections") {
                settings.fetch_add(1, Ordering::AcqRel);
            }
            let change = match (table, action) {
                ("sessions", Action::SQLITE_DELETE) => Change::SessionDeleted { session_id: rowid },
                ("sessions", _) => Change::SessionChanged { session_id: rowid },
                ("projects", _) => Change::ProjectsChanged,
                // Its rowid is the session's id.
                ("turns_in_flight", Action::SQLITE_INSERT) => Change::TurnStarted { session_id: rowid },
                ("turns_in_flight", Action::SQLITE_DELETE) => Change::TurnEnded { session_id: rowid },
                _ => return,
            };
            let mut pending = noted.lock().unwrap_or_else(|e| e.into_inner());
            if !pending.contains(&change) {
                pending.push(change);
            }
        }));
        let (sent, tx) = (pending.clone(), self.tx.clone());
        conn.commit_hook(Some(move || {
            for change in sent.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
                // No listener is fine.
                let _ = tx.send(change);
            }
            false // never turns the commit into a rollback
        }));
        conn.rollback_hook(Some(move || {
            undone.fetch_add(1, Ordering::AcqRel);
            pending.lock().unwrap_or_else(|e| e.into_inner()).clear()
        }));
    }
}
