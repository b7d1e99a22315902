//! Turns in flight, one per session at most: stop finds them here, a late listener attaches to
//! their feed, and a delete claims the session's slot so no turn writes into what it removes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::events::{Feed, TurnStream};
use crate::error::{Code, Error, Result};

#[derive(Default, Clone)]
pub struct Runs {
    active: Arc<Mutex<HashMap<i64, Running>>>,
    /// Background work after a turn (memory extraction), cancelled when the next turn starts;
    /// each with a number, so that the one that ends removes itself and not a newer one.
    after: Arc<Mutex<HashMap<i64, (u64, CancellationToken)>>>,
    extractions: Arc<std::sync::atomic::AtomicU64>,
    /// Woken whenever a slot is freed.
    freed: Arc<Notify>,
}

struct Running {
    cancel: CancellationToken,
    feed: Feed,
}

/// Holds a session's slot while its turn runs (or while a delete works); dropping it frees it.
pub struct RunGuard {
    runs: Runs,
    session_id: i64,
    pub cancel: CancellationToken,
    pub feed: Feed,
}

impl Runs {
    /// The slot for a new turn; the last turn's work after it (memory extraction) is cancelled.
    pub fn begin(&self, session_id: i64) -> Result<RunGuard> {
        let guard = self.hold(session_id)?;
        // The model server's time goes to the new turn, not to the last one's afterthoughts.
        if let Some((_, after)) = self.after.lock().unwrap_or_else(|p| p.into_inner()).remove(&session_id) {
            after.cancel();
        }
        Ok(guard)
    }

    /// The slot, so that no turn starts while the caller changes the chat (switching versions);
    /// refused while a turn runs.
    pub fn hold(&self, session_id: i64) -> Result<RunGuard> {
        let mut active = self.lock();
        if active.contains_key(&session_id) {
            return Err(Error::conflict(
                Code::TurnRunning,
                "a reply is still being written in this chat; stop it or wait for it to finish",
            ));
        }
        let (cancel, feed) = (CancellationToken::new(), Feed::new());
        active.insert(session_id, Running { cancel: cancel.clone(), feed: feed.clone() });
        Ok(RunGuard { runs: self.clone(), session_id, cancel, feed })
    }

    /// A token for work after the session's turn, and its number for [`Runs::end_extraction`];
    /// the session's next turn cancels it.
    pub fn begin_extraction(&self, session_id: i64) -> (u64, CancellationToken) {
        let token = CancellationToken::new();
        let n = self.extractions.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Some((_, old)) = self.after.lock().unwrap_or_else(|p| p.into_inner()).insert(session_id, (n, token.clone())) {
            old.cancel();
        }
        (n, token)
    }

    /// The work after a turn is over (done, failed or cancelled).
    pub fn end_extraction(&self, session_id: i64, n: u64) {
        let mut after = self.after.lock().unwrap_or_else(|p| p.into_inner());
        if after.get(&session_id).is_some_and(|(m, _)| *m == n) {
            after.remove(&session_id);
        }
    }

    /// Whether the work after the session's last turn is still going on.
    pub fn extracting(&self, session_id: i64) -> bool {
        self.after.lock().unwrap_or_else(|p| p.into_inner()).contains_key(&session_id)
    }

    /// Stops the session's turn; false when none was running.
    pub fn stop(&self, session_id: i64) -> bool {
        self.lock().get(&session_id).map(|r| r.cancel.cancel()).is_some()
    }

    /// The running turn's events from its start, then live; `None` when no turn is running.
    pub fn attach(&self, session_id: i64) -> Option<TurnStream> {
        self.lock().get(&session_id).map(|r| r.feed.subscribe())
    }

    /// Stops the session's turn, if any, waits (up to `grace`) until it has stored its text, and
    /// then holds the slot so that no new turn starts while the caller deletes.
    pub async fn claim(&self, session_id: i64, grace: Duration) -> Result<RunGuard> {
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let freed = self.freed.notified();
            match self.begin(session_id) {
                Ok(guard) => return Ok(guard),
                Err(_) => {
                    self.stop(session_id);
                    if tokio::time::timeout_at(deadline, freed).await.is_err() {
                        return Err(Error::conflict(
                            Code::TurnRunning,
                            "the reply being written in this chat did not stop in time; try again",
                        ));
                    }
                }
            }
        }
    }

    /// How many turns are running.
    pub fn running(&self) -> usize {
        self.lock().len()
    }

    /// Stops every turn (the app is closing) and waits up to `grace` for them to store their text.
    pub async fn stop_all(&self, grace: Duration) {
        for running in self.lock().values() {
            running.cancel.cancel();
        }
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let freed = self.freed.notified();
            if self.lock().is_empty() || tokio::time::timeout_at(deadline, freed).await.is_err() {
                return;
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Running>> {
        self.active.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        self.runs.lock().remove(&self.session_id);
        self.runs.freed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::Runs;

    #[test]
    fn switching_versions_keeps_the_memory_extraction_a_new_turn_cancels() {
        let runs = Runs::default();
        let (_, extraction) = runs.begin_extraction(1);
        let held = runs.hold(1).unwrap();
        assert!(matches!(runs.begin(1), Err(e) if e.code() == "turn_running"), "no turn starts while the chat is held");
        drop(held);
        assert!(!extraction.is_cancelled(), "a version switch leaves the facts of the last turn to be found");
        let _turn = runs.begin(1).unwrap();
        assert!(extraction.is_cancelled(), "a new turn takes the model server's time");
    }
}
