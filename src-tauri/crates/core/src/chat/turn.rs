//! Runs one turn: the driver of `machine`, which decides; this does the I/O. [`start`] does the
//! checks and the writes that must happen before anything is streamed (so errors come back as
//! plain API errors), then streams in the same task and hands back a listener on its events.
//!
//! The turn never waits for a listener (see `app::events`) and writes only to the reply it
//! created: every save names the reply and its session and stops the turn when the reply is
//! gone (its chat was deleted), so nothing it writes can land in another chat.

use std::sync::Arc;

use super::begin::{begin, Committing};
use super::machine::Halt;
use super::round::Round;
use super::rounds::{Answered, Rounds};
use crate::app::{App, Feed, RunGuard, TurnEvent, TurnStream};
use crate::error::{Error, Result};
use crate::store::messages::{self, NewMessage, ReplyStats, Role, Status};
use crate::store::settings::Settings;
use crate::store::{sessions, turns};

pub use super::machine::TurnKind;
pub use super::machine::MAX_TOOL_ROUNDS;

/// Starts a turn; the stream yields its events and ends when the turn has ended.
///
/// The turn runs in its own task from the first check on: a caller that goes away (a client
/// that closes its socket right after sending) cannot cut it between storing the question and
/// streaming the reply. Either it is refused before anything is stored, or it runs.
///
/// The caller is answered once the turn's first transaction has committed. When that
/// transaction opens the first round, it commits once the request has gone out (the commit is
/// off the time to first token), and nothing the server answers is read before it has. A turn
/// whose request went out ahead may answer at once and show the first words before its
/// transaction (`ahead`): what fails after that is told in its events.
pub async fn start(app: Arc<App>, session_id: i64, kind: TurnKind) -> Result<TurnStream> {
    let (answer, started) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let mut answer = Some(answer);
        match begin(app.clone(), session_id, kind, &mut answer).await {
            Ok((guard, settings, first, commit, ahead)) => {
                let committing = match commit {
                    Some(reply_id) => Some(Committing::start(reply_id, &guard.feed, answer, ahead)),
                    None => {
                        // No one listening is fine: the turn writes into the store either way.
                        if let Some(answer) = answer {
                            let _ = answer.send(Ok(guard.feed.subscribe()));
                        }
                        None
                    }
                };
                run(app, guard, session_id, settings, first, committing).await;
            }
            Err(e) => {
                // Taken: `begin` told it in the turn's events.
                if let Some(answer) = answer {
                    let _ = answer.send(Err(e));
                }
            }
        }
    });
    started.await.map_err(|_| Error::Internal(anyhow::anyhow!("the turn's task ended before it started")))?
}

async fn run(
    app: Arc<App>,
    guard: RunGuard,
    session_id: i64,
    settings: Settings,
    first: Option<Round>,
    mut committing: Option<Committing>,
) {
    let RunGuard { ref cancel, ref feed, .. } = guard;
    let mut outcome = Rounds::new(&app, session_id, &settings, cancel, feed).run(first, &mut committing).await;
    // Failed before its first request went out: the caller still waits for the commit, which
    // stored the reply that is to tell why.
    if let Some(committing) = committing {
        outcome = match committing.settle().await {
            Ok(id) => outcome.map_err(|halt| halt.in_reply(Some(id))),
            Err(refused) => Err(refused),
        };
    }
    let mut answered = None;
    match outcome {
        Ok(Some(Answered { chat, recount, first, room, day, tool_servers })) if !cancel.is_cancelled() => {
            answered = first.map(|first| (first, chat.clone(), room, day, tool_servers));
            super::extract::after_turn(
                app.clone(),
                session_id,
                chat,
                settings.memory_mode != crate::store::settings::MemoryMode::Off,
                recount,
            )
        }
        Ok(_) => {}
        Err(Halt::Refused) => return,
        Err(Halt::ReplyGone) => {
            tracing::info!(session_id, "the reply was deleted while streaming; the turn ends without writing");
            feed.push(TurnEvent::Error {
                code: crate::error::Code::ReplyDeleted.as_str().into(),
                message: "this reply was deleted while it was being written".into(),
                message_id: None,
                nothing_stored: false,
            });
        }
        Err(Halt::Failed(e, reply)) => store_failure(&app, &settings, feed, session_id, e, reply).await,
    }
    // The next turn most likely asks the same server: a connection kept ready spares it the
    // connect (see `llm::warm`).
    let client = app.llm_client(&settings);
    client.keep_ready();
    match app.store.write_noting_version(move |tx| turns::end(tx, session_id)).await {
        Ok(((), version)) => {
            // The store as this turn left it: the next turn's request is known while it stays so.
            if let Some((first, chat, room, day, tool_servers)) = answered {
                app.ahead.answered(crate::app::ahead::Last { session_id, version, client, first, chat, room, day, tool_servers });
            }
        }
        Err(e) => tracing::warn!(session_id, "cannot record that the turn ended: {e}"),
    }
    drop(guard);
}

/// Failed before or between replies (server down, no model, an image that cannot be read…): the
/// chat shows why, as a failed reply under the user's message, which stays. That is the round's
/// own reply when it had stored one.
async fn store_failure(app: &App, settings: &Settings, feed: &Feed, session_id: i64, e: Error, reply: Option<i64>) {
    tracing::warn!(session_id, code = %e.code(), "turn failed: {e}");
    let text = e.body().message;
    let code = e.code().into_owned();
    // The server that failed: the failed reply says which, as its error does.
    let server = settings.server.name.clone();
    let stored = app
        .store
        .write(move |tx| {
            let (id, kept) = match reply {
                // Whatever it holds already stays (text saved before the store failed).
                Some(id) => match messages::get(tx, id) {
                    Ok(m) => (id, m.content),
                    Err(_) => return Ok(None),
                },
                None => {
                    sessions::get(tx, session_id)?;
                    let new = NewMessage {
                        session_id,
                        role: Role::Assistant,
                        status: Status::Streaming,
                        server: Some(&server),
                        ..Default::default()
                    };
                    (messages::insert_id(tx, &new)?, String::new())
                }
            };
            let ending = messages::Ending {
                content: &kept,
                status: Status::Error,
                error: Some(&text),
                error_code: Some(&code),
                ..Default::default()
            };
            messages::finish(tx, session_id, id, &ending, &ReplyStats::default())
        })
        .await;
    let message_id = stored.ok().flatten().map(|m| m.id);
    feed.push(TurnEvent::Error { code: e.code().into_owned(), message: e.body().message, message_id, nothing_stored: false });
}
