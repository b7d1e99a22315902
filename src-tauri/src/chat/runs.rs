//! Turns in flight, one per session at most, so that stop can find and cancel them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use crate::error::{Error, Result};

#[derive(Default, Clone)]
pub struct Runs {
    active: Arc<Mutex<HashMap<i64, CancellationToken>>>,
}

/// Holds a session's slot while its turn runs; dropping it frees the slot.
pub struct RunGuard {
    runs: Runs,
    session_id: i64,
    pub cancel: CancellationToken,
}

impl Runs {
    pub fn begin(&self, session_id: i64) -> Result<RunGuard> {
        let mut active = self.active.lock().unwrap_or_else(|p| p.into_inner());
        if active.contains_key(&session_id) {
            return Err(Error::conflict("turn_running", "a reply is still being written in this chat; stop it or wait for it to finish"));
        }
        let cancel = CancellationToken::new();
        active.insert(session_id, cancel.clone());
        Ok(RunGuard { runs: self.clone(), session_id, cancel })
    }

    /// Stops the session's turn; false when none was running.
    pub fn stop(&self, session_id: i64) -> bool {
        let active = self.active.lock().unwrap_or_else(|p| p.into_inner());
        active.get(&session_id).map(|c| c.cancel()).is_some()
    }

    /// Stops every turn (the app is closing) and waits up to `grace` for them to store their text.
    pub async fn stop_all(&self, grace: std::time::Duration) {
        for cancel in self.active.lock().unwrap_or_else(|p| p.into_inner()).values() {
            cancel.cancel();
        }
        let deadline = tokio::time::Instant::now() + grace;
        while !self.active.lock().unwrap_or_else(|p| p.into_inner()).is_empty() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        self.runs.active.lock().unwrap_or_else(|p| p.into_inner()).remove(&self.session_id);
    }
}
