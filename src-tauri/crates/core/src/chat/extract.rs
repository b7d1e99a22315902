//! Memory extraction after a turn: in the background, the model is asked for lasting facts
//! about the user in the last exchange (`prompts/extract_memory.md`); each becomes a proposal
//! as if the model had called `remember`. It never delays the reply (it starts after it) or the
//! next turn (a new turn in the session cancels it).
//!
//! The request is the chat's own conversation, byte for byte as the next turn will send it, with
//! the task as one more message at the end. So the server answers it from the chat's cached
//! prompt, and the chat's next turn still finds that prompt cached, even on a server with a
//! single slot that keeps no second copy.

use std::sync::Arc;

use futures_util::StreamExt;

use crate::app::App;
use crate::error::Result;
use crate::llm::{ChatMessage, ChatRequest, Delta};
use crate::memory::extract::parse_facts;
use crate::store::memories;
use crate::store::messages::{self, Role, Status};
use crate::store::settings;
use crate::store::settings::MemoryMode;

/// The background work waits this long after the reply: a follow-up sent by then cancels it
/// before it is sent, so the server never has it running (in the slot that holds the chat's
/// prompt) when the chat's next request arrives.
const QUIET: std::time::Duration = std::time::Duration::from_millis(1500);

/// Tools whose call in the turn means the model already took care of memory.
const MEMORY_TOOLS: [&str; 3] = ["remember", "update_memory", "forget"];

/// The background work after a turn, one request after the other (a server with one slot
/// answers them in turn anyway): the next plan's texts counted by the server's tokenizer, then,
/// after a moment of quiet, the chat's title by the model while it has the first message's and
/// memory extraction when `memory` is on. A new turn cancels all three. `chat`: the turn's last
/// request with its answer appended (see `turn::run_rounds`).
pub fn after_turn(app: Arc<App>, session_id: i64, chat: ChatRequest, memory: bool, recount: crate::prompt::tokens::Recount) {
    let (n, cancel) = app.runs.begin_extraction(session_id);
    tokio::spawn(async move {
        let work = async {
            // The tokenizer takes no slot of the server: it can count while the chat is quiet.
            let quiet = tokio::time::sleep(QUIET);
            recount.run(&app.tokens).await;
            quiet.await;
            // A temporary chat is asked for neither: it leaves no title and no memory behind.
            // (Read now, not at the turn: a chat kept meanwhile gets both.)
            let temporary = app.store.read(move |c| Ok(crate::store::sessions::get(c, session_id)?.temporary)).await.unwrap_or(true);
            if temporary {
                return;
            }
            if let Err(e) = super::title::by_model(&app, session_id, chat.clone()).await {
                tracing::info!(session_id, "the model's title failed: {e}");
            }
            if memory {
                if let Err(e) = extract(&app, session_id, chat).await {
                    tracing::info!(session_id, "memory extraction failed: {e}");
                }
            }
        };
        tokio::select! {
            _ = cancel.cancelled() => tracing::debug!(session_id, "the work after a turn was cancelled by a new turn"),
            () = work => {}
        }
        app.runs.end_extraction(session_id, n);
    });
}

async fn extract(app: &App, session_id: i64, chat: ChatRequest) -> Result<()> {
    let (settings, question, known) = app
        .store
        .read(move |c| {
            // Only the last exchange: from the last question on.
            let from = messages::last_user_id(c, session_id)?.map_or(0, |id| id - 1);
            let history = messages::history_after(c, session_id, from)?;
            let known: Vec<String> = memories::list(c, memories::MemoryFilter::All)?.into_iter().map(|m| m.content).collect();
            Ok((settings::for_session(c, session_id)?, last_question(&history), known))
        })
        .await?;
    let Some(question_id) = question else { return Ok(()) };
    let mode = settings.memory_mode;
    if mode == MemoryMode::Off {
        return Ok(());
    }
    let client = app.llm_client(&settings);
    let task = app.templates.render("extract_memory", &serde_json::json!({ "known": known }))?;
    // The chat's tools stay offered, as they open the prompt; an answer that calls one instead
    // of listing facts is dropped like any other that is not a list.
    let mut request = chat;
    request.messages.push(ChatMessage::user(task.trim_end()));
    request.max_tokens = Some(300);
    request.temperature = Some(0.0);
    request.tool_choice = None;
    let mut answer = String::new();
    let mut stream = client.stream_chat(&request, Default::default()).await?;
    while let Some(delta) = stream.next().await {
        if let Delta::Content(t) = delta? {
            answer.push_str(&t);
        }
    }
    let Some(facts) = parse_facts(&answer) else {
        tracing::info!(session_id, "memory extraction answered something other than a list of facts; nothing saved");
        return Ok(());
    };
    for fact in facts {
        let proposed = match crate::memory::refuse_secret(&fact) {
            Ok(()) => app.store.write(move |tx| memories::propose(tx, &fact, mode, Some(session_id), Some(question_id))).await,
            Err(e) => Err(e),
        };
        if let Err(e) = proposed {
            // A secret, or too long: the refusal is the point; nothing is saved.
            tracing::info!(session_id, code = %e.code(), "an extracted fact was not kept");
        }
    }
    Ok(())
}

/// The last question, when it has a complete answer and the turn did not use the memory tools
/// (the model already took care of memory): its id is the facts' source.
fn last_question(history: &[messages::Message]) -> Option<i64> {
    let question = history.iter().rposition(|m| m.role == Role::User)?;
    let after = &history[question + 1..];
    if after.iter().any(|m| m.tool_name.as_deref().is_some_and(|t| MEMORY_TOOLS.contains(&t))) {
        return None;
    }
    after.iter().rfind(|m| m.role == Role::Assistant && m.status == Status::Complete && !m.content.is_empty())?;
    Some(history[question].id)
}
