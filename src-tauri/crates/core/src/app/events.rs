//! What a turn tells the UI as it goes: the same events over Server-Sent Events and Tauri channels.
//!
//! A turn never waits for a listener. It appends its events to a [`Feed`] and moves on; each
//! listener ([`TurnStream`]) reads from its own position at its own pace. A listener that falls
//! behind (a socket that stops reading, a busy window) gets the tokens it missed joined into one
//! event when it reads again, so nothing is lost and the turn, its saves and stop never block.
//! A listener that attaches late (a second tab, a reload) replays the turn from its start.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use crate::llm::Usage;
use crate::store::messages::Message;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TurnEvent {
    Token {
        text: String,
    },
    Reasoning {
        text: String,
    },
    ToolCall {
        id: String,
        name: String,
        arguments: String,
    },
    ToolResult {
        id: String,
        name: String,
        content: String,
        is_error: bool,
        /// What the call did, as data: what the chat shows (`content` is what the model reads).
        outcome: maru_types::tool_outcomes::ToolOutcome,
    },
    Usage {
        usage: Usage,
    },
    /// A call of one of the user's tool servers waits for the user's approval (answer it with
    /// `POST /api/tool-calls/{approval}/approve` or `/deny`).
    ApprovalNeeded {
        approval: String,
        /// The tool call's id, as in `tool_call`.
        id: String,
        server: String,
        tool: String,
        arguments: String,
        /// What its server says the tool does (read-only, destructive, reaching outside).
        hints: crate::tools::servers::ToolHints,
    },
    /// How it was answered (or that no answer came in time).
    ApprovalDecided {
        approval: String,
        decision: crate::tools::approvals::Decision,
    },
    /// The turn ended; `message` is the final assistant reply as stored (complete or stopped).
    Done {
        message: Box<Message>,
    },
    /// The turn failed; the user's message is kept and `message_id` is the failed reply, if any.
    /// With `nothing_stored`, the turn was refused after its first words: nothing of it is in the
    /// chat, not even a new message, which the window gives back to be sent again (a regenerate,
    /// or a message sent right after an answer, shows the first words before it stores: see
    /// `chat::ahead`).
    Error {
        code: String,
        message: String,
        message_id: Option<i64>,
        #[serde(default)]
        nothing_stored: bool,
    },
}

impl TurnEvent {
    /// The SSE event name.
    pub fn name(&self) -> &'static str {
        match self {
            TurnEvent::Token { .. } => "token",
            TurnEvent::Reasoning { .. } => "reasoning",
            TurnEvent::ToolCall { .. } => "tool_call",
            TurnEvent::ToolResult { .. } => "tool_result",
            TurnEvent::Usage { .. } => "usage",
            TurnEvent::ApprovalNeeded { .. } => "approval_needed",
            TurnEvent::ApprovalDecided { .. } => "approval_decided",
            TurnEvent::Done { .. } => "done",
            TurnEvent::Error { .. } => "error",
        }
    }

    /// Joins `next` into `self` when both are text of the same kind.
    fn absorb(&mut self, next: &TurnEvent) -> bool {
        match (self, next) {
            (TurnEvent::Token { text }, TurnEvent::Token { text: more })
            | (TurnEvent::Reasoning { text }, TurnEvent::Reasoning { text: more }) => {
                text.push_str(more);
                true
            }
            _ => false,
        }
    }
}

/// One turn's events so far. Written by the turn, read by any number of listeners.
#[derive(Clone)]
pub struct Feed {
    events: Arc<Mutex<Vec<TurnEvent>>>,
    /// The number of events, bumped on every push; dropped (closing the feed) when the turn ends.
    count: Arc<watch::Sender<usize>>,
}

impl Feed {
    pub fn new() -> Feed {
        Feed { events: Arc::default(), count: Arc::new(watch::Sender::new(0)) }
    }

    /// Appends an event; never waits.
    pub fn push(&self, event: TurnEvent) {
        let mut events = self.events.lock().unwrap_or_else(|p| p.into_inner());
        events.push(event);
        self.count.send_replace(events.len());
    }

    /// A listener from the turn's first event.
    pub fn subscribe(&self) -> TurnStream {
        TurnStream { events: self.events.clone(), count: self.count.subscribe(), next: 0 }
    }
}

impl Default for Feed {
    fn default() -> Self {
        Feed::new()
    }
}

/// A listener's view of a turn: every event once, in order, consecutive text joined when it
/// has fallen behind. Ends after the turn's last event.
pub struct TurnStream {
    events: Arc<Mutex<Vec<TurnEvent>>>,
    count: watch::Receiver<usize>,
    next: usize,
}

impl TurnStream {
    /// The next event, or `None` when the turn has ended and everything was read.
    pub async fn recv(&mut self) -> Option<TurnEvent> {
        loop {
            if let Some(event) = self.take() {
                return Some(event);
            }
            // The sender is dropped when the turn ends: read what is left, then stop.
            if self.count.changed().await.is_err() {
                return self.take();
            }
        }
    }

    fn take(&mut self) -> Option<TurnEvent> {
        let events = self.events.lock().unwrap_or_else(|p| p.into_inner());
        let mut event = events.get(self.next)?.clone();
        self.next += 1;
        while let Some(more) = events.get(self.next) {
            if !event.absorb(more) {
                break;
            }
            self.next += 1;
        }
        Some(event)
    }

    /// As a `Stream`, for SSE bodies.
    pub fn into_stream(self) -> impl futures_util::Stream<Item = TurnEvent> + Send + 'static {
        futures_util::stream::unfold(self, |mut s| async move { s.recv().await.map(|e| (e, s)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(t: &str) -> TurnEvent {
        TurnEvent::Token { text: t.into() }
    }

    #[tokio::test]
    async fn a_listener_that_fell_behind_gets_the_missed_text_joined() {
        let feed = Feed::new();
        let mut live = feed.subscribe();
        feed.push(token("a"));
        assert_eq!(live.recv().await, Some(token("a")));
        for t in ["b", "c", "d"] {
            feed.push(token(t));
        }
        feed.push(TurnEvent::Reasoning { text: "r".into() });
        drop(feed);
        assert_eq!(live.recv().await, Some(token("bcd")), "missed tokens arrive as one event, none lost");
        assert_eq!(live.recv().await, Some(TurnEvent::Reasoning { text: "r".into() }), "kinds are never mixed");
        assert_eq!(live.recv().await, None, "the stream ends with the turn");
    }

    #[tokio::test]
    async fn a_late_listener_replays_the_turn_from_its_start() {
        let feed = Feed::new();
        feed.push(token("Hel"));
        feed.push(token("lo"));
        let mut late = feed.subscribe();
        assert_eq!(late.recv().await, Some(token("Hello")), "a second tab sees what streamed before it came");
        let pending = tokio::spawn(async move { late.recv().await });
        tokio::task::yield_now().await;
        feed.push(token("!"));
        assert_eq!(pending.await.unwrap(), Some(token("!")), "then it follows live");
    }

    #[test]
    fn pushing_never_waits_for_listeners() {
        let feed = Feed::new();
        let _stalled = feed.subscribe();
        for i in 0..100_000 {
            feed.push(token(&i.to_string()));
        }
        // Reaching this line is the assertion: a bounded channel would have blocked at its capacity.
        assert_eq!(feed.events.lock().unwrap().len(), 100_000, "every event is kept for the listener that reads later");
    }
}
