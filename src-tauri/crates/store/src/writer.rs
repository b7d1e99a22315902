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
    slot: Mutex<Slot>,
    returned: Condvar,
}

struct Slot {
    /// `None` while lent.
    conn: Option<Connection>,
    /// Threads waiting for it: a loan that ends tells them only when there are some (telling
    /// is a system call, and most loans end with no one waiting).
    waiting: usize,
}

impl Writer {
    pub(crate) fn new(conn: Connection) -> Self {
        Writer { slot: Mutex::new(Slot { conn: Some(conn), waiting: 0 }), returned: Condvar::new() }
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The connection if no one has it now.
    pub(crate) fn try_lend(self: &Arc<Self>) -> Option<Loan> {
        let conn = self.slot().conn.take()?;
        Some(Loan { conn: Some(conn), writer: self.clone() })
    }

    /// The connection, once no one else has it.
    pub(crate) fn lend(self: &Arc<Self>) -> Loan {
        let mut slot = self.slot();
        loop {
            if let Some(conn) = slot.conn.take() {
                return Loan { conn: Some(conn), writer: self.clone() };
            }
            slot.waiting += 1;
            slot = self.returned.wait(slot).unwrap_or_else(|p| p.into_inner());
            slot.waiting -= 1;
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
        let mut slot = self.writer.slot();
        slot.conn = Some(conn);
        if slot.waiting > 0 {
            self.writer.returned.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes from several threads queue for the one connection: each must get it when the loan
    /// before it ends (a loan tells waiting threads only when there are some), or a write hangs.
    #[test]
    fn every_write_waiting_for_the_connection_gets_it_when_the_loan_before_ends() {
        let writer = Arc::new(Writer::new(Connection::open_in_memory().unwrap()));
        let held = writer.lend();
        assert!(writer.try_lend().is_none(), "lent once at a time");
        let (done, finished) = std::sync::mpsc::channel();
        let waiting: Vec<_> = (0..4)
            .map(|i| {
                let (writer, done) = (writer.clone(), done.clone());
                std::thread::spawn(move || {
                    let loan = writer.lend();
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    drop(loan);
                    done.send(i).unwrap();
                })
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(50));
        drop(held);
        for _ in 0..4 {
            finished
                .recv_timeout(std::time::Duration::from_secs(5))
                .expect("a write waiting for the connection must get it once it is returned");
        }
        waiting.into_iter().for_each(|t| t.join().unwrap());
        assert!(writer.try_lend().is_some(), "and it is back once every loan has ended");
    }
}
