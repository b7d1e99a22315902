//! A call of one of the user's tool servers, inside a turn: it waits for the user's approval
//! (unless the tool is always allowed), then runs with the settings' deadline. Whatever happens
//! (denied, no answer, the server gone, too slow) the model is told so in words and the turn
//! goes on; the result is data like any tool's, and its size is decided like theirs. A server
//! turned off or removed ends its calls at once, waiting or running, and a removed one is never
//! started again for a call approved too late.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::machine::{self, Skip};
use crate::app::{App, Feed, TurnEvent};
use crate::llm::{CancellationToken, ToolCall};
use crate::store::settings::Settings;
use crate::store::{projects, sessions, tool_servers};
use crate::tools::approvals::Decision;
use crate::tools::servers::Offered;
use crate::tools::{refuse, say, ToolDid, ToolFailure, ToolReply};

/// How long a call waits for the user before it is skipped.
const APPROVAL_WAIT: Duration = Duration::from_secs(600);

/// Asks the user about the call (a card in the reply) and waits for the answer, at most
/// `APPROVAL_WAIT`; the turn stopping or the server going ends the wait.
async fn ask(
    app: &App,
    offered: &Offered,
    call: &ToolCall,
    session_id: i64,
    cancel: &CancellationToken,
    stop: &CancellationToken,
    feed: &Feed,
) -> Decision {
    let (approval, answered) = app.approvals.ask(session_id);
    feed.push(TurnEvent::ApprovalNeeded {
        approval: approval.clone(),
        id: call.id.clone(),
        server: offered.server.clone(),
        tool: offered.tool.clone(),
        arguments: call.arguments.clone(),
        hints: offered.hints,
    });
    let decision = tokio::select! {
        answer = tokio::time::timeout(APPROVAL_WAIT, answered) => answer.ok().and_then(Result::ok).unwrap_or(Decision::TimedOut),
        () = cancel.cancelled() => Decision::TimedOut,
        () = stop.cancelled() => Decision::ServerStopped,
    };
    app.approvals.forget(&approval);
    feed.push(TurnEvent::ApprovalDecided { approval, decision });
    decision
}

pub async fn call(
    app: &Arc<App>,
    offered: &Offered,
    call: &ToolCall,
    session_id: i64,
    settings: &Settings,
    cancel: &CancellationToken,
    feed: &Feed,
) -> Result<ToolReply, ToolReply> {
    let templates = &app.templates;
    let server_id = offered.server_id;
    // Taken before the store is read: a removal from then on ends the call.
    let stop = app.tool_servers.stopped(server_id);
    let said = |key: &str| say(templates, key, json!({ "server": offered.server, "tool": offered.tool }));
    let stopped = || match app.tool_servers.is_removed(server_id) {
        true => ToolReply::new(said("server_removed"), ToolDid::ServerRemoved),
        false => ToolReply::new(said("server_turned_off"), ToolDid::ServerTurnedOff),
    };
    let server = match app.store.read(move |c| tool_servers::get(c, server_id)).await {
        Ok(server) => server,
        Err(crate::error::Error::NotFound { .. }) => return Err(ToolReply::new(said("server_removed"), ToolDid::ServerRemoved)),
        Err(e) => return Err(e.into()),
    };
    if !server.enabled {
        return Err(stopped());
    }
    // The chat's project may let read-only tools run (a chat gone meanwhile: ask).
    let policy =
        app.store.read(move |c| Ok(projects::get(c, sessions::get(c, session_id)?.project_id)?.tool_approval)).await.unwrap_or_default();
    let answer = match machine::asks(server.always_allowed.contains(&offered.tool), offered.hints, policy) {
        false => None,
        true => Some(ask(app, offered, call, session_id, cancel, &stop, feed).await),
    };
    let gate = machine::gate(answer, stop.is_cancelled());
    if gate.allow_always {
        let tool = offered.tool.clone();
        if let Err(e) = app.store.write(move |tx| tool_servers::always_allow(tx, server_id, &tool)).await {
            tracing::warn!(server = %offered.server, "cannot remember the always-allowed tool: {e}");
        }
    }
    match gate.skip {
        None => {}
        Some(Skip::Denied) => return Err(ToolReply::new(said("call_denied"), ToolDid::Denied)),
        Some(Skip::NotApproved) => return Err(ToolReply::new(said("approval_timed_out"), ToolDid::NotApproved)),
        Some(Skip::ServerStopped) => return Err(stopped()),
    }
    let connection = match app.tool_servers.connection(&server).await {
        Ok(c) => c,
        Err(_) if stop.is_cancelled() => return Err(stopped()),
        Err(e) => {
            return Err(refuse(templates, ToolFailure::ServerUnavailable, json!({ "server": offered.server, "detail": e.to_string() })))
        }
    };
    let arguments: serde_json::Value = if call.arguments.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(&call.arguments)
            .map_err(|e| refuse(templates, ToolFailure::BadArguments, json!({ "detail": e.to_string() })))?
    };
    let secs = settings.tool_call_timeout_secs;
    let ran = tokio::select! {
        ran = connection.call(&offered.tool, arguments, Duration::from_secs(secs.into())) => ran,
        () = cancel.cancelled() => Err(maru_mcp::CallError::Timeout),
        () = stop.cancelled() => return Err(stopped()),
    };
    match ran {
        // The server's own words on a failure: a code says no more than that the tool said so.
        Ok(outcome) if outcome.is_error => Err(ToolReply::failed(ToolFailure::ToolError, outcome.text)),
        Ok(outcome) => Ok(ToolReply::text(outcome.text)),
        Err(maru_mcp::CallError::Timeout) => {
            Err(refuse(templates, ToolFailure::CallTimedOut, json!({ "tool": offered.tool, "secs": secs })))
        }
        Err(e) => {
            tracing::warn!(server = %offered.server, tool = %offered.tool, "tool call failed: {e}; {}", connection.last_words());
            Err(refuse(templates, ToolFailure::ServerFailed, json!({ "tool": offered.tool, "detail": e.to_string() })))
        }
    }
}
