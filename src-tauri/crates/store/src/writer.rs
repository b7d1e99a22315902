//! The one write connection, lent to one thread at a time.
//!
//! A mutex guard must stay on the thread that took it; a [`Loan`] owns the connection and may
//! move: a transaction begun on one thread can go on and commit on another (a turn reads its
//! round on its own thread, and its reply's row commits on the blocking pool while the request
//! goes out). Whatever way a loan ends, a panic included, the connection comes back, and a
//! transaction it left open is rolled back first.

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Condvar, Mutex};

use rusqlite::Connection;

pub(crate) struct Writer {
    /// `None` while lent.
    conn: Mutex<Option<Connection>>,
    returned: Condvar,
}

impl Writer {
    pub(crate) fn new(conn: Connection) -> Self {
        Writer { conn: Mutex::new(Some(conn)), returned: Condvar::new() }
    }

    /// The connection if no one has it now.
    pub(crate) fn try_lend(self: &Arc<Self>) -> Option<Loan> {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner()).take()?;
        Some(Loan { conn: Some(conn), writer: self.clone() })
    }

    /// The connection, once no one else has it.
    pub(crate) fn lend(self: &Arc<Self>) -> Loan {
        let mut slot = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(conn) = slot.take() {
                return Loan { conn: Some(conn), writer: self.clone() };
            }
            slot = self.returned.wait(slot).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// The write connection while one caller has it; it goes back when dropped.
pub(crate) struct Loan {
    conn: Option<Connection>,
    writer: Arc<Writer>,
}

impl Deref for Loan {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn.as_ref().expect("a loan holds its connection until dropped")
    }
}

impl DerefMut for Loan {
    fn deref_mut(&mut self) -> &mut Connection {
        self.conn.as_mut().expect("a loan holds its connection until dropped")
    }
}

impl Drop for Loan {
    fn drop(&mut self) {
        let Some(conn) = self.conn.take() else { return };
        if !conn.is_autocommit() {
            // Ended without committing (an error or a panic on the way): none of it is kept.
            if let Err(e) = conn.execute_batch("ROLLBACK") {
                tracing::error!("cannot roll back an unfinished write: {e}");
            }
        }
        *self.writer.conn.lock().unwrap_or_else(|p| p.into_inner()) = Some(conn);
        self.writer.returned.notify_one();
    }
}
