//! Every path of a turn's decisions, without I/O.

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
fn only_a_chat_unchanged_since_its_last_answer_sends_ahead_and_only_what_the_turn_would_send() {
    let send = |content: &str| TurnKind::Send { content: content.into(), images: vec![], skills: vec![] };
    assert_eq!(TurnKind::Regenerate.ahead(true, 0, 0), Ahead::Again, "a regenerate asks the same first request again");
    assert_eq!(send("and then?").ahead(true, 10, 1000), Ahead::WithMessage);
    assert_eq!(send("and then?").ahead(false, 10, 1000), Ahead::No, "something written since: the old request is stale");
    assert_eq!(TurnKind::Regenerate.ahead(false, 0, 0), Ahead::No);
    assert_eq!(send("   ").ahead(true, 1, 1000), Ahead::No, "an empty message is refused by the turn: nothing to send");
    assert_eq!(send(&"x".repeat(CONTENT_MAX_CHARS + 1)).ahead(true, 1, 1000), Ahead::No, "nor an overlong one");
    assert_eq!(send("long").ahead(true, 493, 1000), Ahead::No, "a message that may not fit goes after compaction");
    assert_eq!(send("long").ahead(true, 492, 1000), Ahead::WithMessage, "up to half the room left, with 8 tokens of framing");
    let images = TurnKind::Send { content: "look".into(), images: vec![1], skills: vec![] };
    let skills = TurnKind::Send { content: "do".into(), images: vec![], skills: vec!["pdf".into()] };
    assert_eq!((images.ahead(true, 1, 1000), skills.ahead(true, 1, 1000)), (Ahead::No, Ahead::No), "the turn adds to those");
    let edit = TurnKind::Resend { message_id: 1, content: "fixed".into() };
    assert_eq!(edit.ahead(true, 1, 1000), Ahead::No, "an edit changes the history the request holds");
}

#[test]
fn first_words_show_early_only_when_the_request_ahead_is_surely_the_turns() {
    let today = chrono::NaiveDate::from_ymd_opt(2026, 12, 8).unwrap();
    assert!(shows_first(Some(today), today, false));
    assert!(!shows_first(today.pred_opt(), today, false), "a new day changes the runtime note");
    assert!(!shows_first(None, today, false));
    assert!(!shows_first(Some(today), today, true), "a tool server's tools may have changed");
}

#[test]
fn a_project_may_let_tools_that_only_read_run_and_the_rest_still_ask() {
    let reads = ToolHints { read_only: Some(true), ..Default::default() };
    let writes = ToolHints { read_only: Some(false), destructive: Some(true), ..Default::default() };
    let silent = ToolHints::default();
    assert!(asks(false, reads, ToolApproval::Ask), "by default every call asks, read-only or not");
    assert!(!asks(false, reads, ToolApproval::ReadOnlyRuns), "the project lets a read-only tool run");
    assert!(asks(false, writes, ToolApproval::ReadOnlyRuns), "a tool that writes still asks");
    assert!(asks(false, silent, ToolApproval::ReadOnlyRuns), "a tool whose server says nothing is not taken as read-only");
    assert!(!asks(true, writes, ToolApproval::Ask), "a tool the user always allows never asks");
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
