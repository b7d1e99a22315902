//! One reply being streamed: its tokens shown as they come, saved as it grows, stored as the
//! turn's machine ended it. A reply deleted meanwhile ends the turn (`Halt::ReplyGone`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;

use super::machine::{Ending, Failure, Halt, Streamed};
use crate::app::{App, Feed, TurnEvent};
use crate::llm::{CancellationToken, Delta, LlmError, ToolCall};
use crate::store::messages::{self, ReplyStats, CONTENT_MAX_CHARS};

/// Partial replies are saved at most this often, so a crash loses at most this much text.
const SAVE_EVERY: Duration = Duration::from_millis(250);

#[derive(Clone)]
pub(super) struct Reply<'a> {
    pub(super) app: &'a Arc<App>,
    /// The server `client` asks: errors name it.
    pub(super) server: &'a crate::store::connections::ServerConnection,
    pub(super) session_id: i64,
    pub(super) id: i64,
    pub(super) cancel: &'a CancellationToken,
    pub(super) feed: &'a Feed,
}

/// What streaming a reply gave: for the machine (`outcome`) and for storing it.
pub(super) struct Stream {
    pub(super) outcome: Streamed,
    pub(super) text: String,
    pub(super) reasoning: String,
    pub(super) stats: ReplyStats,
}

/// A reply as stored, with the ending the machine chose.
pub(super) struct Ended {
    pub(super) message: messages::Message,
    pub(super) error: Option<String>,
    pub(super) error_code: Option<String>,
}

impl Reply<'_> {
    /// Streams the reply of the request sent at `sent`, saving it as it grows: text is saved
    /// SAVE_EVERY after it arrived, whether more follows or the server pauses. Not at once: the
    /// first token's save, right as the token went out, took a core from the client waiting to
    /// show it, while the model server computed the next one on the others.
    /// `shown`: its first words, shown already (no longer in the stream), and when.
    pub(super) async fn stream(
        &self,
        sent: Instant,
        opened: Result<crate::llm::ChatStream, LlmError>,
        shown: Option<(String, Instant)>,
    ) -> Result<Stream, Halt> {
        let mut text = String::new();
        let mut text_chars = 0;
        let mut reasoning = String::new();
        let mut first_token: Option<Instant> = None;
        let mut usage = crate::llm::Usage::default();
        let mut calls: Vec<ToolCall> = vec![];
        // When the text not yet saved is due to be: SAVE_EVERY after the first of it arrived.
        let mut unsaved: Option<std::pin::Pin<Box<tokio::time::Sleep>>> = None;
        let mut failure: Option<LlmError> = None;
        let mut too_long = false;
        if let Some((words, at)) = shown {
            first_token = Some(at);
            unsaved = Some(Box::pin(tokio::time::sleep_until((at + SAVE_EVERY).into())));
            text_chars = words.chars().count();
            text = words;
        }

        match opened {
            Err(e) => failure = Some(e),
            Ok(mut stream) => loop {
                let item = match unsaved.as_mut() {
                    None => stream.next().await,
                    Some(due) => tokio::select! {
                        item = stream.next() => item,
                        () = due => {
                            unsaved = None;
                            self.save(&text).await?;
                            continue;
                        }
                    },
                };
                let Some(item) = item else { break };
                match item {
                    Ok(Delta::Content(t)) => {
                        first_token.get_or_insert_with(Instant::now);
                        unsaved.get_or_insert_with(|| Box::pin(tokio::time::sleep(SAVE_EVERY)));
                        let room = CONTENT_MAX_CHARS - text_chars;
                        let piece: String = t.chars().take(room).collect();
                        text_chars += piece.chars().count();
                        too_long = piece.len() < t.len();
                        text.push_str(&piece);
                        self.feed.push(TurnEvent::Token { text: piece });
                    }
                    Ok(Delta::Reasoning(t)) => {
                        first_token.get_or_insert_with(Instant::now);
                        reasoning.push_str(&t);
                        self.feed.push(TurnEvent::Reasoning { text: t });
                    }
                    Ok(Delta::Usage(u)) => {
                        usage = u;
                        self.feed.push(TurnEvent::Usage { usage: u });
                    }
                    Ok(Delta::Finished { tool_calls, .. }) => calls = tool_calls,
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
                if too_long {
                    // Dropping the stream closes the connection: the server stops generating.
                    break;
                }
            },
        }

        let stats = stats(&usage, sent, first_token);
        let (cancelled, failure) = self.failure(failure);
        let outcome = Streamed { empty: text.is_empty(), too_long, cancelled, failure, calls };
        Ok(Stream { outcome, text, reasoning, stats })
    }

    /// Whether the reply was stopped, and how the server failed, as the machine reads it.
    fn failure(&self, failure: Option<LlmError>) -> (bool, Option<Failure>) {
        let cancelled = matches!(failure, Some(LlmError::Cancelled)) || self.cancel.is_cancelled();
        if matches!(failure, Some(LlmError::UnknownModel { .. })) {
            self.app.clients.forget_listed_model(&self.server.base_url);
        }
        let failure = failure.filter(|e| !matches!(e, LlmError::Cancelled)).map(|e| Failure {
            code: crate::error::upstream_code(e.code()),
            // With several servers, which one failed is half the message.
            message: format!("{}: {e}", self.server.name),
            overflow: matches!(e, LlmError::ContextTooLong { .. }),
        });
        (cancelled, failure)
    }

    /// Saves the text so far into the streaming reply; a reply deleted meanwhile ends the turn.
    async fn save(&self, text: &str) -> Result<(), Halt> {
        let (partial, session_id, id) = (text.to_owned(), self.session_id, self.id);
        if self.app.store.write(move |tx| messages::save_partial(tx, session_id, id, &partial)).await? {
            Ok(())
        } else {
            Err(Halt::ReplyGone)
        }
    }

    /// Stores the reply as the machine ended it.
    pub(super) async fn end(&self, streamed: Stream, ending: &Ending) -> Result<Ended, Halt> {
        let Stream { text, reasoning, stats, .. } = streamed;
        let (ending, session_id, id) = (ending.clone(), self.session_id, self.id);
        let (error, error_code) = (ending.error.clone(), ending.error_code.clone());
        let message = self
            .app
            .store
            .write(move |tx| {
                let end = messages::Ending {
                    content: &text,
                    status: ending.status,
                    error: ending.error.as_deref(),
                    error_code: ending.error_code.as_deref(),
                    reasoning: Some(&reasoning),
                    tool_calls: &ending.tool_calls,
                };
                messages::finish(tx, session_id, id, &end, &stats)
            })
            .await?
            .ok_or(Halt::ReplyGone)?;
        Ok(Ended { message, error, error_code })
    }
}

/// The reply's figures: tokens as the server counted them, time to its first token from `sent`,
/// and its speed after that.
fn stats(usage: &crate::llm::Usage, sent: Instant, first_token: Option<Instant>) -> ReplyStats {
    let finished = Instant::now();
    ReplyStats {
        prompt_tokens: usage.prompt_tokens.map(i64::from),
        completion_tokens: usage.completion_tokens.map(i64::from),
        cached_tokens: usage.cached_tokens.map(i64::from),
        ttft_ms: first_token.map(|t| (t - sent).as_millis() as i64),
        tokens_per_second: match (usage.completion_tokens, first_token) {
            (Some(n), Some(t)) if n > 1 && finished > t => Some((n - 1) as f64 / (finished - t).as_secs_f64()),
            _ => None,
        },
    }
}
