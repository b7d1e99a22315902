//! Requests sent ahead. When nothing was written since a chat's last turn answered, its next
//! request is known before the turn reads anything: a regenerate sends that turn's first
//! request again, and a new message sends that turn's conversation with the message after it.
//! Such a request goes to the model server as soon as the turn is asked for; the turn then does
//! its checks and writes while the server reads the prompt, and builds its request as always.
//! Only a request byte for byte the same as the turn's own is kept. Any other one (something
//! the store does not hold changed: a tool server's tools, the date) is dropped, which closes
//! its connection, and the turn's own request goes out instead.
//!
//! Why: on a small machine, a turn's reads and writes before its request were about half a
//! millisecond of the time to its first token. Sent ahead, they overlap the server's work: a
//! fifth of Maru's share less where the server leaves Maru's cores alone (a GPU, another
//! machine); about even where a CPU-only server computes on every core Maru has.

use std::time::Duration;

use chrono::{DateTime, Local};
use tokio::task::JoinHandle;

use super::turn::TurnKind;
use crate::app::App;
use crate::llm::{CancellationToken, ChatMessage, ChatStream, LlmError};
use crate::prompt::render::estimate_tokens;
use crate::store::messages::CONTENT_MAX_CHARS;

/// How long a turn waits for its request sent ahead to go out before it goes on with its own
/// work: a connection that takes longer is not one this saves time on.
const SENDING_WITHIN: Duration = Duration::from_millis(5);

/// A request sent ahead, its answer still to come. Dropped unused, it closes its connection.
pub(crate) struct SentAhead {
    body: Vec<u8>,
    answer: JoinHandle<Result<ChatStream, LlmError>>,
}

impl SentAhead {
    /// Whether `body` is the request sent.
    pub(crate) fn is(&self, body: &[u8]) -> bool {
        self.body == body
    }

    /// The server's answer.
    pub(crate) async fn answer(mut self) -> Result<ChatStream, LlmError> {
        match (&mut self.answer).await {
            Ok(answer) => answer,
            Err(e) => Err(LlmError::disconnected(format!("the request sent ahead failed: {e}"))),
        }
    }
}

impl Drop for SentAhead {
    fn drop(&mut self) {
        self.answer.abort();
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
    if app.store.version() != Some(last.version) {
        return None;
    }
    let model = last.chat.model.clone();
    let body = match kind {
        TurnKind::Regenerate => last.first,
        // Only a message the turn will take (it refuses empty and overlong ones) and send as it
        // is: one that leaves the chat too long is sent after summarising older turns. Half the
        // room: the server's tokenizer may count the chat anew meanwhile.
        TurnKind::Send { content, images } if images.is_empty() && !content.trim().is_empty() && content.len() <= CONTENT_MAX_CHARS => {
            let note = super::history::runtime_note(&app.templates, now).ok()?;
            if estimate_tokens(content) + estimate_tokens(&note) + 8 > last.room / 2 {
                return None;
            }
            let mut request = last.chat;
            request.messages.push(ChatMessage::user(format!("{content}\n\n{note}")));
            request.tool_choice = None;
            request.body()
        }
        _ => return None,
    };
    let client = last.client;
    client.open_connection();
    let (sent, gone) = tokio::sync::oneshot::channel();
    let (cancel, sending) = (cancel.clone(), body.clone());
    let answer = tokio::spawn(async move { client.stream_chat_body(sending, &model, cancel, Some(sent)).await });
    // Gone out, or failed (its answer then says why): the turn goes on.
    let _ = tokio::time::timeout(SENDING_WITHIN, gone).await;
    Some(SentAhead { body, answer })
}
