//! The imports under way (and done, until Maru closes), each readable at any time for its
//! progress. An import stores its chats a few at a time, each batch one transaction: a chat
//! being written meanwhile waits for one batch at most, never for the whole export. If Maru
//! closes halfway, the chats stored so far stay, and importing the same export again adds the
//! rest (a chat remembers its source).

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::{Export, ExportSource};
use crate::error::{Error, ErrorBody, Result};
use crate::store::imports::{self, ForeignChat};
use crate::store::Store;

/// Chats stored in one transaction, and the most messages one batch holds before it is stored.
const BATCH_CHATS: usize = 20;
const BATCH_MESSAGES: usize = 4000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    Running,
    Done,
    Failed,
}

/// An import of another app's export, and how far it is.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ImportJob {
    pub id: i64,
    pub source: ExportSource,
    pub state: JobState,
    /// The project the chats go to.
    pub project_id: i64,
    /// Conversations in the export.
    pub conversations: usize,
    /// Conversations read so far.
    pub done: usize,
    /// New chats stored.
    pub imported: usize,
    /// Conversations imported before (from the same export or an earlier one): left as they are.
    pub already_here: usize,
    /// Messages left out: without text (system and tool messages, images alone), or longer than a
    /// message may be.
    pub skipped_messages: usize,
    /// Why it stopped, when it failed (the chats stored before stay).
    pub error: Option<ErrorBody>,
}

#[derive(Default)]
pub struct Jobs {
    next: AtomicI64,
    jobs: Mutex<HashMap<i64, Arc<Mutex<ImportJob>>>>,
}

impl Jobs {
    pub fn get(&self, id: i64) -> Result<ImportJob> {
        let jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        let job = jobs.get(&id).ok_or(Error::NotFound { what: "import", id })?;
        let job = job.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Ok(job)
    }

    /// Starts importing `export` into `project_id` on a thread of its own; `keep` (the upload's
    /// file) is dropped when it ends. Returns the job as it starts.
    pub fn start<K: Send + 'static>(&self, store: Store, export: Export, project_id: i64, keep: K) -> Result<ImportJob> {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let job = ImportJob {
            id,
            source: export.source,
            state: JobState::Running,
            project_id,
            conversations: export.conversations,
            done: 0,
            imported: 0,
            already_here: 0,
            skipped_messages: 0,
            error: None,
        };
        let shared = Arc::new(Mutex::new(job.clone()));
        self.jobs.lock().unwrap_or_else(|e| e.into_inner()).insert(id, shared.clone());
        std::thread::Builder::new()
            .name("maru-import".into())
            .spawn(move || {
                let ran = run(&store, &export, project_id, &shared);
                let mut job = shared.lock().unwrap_or_else(|e| e.into_inner());
                match ran {
                    Ok(()) => job.state = JobState::Done,
                    Err(e) => {
                        tracing::warn!(job = id, "an import stopped: {e}");
                        job.state = JobState::Failed;
                        job.error = Some(e.body());
                    }
                }
                tracing::info!(job = id, imported = job.imported, already_here = job.already_here, "import ended");
                drop(keep);
            })
            .map_err(anyhow::Error::from)?;
        Ok(job)
    }
}

fn run(store: &Store, export: &Export, project_id: i64, job: &Mutex<ImportJob>) -> Result<()> {
    // Each chat with how many of its messages were left out.
    let mut batch: Vec<(ForeignChat, usize)> = vec![];
    let mut messages = 0;
    let flush = |batch: &mut Vec<(ForeignChat, usize)>| -> Result<()> {
        let stored = store.with(|tx| batch.iter().map(|(chat, _)| imports::insert(tx, project_id, chat)).collect::<Result<Vec<_>>>())?;
        let mut job = job.lock().unwrap_or_else(|e| e.into_inner());
        job.done += batch.len();
        for ((_, skipped), stored) in batch.iter().zip(&stored) {
            match stored {
                Some(_) => {
                    job.imported += 1;
                    job.skipped_messages += skipped;
                }
                None => job.already_here += 1,
            }
        }
        batch.clear();
        Ok(())
    };
    export.file.each(|_, conversation| {
        let (chat, skipped) = export.source.chat(&conversation);
        messages += chat.messages.len();
        batch.push((chat, skipped));
        if batch.len() >= BATCH_CHATS || messages >= BATCH_MESSAGES {
            messages = 0;
            flush(&mut batch)?;
        }
        Ok(())
    })?;
    flush(&mut batch)
}
