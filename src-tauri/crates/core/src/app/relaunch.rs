//! Closing this data folder to open a restored one in its place. A restore is unpacked beside
//! the data folder while Maru runs; then the window or `maru serve` closes as on quit, `main`
//! moves the current folder aside (kept, named `…-before-restore-…`), moves the restored one into
//! its place and starts Maru again on it, with the same arguments: the next launch, however it
//! is started, opens the restored data.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::watch;

use crate::error::{Code, Error, Result};

/// Where the restored folder waits, and where the current one will be kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Swap {
    pub restored: PathBuf,
    pub kept_as: PathBuf,
}

impl Swap {
    /// Moves the current folder aside and the restored one in; both on the same disk (siblings),
    /// so each move is one rename. Until the second rename the data folder is missing, never
    /// half-written; the kept folder holds everything it had.
    pub fn apply(&self, data_dir: &Path) -> std::io::Result<()> {
        std::fs::rename(data_dir, &self.kept_as)?;
        std::fs::rename(&self.restored, data_dir)
    }
}

pub struct Relaunch {
    requested: watch::Sender<Option<Swap>>,
    /// A restore is being unpacked, or was and Maru is restarting on it: one at a time, and
    /// none after one succeeded (Maru restarts on that one).
    restoring: AtomicBool,
}

impl Default for Relaunch {
    fn default() -> Self {
        Relaunch { requested: watch::channel(None).0, restoring: AtomicBool::new(false) }
    }
}

/// The one restore under way; given back when it fails (dropped), kept when Maru restarts on it.
pub struct Restoring<'a> {
    relaunch: &'a Relaunch,
}

impl Restoring<'_> {
    /// Restarts on the restored folder (see [`Relaunch::request`]); no other restore starts.
    pub fn relaunch(self, swap: Swap) {
        self.relaunch.request(swap);
        std::mem::forget(self);
    }
}

impl Drop for Restoring<'_> {
    fn drop(&mut self) {
        self.relaunch.restoring.store(false, Ordering::SeqCst);
    }
}

impl Relaunch {
    /// Claims the restore: refused with `restore_running` while another is unpacked or Maru is
    /// restarting on one. Two at once would unpack beside each other, and only one can be opened.
    pub fn restoring(&self) -> Result<Restoring<'_>> {
        if self.restoring.swap(true, Ordering::SeqCst) {
            return Err(Error::conflict(
                Code::RestoreRunning,
                "another restore is under way; Maru restarts on it when it is done, so this one was not restored",
            ));
        }
        Ok(Restoring { relaunch: self })
    }

    /// Asks the window or the server to close and Maru to start again on the restored folder.
    pub fn request(&self, swap: Swap) {
        self.requested.send_replace(Some(swap));
    }

    /// Waits for a request (at once if there was one).
    pub async fn requested(&self) -> Swap {
        let mut rx = self.requested.subscribe();
        let swap = rx.wait_for(Option::is_some).await.map(|s| s.clone());
        match swap {
            Ok(Some(swap)) => swap,
            // The sender lives in `App`, as long as the waiter: never ends.
            _ => std::future::pending().await,
        }
    }

    /// The request made, if any (read once Maru has closed).
    pub fn taken(&self) -> Option<Swap> {
        self.requested.borrow().clone()
    }
}
