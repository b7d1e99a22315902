//! A chat's turns: send, regenerate, edit-and-resend, stop, the stream of a turn under way, and
//! compacting its history.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tracing::{instrument, Level};

use crate::app::{App, TurnStream};
use crate::chat::{self, TurnKind};
use crate::error::{Code, Error, Result};
use crate::store::messages;

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTurn {
    pub content: String,
    /// Images attached to the chat or its project (attachment ids) to send with the message, for
    /// models that see images. Sending only; an edit keeps the message's images.
    #[serde(default)]
    pub images: Vec<i64>,
    /// Skills the user loads with this message (`/` in the composer), by name: each is stored as
    /// a `load_skill` call and its result after the message, so the model has the procedure
    /// before it answers. A name no skill of the chat's has is refused (`unknown_skill`).
    #[serde(default)]
    pub skills: Vec<String>,
}

// No span around these two, unlike the other calls: creating one took 24 µs, a twentieth of
// Maru's share of a turn's time to first token. The refusal is logged all the same.
pub async fn send_message(app: Arc<App>, session_id: i64, turn: NewTurn) -> Result<TurnStream> {
    let started = chat::start(app, session_id, TurnKind::Send { content: turn.content, images: turn.images, skills: turn.skills }).await;
    started.inspect_err(|e| tracing::warn!(session_id, "send_message: {e}"))
}

pub async fn regenerate(app: Arc<App>, session_id: i64) -> Result<TurnStream> {
    chat::start(app, session_id, TurnKind::Regenerate).await.inspect_err(|e| tracing::warn!(session_id, "regenerate: {e}"))
}

/// Answers an edited copy of a user message; the original and what followed it stay as a version.
#[instrument(skip(app, turn), err(level = Level::WARN))]
pub async fn resend(app: Arc<App>, message_id: i64, turn: NewTurn) -> Result<TurnStream> {
    let session_id = app.store.read(move |c| Ok(messages::get(c, message_id)?.session_id)).await?;
    chat::start(app, session_id, TurnKind::Resend { message_id, content: turn.content }).await
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Stopped {
    /// False when no reply was being written.
    pub stopped: bool,
}

#[instrument(skip(app), err(level = Level::WARN))]
pub async fn stop(app: &App, session_id: i64) -> Result<Stopped> {
    app.store.read(move |c| crate::store::sessions::get(c, session_id)).await?;
    Ok(Stopped { stopped: app.runs.stop(session_id) })
}

/// The reply being written in a chat, from its first event, then live: for a second tab or a
/// reloaded window. `no_turn_running` when nothing is being written.
pub async fn turn_events(app: &App, session_id: i64) -> Result<TurnStream> {
    app.store.read(move |c| crate::store::sessions::get(c, session_id)).await?;
    app.runs.attach(session_id).ok_or_else(|| Error::conflict(Code::NoTurnRunning, "no reply is being written in this chat"))
}

// ---- context inspector

/// Summarises everything but the last turn now (the inspector's Compact now).
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn compact(app: Arc<App>, session_id: i64) -> Result<chat::compact::Compacted> {
    chat::compact::now(&app, session_id).await
}

/// Undoes compaction (the inspector's Send the whole chat): the chat's summaries are deleted, so
/// its next request sends every message again, until the chat no longer fits the server's window
/// and is compacted again. `deleted` is false when it had none. Refused with `turn_running` while
/// a reply is being written in the chat.
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn uncompact(app: Arc<App>, session_id: i64) -> Result<super::Deleted> {
    let _slot = app.runs.hold(session_id)?;
    let forgotten = app
        .store
        .write(move |tx| {
            crate::store::sessions::get(tx, session_id)?;
            crate::store::summaries::forget_from(tx, session_id, 0)
        })
        .await?;
    Ok(super::Deleted { id: session_id, deleted: forgotten > 0 })
}
