//! Requests sent ahead. When nothing was written since a chat's last turn answered, its next
//! request is known before the turn reads anything: a regenerate sends that turn's first
//! request again, and a new message sends that turn's conversation with the message after it.
//! Such a request goes to the model server as soon as the turn is asked for; the turn then does
//! its checks and writes while the server reads the prompt, and builds its request as always.
//! Only a request byte for byte the same as the turn's own is kept. Any other one (something
//! the store does not hold changed: a tool server's tools, the date) is dropped, which closes
//! its connection, and the turn's own request goes out instead.
//!
//! When the request's other inputs are as the last turn left them, the turn goes further: it
//! shows the answer's first words before its transaction (see [`SentAhead::show_first`]).
//!
//! Why: on a small machine, a turn's reads and writes before its request were about half a
//! millisecond of the time to its first token. Sent ahead, they overlap the server's work: a
//! fifth of Maru's share less where the server leaves Maru's cores alone (a GPU, another
//! machine). Where a CPU-only server computes on every core Maru has, any work of Maru's before
//! the first words reach the client takes a core from it: there only a turn whose work waits
//! until then gains (Maru's share against llama.cpp on 2 cores: a regenerate's 1.11 ms → 0.53 ms,
//! a new message's 1.22 ms → 0.59 ms).

use std::time::{Duration, Instant};

use chrono::{DateTime, Local};
use futures_util::StreamExt;
use tokio::task::JoinHandle;

use super::machine::{self, Ahead, TurnKind};
use crate::app::{App, Feed, TurnEvent};
use crate::llm::{CancellationToken, ChatMessage, ChatStream, Delta, LlmError};
use crate::prompt::render::estimate_tokens;
use crate::store::messages::CONTENT_MAX_CHARS;

/// How long a turn waits for its request sent ahead to go out before it goes on with its own
/// work: a connection that takes longer is not one this saves time on.
const SENDING_WITHIN: Duration = Duration::from_millis(5);

/// How long a turn waits for the first words of its request sent ahead before it does its
/// transaction anyway (see [`SentAhead::show_first`]).
const FIRST_WORDS_WITHIN: Duration = Duration::from_millis(50);

/// How long the turn leaves a client on this machine to read the first words before its
/// transaction: begun at once, the transaction took the core the client needed while the model
/// server computed the next token on the other (against llama.cpp on 2 cores, the client saw
/// the first words 0.6 ms later).
const READ_WITHIN: Duration = Duration::from_millis(2);

/// A request sent ahead, its answer still to come. Dropped unused, it closes its connection.
pub(crate) struct SentAhead {
    body: Vec<u8>,
    /// When it went out: the reply's time to first token counts from here.
    pub(crate) at: Instant,
    answer: Answer,
    /// Whether its first words may be shown before the turn's transaction (see [`SentAhead::show_first`]).
    pub(crate) shows_first: bool,
    /// The first words shown, no longer in the answer, and when.
    shown: Option<(String, Instant)>,
}

enum Answer {
    Coming(JoinHandle<Result<ChatStream, LlmError>>),
    Opened(Result<ChatStream, LlmError>),
}

impl SentAhead {
    /// Whether `body` is the request sent.
    pub(crate) fn is(&self, body: &[u8]) -> bool {
        self.body == body
    }

    /// Waits (for at most [`FIRST_WORDS_WITHIN`]) for the answer's first words and shows them.
    ///
    /// Why before the turn's transaction: on a machine where the model server computes on every
    /// core, the transaction's reads and writes while the server reads the prompt delayed its
    /// first token by more than their own time. Done after the first words, they overlap the
    /// next token instead. Only where the request's inputs outside the store are as the last
    /// turn left them (`shows_first`: the same day, no tool servers), so that the turn's own
    /// request is this one; the wait is short, so that the new version is stored soon whatever
    /// the server does. A transaction that fails after the words were shown is told in the
    /// turn's events (`nothing_stored`), and stores nothing: a new message is not in the chat,
    /// and the window gives it back to be sent again. A crash of Maru before the transaction
    /// commits loses a new message: that window is now the time to the first words and 2 ms
    /// (at most 52 ms), where it was the transaction's half millisecond.
    pub(crate) async fn show_first(&mut self, feed: &Feed) {
        let deadline = tokio::time::Instant::now() + FIRST_WORDS_WITHIN;
        if let Answer::Coming(coming) = &mut self.answer {
            let Ok(opened) = tokio::time::timeout_at(deadline, coming).await else { return };
            self.answer = Answer::Opened(opened.unwrap_or_else(|e| Err(failed(e))));
        }
        let Answer::Opened(Ok(stream)) = &mut self.answer else { return };
        let Ok(first) = tokio::time::timeout_at(deadline, stream.next()).await else { return };
        match first {
            // Words the turn stores whole (see `Reply::stream`).
            Some(Ok(Delta::Content(text))) if text.chars().count() <= CONTENT_MAX_CHARS => {
                feed.push(TurnEvent::Token { text: text.clone() });
                self.shown = Some((text, Instant::now()));
                // The words go out to the listeners (on this thread), and they read them, before
                // the turn's work takes a core.
                tokio::task::yield_now().await;
                tokio::time::sleep(READ_WITHIN).await;
            }
            Some(other) => stream.prepend(other),
            None => {}
        }
    }

    /// The server's answer, and the first words of it already shown (and when).
    pub(crate) async fn answer(mut self) -> (Result<ChatStream, LlmError>, Option<(String, Instant)>) {
        let answer = std::mem::replace(&mut self.answer, Answer::Opened(Ok(ChatStream::ended())));
        let opened = match answer {
            Answer::Opened(opened) => opened,
            Answer::Coming(coming) => coming.await.unwrap_or_else(|e| Err(failed(e))),
        };
        (opened, self.shown.take())
    }
}

fn failed(e: tokio::task::JoinError) -> LlmError {
    LlmError::disconnected(format!("the request sent ahead failed: {e}"))
}

impl Drop for SentAhead {
    fn drop(&mut self) {
        if let Answer::Coming(coming) = &self.answer {
            coming.abort();
        }
    }
}

/// Sends `kind`'s request ahead when `session_id`'s last turn is the last thing written (see
/// the module docs); `now` is the time the turn stamps its message with.
pub(crate) async fn send(
    app: &App,
    session_id: i64,
    kind: &TurnKind,
    now: DateTime<Local>,
    cancel: &CancellationToken,
) -> Option<SentAhead> {
    let last = app.ahead.take(session_id)?;
    let model = last.chat.model.clone();
    let unchanged = app.store.version() == Some(last.version);
    let (note, added) = match kind {
        TurnKind::Send { content, .. } => {
            let note = super::history::runtime_note(&app.templates, now).ok()?;
            let added = estimate_tokens(content) + estimate_tokens(&note);
            (Some((content, note)), added)
        }
        _ => (None, 0),
    };
    let body = match (kind.ahead(unchanged, added, last.room), note) {
        (Ahead::Again, _) => last.first,
        (Ahead::WithMessage, Some((content, note))) => {
            let mut request = last.chat;
            request.messages.push(ChatMessage::user(format!("{content}\n\n{note}")));
            request.tool_choice = None;
            request.body()
        }
        _ => return None,
    };
    let shows_first = machine::shows_first(last.day, now.date_naive(), last.tool_servers);
    let client = last.client;
    client.open_connection();
    let (sent, gone) = tokio::sync::oneshot::channel();
    let (cancel, sending) = (cancel.clone(), body.clone());
    let at = Instant::now();
    let answer = tokio::spawn(async move { client.stream_chat_body(sending, &model, cancel, Some(sent)).await });
    // Gone out, or failed (its answer then says why): the turn goes on.
    let _ = tokio::time::timeout(SENDING_WITHIN, gone).await;
    Some(SentAhead { body, at, answer: Answer::Coming(answer), shows_first, shown: None })
}
