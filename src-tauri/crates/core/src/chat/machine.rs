//! A turn's decisions as a pure state machine: what happened to a round's reply goes in
//! ([`Streamed`]), what to do next comes out ([`Step`]): send a request (after compacting
//! everything but the last turn, when the server said it did not fit), or end the reply with a
//! status and then run its tool calls, report it done, or report it failed. No I/O, no clock: the
//! driver (`turn`) streams, stores and runs the tools, and these tests walk every path.

use crate::error::Error;
use crate::llm::ToolCall;
use crate::store::messages::{self, Status, CONTENT_MAX_CHARS};
use crate::store::projects::ToolApproval;
use crate::tools::approvals::Decision;
use crate::tools::servers::ToolHints;

/// At most this many rounds of tool calls per turn; the last round lets the model call none.
pub const MAX_TOOL_ROUNDS: usize = 5;

/// How a round's reply ended, as the driver saw it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Streamed {
    /// No text arrived (reasoning does not count).
    pub empty: bool,
    /// The reply reached the longest a message may be and was cut there.
    pub too_long: bool,
    /// The user (or closing Maru) stopped it.
    pub cancelled: bool,
    /// The model server failed, before or during the reply.
    pub failure: Option<Failure>,
    /// The calls the model made, in order.
    pub calls: Vec<ToolCall>,
}

/// A model-server failure: its API code (`model_server.…`) and message.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub code: String,
    pub message: String,
    /// The server said the request does not fit its context window.
    pub overflow: bool,
}

/// What the driver does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Send the round's request. `tools_allowed`: the model may call tools (the last round
    /// still lists them, but forbids calling one). `compact_all`: summarise everything but the
    /// last turn first (the server said the request did not fit).
    Request { tools_allowed: bool, compact_all: bool },
    /// Store the reply as `ending`, then go on as `next` says.
    End { ending: Ending, next: Next },
}

/// A reply's stored ending.
#[derive(Debug, Clone, PartialEq)]
pub struct Ending {
    pub status: Status,
    pub error: Option<String>,
    pub error_code: Option<String>,
    /// Stored with the reply: the history the next round reads holds them.
    pub tool_calls: Vec<ToolCall>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Run the reply's tool calls, store their results, then [`Turn::tools_done`].
    RunTools,
    /// The turn is over: report the reply.
    Done,
    /// The turn is over: report the failure.
    Failed,
}

/// Where a turn is: which round of tool calls, and whether this round already retried after an
/// overflow.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    round: usize,
    retried: bool,
}

impl Turn {
    /// The first round's request.
    pub fn start(&mut self) -> Step {
        *self = Turn::default();
        self.request(false)
    }

    /// The round's reply ended as `s`.
    pub fn streamed(&mut self, s: Streamed) -> Step {
        let overflow = s.failure.as_ref().is_some_and(|f| f.overflow);
        // Compact once and retry only when nothing of the reply exists yet: text already shown
        // is never thrown away.
        if overflow && s.empty && !s.cancelled && !s.too_long && !self.retried {
            self.retried = true;
            return self.request(true);
        }
        let end = |status, error: Option<String>, code: Option<&str>, next| Step::End {
            ending: Ending { status, error, error_code: code.map(str::to_string), tool_calls: vec![] },
            next,
        };
        if s.too_long {
            let error = format!("the reply reached the {CONTENT_MAX_CHARS}-character limit of a message and was cut there");
            return end(Status::Stopped, Some(error), Some(messages::ERROR_CODE_REPLY_TOO_LONG), Next::Done);
        }
        if s.cancelled {
            return end(Status::Stopped, None, None, Next::Done);
        }
        if let Some(f) = s.failure {
            return end(Status::Error, Some(f.message), Some(&f.code), Next::Failed);
        }
        if s.calls.is_empty() {
            return end(Status::Complete, None, None, Next::Done);
        }
        if !self.tools_allowed() {
            let error = format!("the model asked for more tools after {MAX_TOOL_ROUNDS} rounds of tool calls; Maru stopped it here");
            return end(Status::Stopped, Some(error), Some(messages::ERROR_CODE_TOO_MANY_TOOL_ROUNDS), Next::Done);
        }
        Step::End { ending: Ending { status: Status::Complete, error: None, error_code: None, tool_calls: s.calls }, next: Next::RunTools }
    }

    /// The tool calls ran and their results are stored: the next round.
    pub fn tools_done(&mut self) -> Step {
        self.round += 1;
        self.retried = false;
        self.request(false)
    }

    fn tools_allowed(&self) -> bool {
        self.round < MAX_TOOL_ROUNDS
    }

    fn request(&self, compact_all: bool) -> Step {
        Step::Request { tools_allowed: self.tools_allowed(), compact_all }
    }
}

/// What a turn is asked to do.
#[derive(Debug, Clone)]
pub enum TurnKind {
    /// A new user message, with images for models that see them, and the skills the user loaded
    /// with it (`/` in the composer), by name.
    Send { content: String, images: Vec<i64>, skills: Vec<String> },
    /// Answer the last message again; the reply so far stays as an earlier version.
    Regenerate,
    /// Answer an edited copy of a user message; the original and what followed it stay as an
    /// earlier version.
    Resend { message_id: i64, content: String },
}

/// Which request goes to the model server ahead of a turn's own work (see `ahead`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ahead {
    /// The last turn's first request again: a regenerate.
    Again,
    /// The last turn's conversation with the new message after it.
    WithMessage,
    /// None: the turn builds and sends its own.
    No,
}

impl TurnKind {
    /// What goes ahead of this turn. `unchanged`: nothing was written since the chat's last turn
    /// answered, so its requests are still the chat's. `added_tokens` (a new message and its
    /// runtime note, estimated) must fit in half the `room` the last request left: the server's
    /// tokenizer may count the chat anew meanwhile, and a message that leaves the chat too long
    /// is sent after summarising older turns. Only a message the turn will take (it refuses
    /// empty and overlong ones) and send as it is (no images, no skills) goes ahead.
    pub fn ahead(&self, unchanged: bool, added_tokens: usize, room: usize) -> Ahead {
        match self {
            _ if !unchanged => Ahead::No,
            TurnKind::Regenerate => Ahead::Again,
            TurnKind::Send { content, images, skills }
                if images.is_empty()
                    && skills.is_empty()
                    && !content.trim().is_empty()
                    && content.len() <= CONTENT_MAX_CHARS
                    && added_tokens + 8 <= room / 2 =>
            {
                Ahead::WithMessage
            }
            _ => Ahead::No,
        }
    }
}

/// Whether the first words of a request sent ahead may be shown before the turn's transaction:
/// only where what the request holds besides the store is as the last turn left it (the date
/// in the runtime note, no tool servers whose tools may have changed), so that the turn's own
/// request is that one.
pub fn shows_first(answered_on: Option<chrono::NaiveDate>, today: chrono::NaiveDate, tool_servers: bool) -> bool {
    answered_on == Some(today) && !tool_servers
}

/// A call of one of the user's tool servers once the user has answered (or was not asked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    /// Remember that the tool runs without asking from now on.
    pub allow_always: bool,
    /// Why the call does not run (the model is told); `None`: it runs.
    pub skip: Option<Skip>,
}

/// Why a call of a server's tool does not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    Denied,
    /// No answer in time, or the turn stopped.
    NotApproved,
    /// The server was turned off or removed before the call could run.
    ServerStopped,
}

/// Whether a server's tool call waits for the user: not when the user always allows the tool,
/// nor when the chat's project lets tools their server marks read-only run.
pub fn asks(always_allowed: bool, hints: ToolHints, policy: ToolApproval) -> bool {
    let runs_as_read_only = policy == ToolApproval::ReadOnlyRuns && hints.only_reads();
    !(always_allowed || runs_as_read_only)
}

/// The gate of a server's tool call: `answer` is the user's decision, `None` when the tool is
/// always allowed (nothing was asked); `stopped`: the server was turned off or removed by the
/// time the answer came. "Always" is remembered even then: the user said so of the tool.
pub fn gate(answer: Option<Decision>, stopped: bool) -> Gate {
    let allow_always = answer == Some(Decision::Always);
    let skip = match answer {
        Some(Decision::Denied) => Some(Skip::Denied),
        Some(Decision::TimedOut) => Some(Skip::NotApproved),
        Some(Decision::ServerStopped) => Some(Skip::ServerStopped),
        None | Some(Decision::Once | Decision::Always) => stopped.then_some(Skip::ServerStopped),
    };
    Gate { allow_always, skip }
}

/// How the turn ended, when it cannot say so with a stored reply.
pub(super) enum Halt {
    /// The reply was deleted (with its chat) while streaming: nothing more is written.
    ReplyGone,
    /// Failed before or between replies; with the id of the reply a round had stored but not
    /// yet streamed into, which then holds the error (rather than a second reply beside it).
    Failed(Error, Option<i64>),
    /// The turn's first transaction failed after its request went out: the caller was told
    /// and nothing was stored.
    Refused,
}

impl Halt {
    /// This failure, told in the round's stored reply `reply` (when it has one).
    pub(super) fn in_reply(self, reply: Option<i64>) -> Halt {
        match self {
            Halt::Failed(e, None) => Halt::Failed(e, reply),
            other => other,
        }
    }
}

impl From<Error> for Halt {
    fn from(e: Error) -> Self {
        Halt::Failed(e, None)
    }
}

#[cfg(test)]
mod tests;
