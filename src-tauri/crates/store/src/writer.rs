//! The one write connection, lent to one thread at a time.
//!
//! A mutex guard must stay on the thread that took it; a [`Loan`] owns the connection and may
//! move: a transaction begun on one thread can go on and commit on another (a turn reads its
//! round on its own thread, and its reply's row commits on the blocking pool once the request
//! is out). Whatever way a loan ends, a panic included, the connection comes back, and a
//! transaction it left open is rolled back first.
//!
//! A loan may also be left with a step still to run ([`Writer::defer`]): the rest of a
//! transaction whose caller wants it to commit a moment later. Whoever next waits for the
//! connection runs that step first, so nothing can wait for it forever.

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Condvar, Mutex};

use rusqlite::Connection;

pub(crate) struct Writer {
    /// `None` while lent.
    conn: Mutex<Option<Connection>>,
    returned: Condvar,
    /// The step a lent connection's transaction still waits for, holding its loan.
    deferred: Mutex<Option<Step>>,
}

/// The rest of a transaction: it owns its loan, and ends it (committed or rolled back).
pub(crate) type Step = Box<dyn FnOnce() + Send>;

impl Writer {
    pub(crate) fn new(conn: Connection) -> Self {
        Writer { conn: Mutex::new(Some(conn)), returned: Condvar::new(), deferred: Mutex::new(None) }
    }

    /// The connection if no one has it now.
    pub(crate) fn try_lend(self: &Arc<Self>) -> Option<Loan> {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner()).take()?;
        Some(Loan { conn: Some(conn), writer: self.clone() })
    }

    /// The connection, once no one else has it. A step deferred meanwhile runs here: it would
    /// otherwise keep the connection until its caller came back, who may be waiting for this.
    pub(crate) fn lend(self: &Arc<Self>) -> Loan {
        let mut slot = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(step) = self.take_deferred() {
                drop(slot);
                // Its panic is its own caller's failure (who hears of it), not this one's.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(step));
                slot = self.conn.lock().unwrap_or_else(|p| p.into_inner());
                continue;
            }
            if let Some(conn) = slot.take() {
                return Loan { conn: Some(conn), writer: self.clone() };
            }
            slot = self.returned.wait(slot).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Keeps `step`, which holds the connection's loan, until [`Writer::take_deferred`] or a
    /// [`Writer::lend`] (one waiting now included). Only one can wait: its loan is the connection.
    pub(crate) fn defer(&self, step: Step) {
        // Under the connection's lock, so a lender between its look and its wait hears of it.
        let _slot = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let replaced = self.deferred.lock().unwrap_or_else(|p| p.into_inner()).replace(step);
        debug_assert!(replaced.is_none(), "one loan, one deferred step");
        self.returned.notify_all();
    }

    /// The deferred step, if no one has run it yet.
    pub(crate) fn take_deferred(&self) -> Option<Step> {
        self.deferred.lock().unwrap_or_else(|p| p.into_inner()).take()
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
