//! A turn's decisions as a pure state machine: what happened to a round's reply goes in
//! ([`Streamed`]), what to do next comes out ([`Step`]): send a request (after compacting
//! everything but the last turn, when the server said it did not fit), or end the reply with a
//! status and then run its tool calls, report it done, or report it failed. No I/O, no clock: the
//! driver (`turn`) streams, stores and runs the tools, and these tests walk every path.

use crate::error::Error;
use crate::llm::ToolCall;
use crate::store::messages::{self, Status, CONTENT_MAX_CHARS};
use crate::tools::approvals::Decision;

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
mod tests {
    use super::*;

    fn call(name: &str) -> ToolCall {
        ToolCall { id: format!("call-{name}"), name: name.into(), arguments: "{}".into() }
    }

    fn server_error() -> Failure {
        Failure { code: "model_server.server_error".into(), message: "the server failed".into(), overflow: false }
    }

    fn overflow() -> Failure {
        Failure { code: "model_server.context_too_long".into(), message: "too long".into(), overflow: true }
    }

    fn ended(step: Step) -> (Ending, Next) {
        match step {
            Step::End { ending, next } => (ending, next),
            other => panic!("expected the reply to end, got {other:?}"),
        }
    }

    #[test]
    fn a_plain_answer_ends_complete() {
        let mut t = Turn::default();
        assert_eq!(t.start(), Step::Request { tools_allowed: true, compact_all: false }, "the first round may call tools");
        let (e, next) = ended(t.streamed(Streamed::default()));
        assert_eq!((e.status, next, e.error_code), (Status::Complete, Next::Done, None));
    }

    #[test]
    fn a_stop_keeps_the_reply_as_stopped_whatever_else_happened() {
        let mut t = Turn::default();
        t.start();
        let (e, next) = ended(t.streamed(Streamed { cancelled: true, failure: Some(server_error()), ..Default::default() }));
        assert_eq!((e.status, next), (Status::Stopped, Next::Done), "a stop is the user's, not an error");
        let mut t = Turn::default();
        t.start();
        let s = Streamed { cancelled: true, empty: true, failure: Some(overflow()), ..Default::default() };
        assert_eq!(ended(t.streamed(s)).0.status, Status::Stopped, "a stopped turn is not retried after an overflow");
    }

    #[test]
    fn a_server_failure_ends_the_reply_as_an_error_with_its_code() {
        let mut t = Turn::default();
        t.start();
        let (e, next) = ended(t.streamed(Streamed { failure: Some(server_error()), ..Default::default() }));
        assert_eq!((e.status, next), (Status::Error, Next::Failed));
        assert_eq!(e.error_code.as_deref(), Some("model_server.server_error"), "the UI words it by code");
        assert_eq!(e.error.as_deref(), Some("the server failed"));
    }

    #[test]
    fn an_overflow_before_any_text_compacts_and_retries_once() {
        let mut t = Turn::default();
        t.start();
        let first = Streamed { empty: true, failure: Some(overflow()), ..Default::default() };
        assert_eq!(t.streamed(first.clone()), Step::Request { tools_allowed: true, compact_all: true }, "summarise all but the last turn");
        let (e, next) = ended(t.streamed(first));
        assert_eq!((e.status, next), (Status::Error, Next::Failed), "a second overflow is reported, not retried forever");
        assert_eq!(e.error_code.as_deref(), Some("model_server.context_too_long"));
    }

    #[test]
    fn an_overflow_after_text_keeps_the_text_and_fails() {
        let mut t = Turn::default();
        t.start();
        let (e, _) = ended(t.streamed(Streamed { empty: false, failure: Some(overflow()), ..Default::default() }));
        assert_eq!(e.status, Status::Error, "text already shown is never thrown away for a retry");
    }

    #[test]
    fn a_reply_at_the_length_limit_is_stopped_and_says_why() {
        let mut t = Turn::default();
        t.start();
        let (e, next) = ended(t.streamed(Streamed { too_long: true, calls: vec![call("add")], ..Default::default() }));
        assert_eq!((e.status, next), (Status::Stopped, Next::Done), "its tool calls are not run");
        assert_eq!(e.error_code.as_deref(), Some(messages::ERROR_CODE_REPLY_TOO_LONG));
    }

    #[test]
    fn tool_rounds_run_until_the_last_which_forbids_calls() {
        let mut t = Turn::default();
        assert_eq!(t.start(), Step::Request { tools_allowed: true, compact_all: false });
        for round in 0..MAX_TOOL_ROUNDS {
            let (e, next) = ended(t.streamed(Streamed { calls: vec![call("add")], ..Default::default() }));
            assert_eq!((e.status, next), (Status::Complete, Next::RunTools), "round {round}: the calls run");
            assert_eq!(e.tool_calls, [call("add")], "and are stored with the reply");
            let expected = Step::Request { tools_allowed: round + 1 < MAX_TOOL_ROUNDS, compact_all: false };
            assert_eq!(t.tools_done(), expected, "round {round}: then the next round");
        }
        let (e, next) = ended(t.streamed(Streamed { calls: vec![call("add")], ..Default::default() }));
        assert_eq!((e.status, next), (Status::Stopped, Next::Done), "calls on the last round are not run");
        assert_eq!(e.error_code.as_deref(), Some(messages::ERROR_CODE_TOO_MANY_TOOL_ROUNDS), "and the reply says why");
        assert!(e.tool_calls.is_empty(), "nothing is stored as called that never ran");
    }

    #[test]
    fn each_round_may_retry_one_overflow() {
        let mut t = Turn::default();
        t.start();
        let overflowed = Streamed { empty: true, failure: Some(overflow()), ..Default::default() };
        assert!(matches!(t.streamed(overflowed.clone()), Step::Request { compact_all: true, .. }));
        ended(t.streamed(Streamed { calls: vec![call("search_attachment")], ..Default::default() }));
        t.tools_done();
        assert!(
            matches!(t.streamed(overflowed), Step::Request { compact_all: true, .. }),
            "a tool result that overflows the next round is compacted for too"
        );
    }

    #[test]
    fn a_server_tool_runs_only_when_allowed_and_its_server_is_still_there() {
        let run = Gate { allow_always: false, skip: None };
        assert_eq!(gate(None, false), run, "an always-allowed tool runs without asking");
        assert_eq!(gate(Some(Decision::Once), false), run, "Allow once runs it");
        assert_eq!(gate(Some(Decision::Always), false), Gate { allow_always: true, skip: None }, "Always runs it and is remembered");
        assert_eq!(gate(Some(Decision::Denied), false).skip, Some(Skip::Denied), "Deny does not run it");
        assert_eq!(gate(Some(Decision::TimedOut), false).skip, Some(Skip::NotApproved), "no answer does not run it");
        assert_eq!(gate(Some(Decision::ServerStopped), false).skip, Some(Skip::ServerStopped));
        assert_eq!(
            gate(Some(Decision::Once), true).skip,
            Some(Skip::ServerStopped),
            "approved just as the server went: it does not start again"
        );
        assert_eq!(
            gate(Some(Decision::Always), true),
            Gate { allow_always: true, skip: Some(Skip::ServerStopped) },
            "the user's Always is kept for the tool even when this call cannot run"
        );
    }
}
