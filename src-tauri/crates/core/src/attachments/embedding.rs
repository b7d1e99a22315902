//! Embedding the files' passages in the background, with the model the user chose for search by
//! meaning (Settings → Servers → Search by meaning): a batch at a time, each written in its own
//! short transaction.
//!
//! - What is left is read from the tables (passages with no vector), so a restart resumes.
//! - A turn comes first: no batch starts while a reply is being written, and a batch under way
//!   when one starts is dropped (its connection closed, so the server stops on it too) and sent
//!   again after. The job never holds the writer or anything a turn waits for.
//! - Another model chosen: the other model's vectors go, and everything is embedded again. The
//!   same name answering with vectors of another width (the server swapped its model): likewise.
//! - A server that fails is asked again later, less and less often; search meanwhile answers by
//!   the words alone and says why.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use crate::error::Result;
use crate::llm::{self, LlmError};
use crate::store::connections;
use crate::store::passage_vectors::{self as table, ToEmbed, VectorModel};
use crate::store::settings::{ModelChoice, Settings};
use crate::store::Store;
use maru_retrieval::vectors::{self, Quantized};

/// Passages per request: about 16 KB of text, a few seconds on a CPU, so that a turn that
/// starts meanwhile loses little when the batch is dropped.
const BATCH: usize = 16;
/// How long the job rests after failures in a row, longer each time up to the last.
const BACKOFF: [Duration; 4] = [Duration::from_secs(5), Duration::from_secs(30), Duration::from_secs(120), Duration::from_secs(600)];
/// How often a job waiting for a turn to end looks again.
const TURN_POLL: Duration = Duration::from_millis(100);
/// How long the job sleeps with nothing to do, unless woken (a file indexed, a setting changed).
const IDLE: Duration = Duration::from_secs(60);

/// The job, its wake-up call and the last thing it could not do.
#[derive(Default)]
pub struct Embedding {
    wake: Notify,
    /// The model's vectors no longer fit the model (a search found another width): drop them.
    stale: AtomicBool,
    failure: Mutex<Option<String>>,
    /// Maru is closing: the job lets go of the app at once, even in the middle of a batch.
    closing: tokio_util::sync::CancellationToken,
}

/// What a step of the job found.
enum Step {
    /// A batch is done: go on.
    More,
    /// Nothing to do (no model chosen, every passage embedded).
    Idle,
    /// A reply is being written: wait for it.
    TurnRunning,
    /// The server failed: rest, then try again.
    Failed,
}

impl Embedding {
    /// Starts the job. `handles` gives what a step works with, or `None` once the app is gone,
    /// which ends the job.
    pub fn start(self: &Arc<Self>, handles: impl Fn() -> Option<Handles> + Send + 'static) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let me = self.clone();
        runtime.spawn(async move { me.run(handles).await });
    }

    /// There may be something new to embed (a file indexed, the model changed).
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// Stops the job (Maru is closing); a batch under way is dropped, to be done next time.
    pub fn stop(&self) {
        self.closing.cancel();
    }

    /// The stored vectors no longer fit the chosen model: they are made again.
    pub fn mark_stale(&self) {
        self.stale.store(true, Ordering::SeqCst);
        self.wake();
    }

    /// Why the last batch failed, while it has not succeeded since.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set_failure(&self, failure: Option<String>) {
        *self.failure.lock().unwrap_or_else(|p| p.into_inner()) = failure;
    }

    async fn run(&self, handles: impl Fn() -> Option<Handles>) {
        let mut job = Job { after: 0, model: None, failures: 0 };
        loop {
            // What a step needs, not the app itself: a step waiting on a slow server must not
            // keep a closed app (and its data folder's lock) alive.
            let Some(handles) = handles() else {
                return;
            };
            let step = tokio::select! {
                biased;
                _ = self.closing.cancelled() => return,
                step = job.step(&handles, self) => step,
            };
            let rest = match step {
                Step::More => {
                    job.failures = 0;
                    // Let others at the writer and the cores between two batches.
                    tokio::task::yield_now().await;
                    continue;
                }
                Step::TurnRunning => TURN_POLL,
                Step::Idle => IDLE,
                Step::Failed => {
                    job.failures += 1;
                    BACKOFF[(job.failures - 1).min(BACKOFF.len() - 1)]
                }
            };
            tokio::select! {
                _ = self.closing.cancelled() => return,
                _ = tokio::time::timeout(rest, self.wake.notified()) => {}
            }
        }
    }
}

/// What the job works with, taken from the app for one step: the store, the model servers'
/// clients, and whether a reply is being written (the app's running turns).
pub struct Handles {
    pub store: Store,
    pub clients: Arc<llm::Clients>,
    pub turn_running: Box<dyn Fn() -> bool + Send + Sync>,
}

/// Where the job is: the last passage done in this pass, with which model.
struct Job {
    after: i64,
    model: Option<VectorModel>,
    failures: usize,
}

impl Job {
    async fn step(&mut self, app: &Handles, me: &Embedding) -> Step {
        match self.try_step(app, me).await {
            Ok(step) => step,
            Err(e) => {
                tracing::warn!("embedding passages failed: {e}");
                me.set_failure(Some(e.to_string()));
                Step::Failed
            }
        }
    }

    async fn try_step(&mut self, app: &Handles, me: &Embedding) -> Result<Step> {
        if (app.turn_running)() {
            return Ok(Step::TurnRunning);
        }
        let settings = app.store.read(crate::store::settings::load).await?;
        let Some(choice) = settings.embeddings.clone() else {
            me.set_failure(None);
            return Ok(Step::Idle);
        };
        let model = VectorModel { connection_id: choice.connection_id, model: choice.model.clone() };
        let stale = me.stale.swap(false, Ordering::SeqCst);
        if stale || self.model.as_ref() != Some(&model) {
            let keep = model.clone();
            let dropped = app.store.write(move |tx| if stale { table::clear(tx) } else { table::keep_only(tx, &keep) }).await?;
            if dropped > 0 {
                tracing::info!(dropped, model = %model.model, "vectors of another model dropped: passages are embedded again");
            }
            (self.model, self.after) = (Some(model.clone()), 0);
        }
        let after = self.after;
        let batch = app.store.read(move |c| table::missing(c, after, BATCH)).await?;
        let Some(last) = batch.last().map(|p| p.passage_id) else {
            me.set_failure(None);
            return Ok(Step::Idle);
        };
        let client = client_for(&app.store, &app.clients, &settings, &choice).await?;
        let embedded = tokio::select! {
            biased;
            _ = turn_started(app) => return Ok(Step::TurnRunning),
            embedded = embed_batch(&client, &choice.model, &batch) => embedded,
        };
        let vectors = match embedded {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(model = %choice.model, "embedding passages failed: {e}");
                me.set_failure(Some(e.to_string()));
                return Ok(Step::Failed);
            }
        };
        // The same name answering in another width: the server's model was swapped.
        let width = vectors.iter().flatten().map(|q| q.values.len()).next();
        let stored = {
            let m = model.clone();
            app.store.read(move |c| table::width(c, &m)).await?
        };
        if let (Some(width), Some(stored)) = (width, stored) {
            if width != stored {
                tracing::info!(was = stored, now = width, "the embeddings model answers in another width: embedding every passage again");
                app.store.write(|tx| table::clear(tx)).await?;
                self.after = 0;
                return Ok(Step::More);
            }
        }
        let rows: Vec<(i64, Option<Quantized>)> = batch.iter().map(|p| p.passage_id).zip(vectors).collect();
        app.store.write(move |tx| table::put(tx, &model, &rows)).await?;
        self.after = last;
        me.set_failure(None);
        Ok(Step::More)
    }
}

/// The client for a chosen model's server (an error when it is gone or turned off).
pub(crate) async fn client_for(store: &Store, clients: &llm::Clients, settings: &Settings, choice: &ModelChoice) -> Result<llm::Client> {
    let id = choice.connection_id;
    let server = store.read(move |c| connections::get(c, id)).await?;
    if !server.enabled {
        return Err(crate::error::Error::conflict(
            crate::error::Code::ConnectionOff,
            format!("the server \"{}\" is turned off; turn it on in settings", server.name),
        )
        .with("name", &server.name));
    }
    let config =
        llm::ClientConfig::new(&server.base_url, server.api_key.as_deref(), settings.first_byte_timeout_secs, settings.idle_timeout_secs);
    Ok(clients.get(server.id, &config))
}

/// Vectors for a batch. A server that fails on the batch (one passage too long for it) is
/// asked passage by passage; a passage it refuses alone, while others pass or because it is too
/// long, is marked (`None`) and never asked again. A server that refuses every passage (the
/// model embeds nothing) fails the batch instead, and is asked again later.
async fn embed_batch(client: &llm::Client, model: &str, batch: &[ToEmbed]) -> std::result::Result<Vec<Option<Quantized>>, LlmError> {
    let texts: Vec<String> = batch.iter().map(|p| p.text.clone()).collect();
    match client.embed(model, &texts).await {
        Ok(v) => return Ok(v.iter().map(|v| vectors::quantize(v)).collect()),
        Err(e) if !about_the_input(&e) || batch.len() == 1 && !matches!(e, LlmError::ContextTooLong { .. }) => return Err(e),
        Err(_) => {}
    }
    let (mut out, mut refusal) = (Vec::with_capacity(batch.len()), None);
    for text in texts {
        match client.embed(model, std::slice::from_ref(&text)).await {
            Ok(v) => out.push(v.first().and_then(|v| vectors::quantize(v))),
            Err(e) if about_the_input(&e) => {
                out.push(None);
                refusal.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    match refusal {
        Some(e) if out.iter().all(Option::is_none) && !matches!(e, LlmError::ContextTooLong { .. }) => Err(e),
        Some(e) => {
            tracing::info!("passages the embeddings server refuses are left to the word index: {e}");
            Ok(out)
        }
        None => Ok(out),
    }
}

/// The server failed on what was sent (too long, malformed, a crash on one input), not on the
/// request as such (unreachable, a wrong key, no such model).
fn about_the_input(e: &LlmError) -> bool {
    matches!(e, LlmError::Rejected { .. } | LlmError::ContextTooLong { .. } | LlmError::ServerError { .. })
}

/// Resolves once a turn is running.
async fn turn_started(app: &Handles) {
    while !(app.turn_running)() {
        tokio::time::sleep(TURN_POLL).await;
    }
}
