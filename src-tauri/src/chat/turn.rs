//! Runs one turn. [`start`] does the checks and the writes that must happen before anything is
//! streamed (so errors come back as plain API errors), then spawns the streaming task and hands
//! back its events.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio::sync::mpsc;

use super::events::TurnEvent;
use super::history;
use super::runs::RunGuard;
use super::title;
use super::tools::ToolContext;
use crate::api::App;
use crate::error::{Error, Result};
use crate::llm::{ChatRequest, Delta, LlmError, ToolCall};
use crate::prompt::{self, Budgets};
use crate::store::messages::{self, Ending, NewMessage, ReplyStats, Role, Status};
use crate::store::{sessions, settings};

/// At most this many rounds of tool calls per turn; the last round offers no tools.
pub const MAX_TOOL_ROUNDS: usize = 5;
/// Partial replies are saved at most this often, so a crash loses at most this much text.
const SAVE_EVERY: Duration = Duration::from_millis(250);

#[derive(Debug, Clone)]
pub enum TurnKind {
    /// A new user message.
    Send { content: String },
    /// Replace the last reply.
    Regenerate,
    /// Edit a user message and answer it again; everything after it is replaced.
    Resend { message_id: i64, content: String },
}

/// Starts a turn; the receiver yields its events and closes when the turn has ended.
pub async fn start(app: Arc<App>, session_id: i64, kind: TurnKind) -> Result<mpsc::Receiver<TurnEvent>> {
    let guard = app.runs.begin(session_id)?;
    let templates = app.templates.clone();
    app.store
        .call(move |c| {
            let tx = c.transaction()?;
            let session = sessions::get(&tx, session_id)?;
            let now = chrono::Local::now();
            match kind {
                TurnKind::Send { content } => {
                    check_content(&content)?;
                    let note = history::runtime_note(&templates, now)?;
                    messages::insert(&tx, &NewMessage { session_id, role: Role::User, content: &content, runtime_note: Some(&note), ..Default::default() })?;
                    if session.title.is_empty() {
                        sessions::set_title_if_empty(&tx, session_id, &title::from_first_message(&content))?;
                    }
                }
                TurnKind::Regenerate => {
                    let last_user = messages::history(&tx, session_id)?
                        .into_iter()
                        .rfind(|m| m.role == Role::User)
                        .ok_or_else(|| Error::invalid("nothing_to_regenerate", "this chat has no message to answer yet"))?;
                    messages::delete_from(&tx, session_id, last_user.id + 1)?;
                }
                TurnKind::Resend { message_id, content } => {
                    check_content(&content)?;
                    let m = messages::get(&tx, message_id)?;
                    if m.session_id != session_id || m.role != Role::User {
                        return Err(Error::invalid("not_a_user_message", "only your own messages in this chat can be edited and resent"));
                    }
                    messages::delete_from(&tx, session_id, message_id + 1)?;
                    messages::edit(&tx, message_id, &content)?;
                    // It is sent again now: a new time, stored so later requests repeat it.
                    messages::set_runtime_note(&tx, message_id, &history::runtime_note(&templates, now)?)?;
                }
            }
            tx.commit()?;
            Ok(())
        })
        .await?;
    let (tx, rx) = mpsc::channel(256);
    tokio::spawn(run(app, guard, session_id, tx));
    Ok(rx)
}

fn check_content(content: &str) -> Result<()> {
    if content.trim().is_empty() {
        return Err(Error::invalid("empty_message", "the message is empty"));
    }
    Ok(())
}

/// Sends to the UI; a UI that went away does not stop the turn.
async fn emit(tx: &mpsc::Sender<TurnEvent>, event: TurnEvent) {
    let _ = tx.send(event).await;
}

async fn run(app: Arc<App>, guard: RunGuard, session_id: i64, tx: mpsc::Sender<TurnEvent>) {
    let cancel = guard.cancel.clone();
    if let Err(e) = run_rounds(&app, session_id, &cancel, &tx).await {
        // Failed before or between replies (server down, no model…): the chat shows why, as a
        // failed reply under the user's message, which stays.
        tracing::warn!(session_id, code = e.code(), "turn failed: {e}");
        let text = e.body().message;
        let stored = app
            .store
            .call(move |c| {
                let m = messages::insert(c, &NewMessage { session_id, role: Role::Assistant, status: Status::Error, ..Default::default() })?;
                messages::finish(c, m.id, &Ending { status: Status::Error, error: Some(&text), ..Default::default() }, &ReplyStats::default())
            })
            .await;
        let message_id = stored.ok().map(|m| m.id);
        emit(&tx, TurnEvent::Error { code: e.code().into(), message: e.body().message, message_id }).await;
    }
    drop(guard);
}

async fn run_rounds(app: &Arc<App>, session_id: i64, cancel: &crate::llm::CancellationToken, tx: &mpsc::Sender<TurnEvent>) -> Result<()> {
    let settings = app.store.call(|c| settings::load(c)).await?;
    let client = app.llm_client(&settings);
    let model = app.resolve_model(&client, &settings).await?;
    let templates = app.templates.clone();
    let today = chrono::Local::now().date_naive();
    let prepared = app.store.call(move |c| prompt::prepare(c, &templates, session_id, today, &Budgets::default())).await?;
    let system_prompt = prepared.rendered.text;
    let project_id = app.store.call(move |c| Ok(sessions::get(c, session_id)?.project_id)).await?;
    let ctx = ToolContext { session_id, project_id };

    for round in 0..=MAX_TOOL_ROUNDS {
        let history = app.store.call(move |c| messages::history(c, session_id)).await?;
        let mut request = ChatRequest::new(model.clone(), history::request_messages(&app.templates, &system_prompt, &history)?);
        request.temperature = settings.temperature;
        request.top_p = settings.top_p;
        request.max_tokens = settings.max_tokens;
        if round < MAX_TOOL_ROUNDS {
            request.tools = app.tools.specs();
        }
        let model_name = model.clone();
        let reply = app
            .store
            .call(move |c| messages::insert(c, &NewMessage { session_id, role: Role::Assistant, status: Status::Streaming, model: Some(&model_name), ..Default::default() }))
            .await?;
        let outcome = stream_reply(app, &client, &request, reply.id, cancel, tx).await?;
        let Some(calls) = outcome else { return Ok(()) };
        for call in calls {
            emit(tx, TurnEvent::ToolCall { id: call.id.clone(), name: call.name.clone(), arguments: call.arguments.clone() }).await;
            let result = app.tools.call(ctx.clone(), &call.name, &call.arguments).await;
            let (content, is_error) = match result {
                Ok(text) => (text, false),
                Err(msg) => (format!("error: {msg}"), true),
            };
            let (id, name, text) = (call.id.clone(), call.name.clone(), content.clone());
            app.store
                .call(move |c| messages::insert(c, &NewMessage { session_id, role: Role::Tool, content: &text, tool_call_id: Some(&id), tool_name: Some(&name), ..Default::default() }))
                .await?;
            emit(tx, TurnEvent::ToolResult { id: call.id, name: call.name, content, is_error }).await;
        }
    }
    Ok(())
}

/// Streams one reply into message `id`. Returns the tool calls to run, or `None` when the turn
/// is over (answered, stopped or failed: all already stored and reported).
async fn stream_reply(
    app: &Arc<App>,
    client: &crate::llm::Client,
    request: &ChatRequest,
    id: i64,
    cancel: &crate::llm::CancellationToken,
    tx: &mpsc::Sender<TurnEvent>,
) -> Result<Option<Vec<ToolCall>>> {
    let sent = Instant::now();
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut first_token: Option<Instant> = None;
    let mut usage = crate::llm::Usage::default();
    let mut calls: Vec<ToolCall> = vec![];
    let mut last_save = Instant::now();
    let mut failure: Option<LlmError> = None;

    match client.stream_chat(request, cancel.clone()).await {
        Err(e) => failure = Some(e),
        Ok(mut stream) => {
            while let Some(item) = stream.next().await {
                match item {
                    Ok(Delta::Content(t)) => {
                        first_token.get_or_insert_with(Instant::now);
                        text.push_str(&t);
                        emit(tx, TurnEvent::Token { text: t }).await;
                    }
                    Ok(Delta::Reasoning(t)) => {
                        first_token.get_or_insert_with(Instant::now);
                        reasoning.push_str(&t);
                        emit(tx, TurnEvent::Reasoning { text: t }).await;
                    }
                    Ok(Delta::Usage(u)) => {
                        usage = u;
                        emit(tx, TurnEvent::Usage { usage: u }).await;
                    }
                    Ok(Delta::Finished { tool_calls, .. }) => calls = tool_calls,
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
                if last_save.elapsed() >= SAVE_EVERY {
                    let partial = text.clone();
                    app.store.call(move |c| messages::save_partial(c, id, &partial)).await?;
                    last_save = Instant::now();
                }
            }
        }
    }

    let finished = Instant::now();
    let stats = ReplyStats {
        prompt_tokens: usage.prompt_tokens.map(i64::from),
        completion_tokens: usage.completion_tokens.map(i64::from),
        cached_tokens: usage.cached_tokens.map(i64::from),
        ttft_ms: first_token.map(|t| (t - sent).as_millis() as i64),
        tokens_per_second: match (usage.completion_tokens, first_token) {
            (Some(n), Some(t)) if n > 1 && finished > t => Some((n - 1) as f64 / (finished - t).as_secs_f64()),
            _ => None,
        },
    };
    let cancelled = matches!(failure, Some(LlmError::Cancelled)) || cancel.is_cancelled();
    let (status, error) = match &failure {
        _ if cancelled => (Status::Stopped, None),
        Some(e) => {
            if matches!(e, LlmError::UnknownModel { .. }) {
                app.forget_listed_model();
            }
            (Status::Error, Some(e.to_string()))
        }
        None => (Status::Complete, None),
    };
    let tool_calls = if status == Status::Complete { calls } else { vec![] };
    let (t, r, tc, err) = (text.clone(), reasoning.clone(), tool_calls.clone(), error.clone());
    let message = app
        .store
        .call(move |c| {
            let end = Ending { content: &t, status, error: err.as_deref(), reasoning: Some(&r), tool_calls: &tc };
            messages::finish(c, id, &end, &stats)
        })
        .await?;
    match (&failure, status) {
        (Some(e), Status::Error) => {
            tracing::warn!(message_id = id, code = e.code(), "reply failed: {e}");
            emit(tx, TurnEvent::Error { code: e.code().into(), message: e.to_string(), message_id: Some(id) }).await;
            Ok(None)
        }
        _ if !tool_calls.is_empty() => Ok(Some(tool_calls)),
        _ => {
            emit(tx, TurnEvent::Done { message: Box::new(message) }).await;
            Ok(None)
        }
    }
}
