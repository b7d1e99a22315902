//! Keeping a long chat inside the model's window: the plan (`plan`) says when, this writes the
//! summaries (`prompts/summarize.md`) that stand in for the oldest turns, and builds the system
//! prompt they follow. The inspector previews the same plan.

use std::sync::Arc;

use futures_util::StreamExt;

use super::plan;
use crate::app::App;
use crate::error::{Error, Result};
use crate::llm::{CancellationToken, ChatMessage, ChatRequest, Delta};
use crate::prompt::render::estimate_tokens;
use crate::prompt::tokens::Counter;
use crate::store::messages::{self, Role, Status};
use crate::store::settings::Settings;
use crate::store::summaries;

use super::machine::Halt;

/// What keeps a request inside the model's window: the summaries a long chat needs.
pub(super) struct Context<'a> {
    pub app: &'a Arc<App>,
    pub client: &'a crate::llm::Client,
    pub model: &'a str,
    pub session_id: i64,
    pub cancel: &'a CancellationToken,
    /// The model's context length; `None` when neither the server nor the settings say.
    pub window: Option<u32>,
    pub reserve: usize,
    /// The tools offered, in tokens.
    pub tools: usize,
    /// Counts with the server's tokenizer where it has counted the text before.
    pub counter: Counter<'a>,
    /// False for a temporary chat, which keeps no summary: its requests go as they are.
    pub summarise: bool,
}

impl Context<'_> {
    /// The session's summaries, after writing the ones the plan needs (`squeeze`: after an
    /// overflow, everything but the last turn is summarised).
    pub async fn fit(
        &mut self,
        prompt: &str,
        history: &[messages::Message],
        mut stored: Vec<summaries::Summary>,
        squeeze: bool,
    ) -> Result<Vec<summaries::Summary>, Halt> {
        let Some(window) = self.window.filter(|_| self.summarise) else { return Ok(stored) };
        let items: Vec<plan::Item> = history.iter().map(|m| plan_item(m, &mut self.counter)).collect();
        for _ in 0..4 {
            let through = stored.last().map(|s| s.through_id);
            let summary_tokens: usize = stored.iter().map(|s| self.counter.tokens(&s.content)).sum();
            let window = plan::Window { context: window as usize, reserve: self.reserve };
            let fixed = plan::Fixed { system: self.counter.tokens(prompt), tools: self.tools, summaries: summary_tokens };
            let end = match plan::plan(window, fixed, through, &items) {
                plan::Plan::Compact { end } => end,
                plan::Plan::Fits(_) if squeeze => match items.iter().rposition(|i| i.starts_turn) {
                    Some(last) if history.get(last.wrapping_sub(1)).is_some_and(|m| through.is_none_or(|t| m.id > t)) => last,
                    _ => return Ok(stored),
                },
                plan::Plan::Fits(_) => return Ok(stored),
            };
            let first = history.iter().position(|m| through.is_none_or(|t| m.id > t)).unwrap_or(0);
            if end <= first {
                return Ok(stored);
            }
            let summary = self.summarise(&history[first..end], window.context).await?;
            stored.push(summary);
            if squeeze {
                return Ok(stored);
            }
        }
        Ok(stored)
    }

    /// The tokens a next message may have and still be sent without summarising first, after a
    /// round with `history` that `answer` answered (`usize::MAX` when the window is unknown).
    pub fn room_after(&mut self, prompt: &str, history: &[messages::Message], stored: &[summaries::Summary], answer: &str) -> usize {
        let Some(window) = self.window else { return usize::MAX };
        let limit = ((window as f64 * plan::FILL) as usize).saturating_sub(self.reserve);
        let through = stored.last().map(|s| s.through_id);
        let history: usize =
            history.iter().filter(|m| through.is_none_or(|t| m.id > t)).map(|m| plan_item(m, &mut self.counter).tokens).sum();
        let summaries: usize = stored.iter().map(|s| self.counter.tokens(&s.content)).sum();
        let fixed = self.counter.tokens(prompt) + self.tools + summaries;
        limit.saturating_sub(fixed + history + self.counter.tokens(answer) + 8)
    }

    /// Asks the model for a summary of `part` and stores it for the session.
    async fn summarise(&self, part: &[messages::Message], context: usize) -> Result<summaries::Summary, Halt> {
        let templates = &self.app.templates;
        let said: Vec<_> = part
            .iter()
            .filter(|m| matches!(m.role, Role::User | Role::Assistant) && !m.content.trim().is_empty())
            .map(|m| serde_json::json!({ "user": m.role == Role::User, "text": m.content.trim() }))
            .collect();
        let mut transcript = templates.render("summary_transcript", &serde_json::json!({ "messages": said }))?;
        // The part itself must fit the window: keep its end when it does not.
        let limit = context / 2;
        while estimate_tokens(&transcript) > limit {
            let cut = transcript.char_indices().nth(transcript.chars().count() / 4).map_or(transcript.len(), |(i, _)| i);
            transcript.drain(..cut);
        }
        let system = templates.render("summarize", &serde_json::json!({ "max_words": 150 }))?;
        let mut request = ChatRequest::new(self.model, vec![ChatMessage::system(system), ChatMessage::user(transcript)]);
        request.max_tokens = Some(400);
        request.temperature = Some(0.2);
        let mut text = String::new();
        let mut stream = self.client.stream_chat(&request, self.cancel.clone()).await.map_err(Error::from)?;
        while let Some(delta) = stream.next().await {
            if let Delta::Content(t) = delta.map_err(Error::from)? {
                text.push_str(&t);
            }
        }
        let turns = part.iter().filter(|m| m.role == Role::User).count() as i64;
        if text.trim().is_empty() {
            text = templates.render("summary_missing", &serde_json::json!({ "turns": turns }))?;
        }
        let (session_id, through) = (self.session_id, part.last().map_or(0, |m| m.id));
        let content = text.trim().to_string();
        Ok(self.app.store.write(move |tx| summaries::add(tx, session_id, through, turns, &content)).await?)
    }
}

/// What compacting on request did.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct Compacted {
    /// False when there was nothing older than the last turn left to summarise.
    pub compacted: bool,
    /// The chat's summaries now, oldest first.
    pub summaries: Vec<summaries::Summary>,
}

/// The window assumed when neither the server nor the settings say: it only sizes how much of
/// the chat one summary request may quote.
const UNKNOWN_WINDOW: u32 = 8_192;

/// Summarises everything but the chat's last turn now, as the automatic compaction does near the
/// window's end. Refused with `turn_running` while a reply is being written in the chat; stop
/// stops it. Your messages are all kept; only what the model is sent changes.
pub async fn now(app: &Arc<App>, session_id: i64) -> Result<Compacted> {
    let slot = app.runs.hold(session_id)?;
    let templates = app.templates.clone();
    let today = chrono::Local::now().date_naive();
    let settings = app
        .store
        .read(move |c| {
            let session = crate::store::sessions::get(c, session_id)?;
            if session.temporary {
                return Err(crate::error::Error::conflict(
                    crate::error::Code::TemporaryChat,
                    "a temporary chat keeps no summaries; keep the chat first to compact it",
                ));
            }
            crate::store::settings::for_chat(c, &session)
        })
        .await?;
    let client = app.llm_client(&settings);
    let model = app.resolve_model(&client, &settings).await?;
    let window = match settings.context_length {
        Some(n) => Some(n),
        None => app.clients.context_length(&client, &settings.server.base_url, &model).await,
    };
    // The prompt the next turn sends, under the budgets its window gives it.
    let shared = app.clone();
    let (settings, prompt, stored, history, offer) = app
        .store
        .read(move |c| {
            let session = crate::store::sessions::get(c, session_id)?;
            let offer = crate::tools::Offer::for_session(c, &session, &settings)?;
            let servers: Vec<_> = crate::store::tool_servers::list(c)?.into_iter().filter(|s| s.on_in(session.project_id)).collect();
            let budgets = super::window::budgets(&shared, &settings, offer, &servers, session.project_id, window);
            let (_, report) = crate::prompt::render_current(c, &templates, session_id, today, &budgets)?;
            let stored = summaries::list(c, session_id)?;
            let history = messages::history_after(c, session_id, stored.last().map_or(0, |s| s.through_id))?;
            Ok((settings, report.rendered.text, stored, history, offer))
        })
        .await?;
    let before = stored.len();
    let mut counter = Counter::new(&app.tokens, &settings.server.base_url, &model);
    let tools = app.tools.specs(&offer).iter().map(|t| counter.tokens(&tool_json(t))).sum();
    let mut context = Context {
        app,
        client: &client,
        model: &model,
        session_id,
        cancel: &slot.cancel,
        window: window.or(Some(UNKNOWN_WINDOW)),
        reserve: 0,
        tools,
        counter,
        summarise: true,
    };
    let summaries = context.fit(&prompt, &history, stored, true).await.map_err(|halt| match halt {
        Halt::Failed(e, _) => e,
        Halt::ReplyGone => Error::NotFound { what: "session", id: session_id },
        // Only a turn's first request waits on a commit; fitting never sends one.
        Halt::Refused => Error::Internal(anyhow::anyhow!("compacting does not start a turn")),
    })?;
    Ok(Compacted { compacted: summaries.len() > before, summaries })
}

/// The system prompt followed by the summaries, and the history they do not cover.
pub(super) fn with_summaries<'h>(
    templates: &crate::prompt::Templates,
    prompt: &str,
    stored: &[summaries::Summary],
    history: &'h [messages::Message],
) -> Result<(String, &'h [messages::Message])> {
    let Some(last) = stored.last() else { return Ok((prompt.to_string(), history)) };
    let texts: Vec<&str> = stored.iter().map(|s| s.content.as_str()).collect();
    let section = templates.render("summaries", &serde_json::json!({ "summaries": texts }))?;
    let first = history.iter().position(|m| m.id > last.through_id).unwrap_or(history.len());
    Ok((format!("{prompt}\n\n{}", section.trim_end()), &history[first..]))
}

/// The token plan of a session's next request, for the inspector: `None` when the window is
/// unknown. The bool says whether older turns will be summarised first; the offer, whether
/// summarising now can make room.
pub fn plan_preview(
    settings: &Settings,
    window: Option<u32>,
    counter: &mut Counter,
    prompt: &str,
    tools: usize,
    stored: &[summaries::Summary],
    history: &[messages::Message],
) -> (Option<(plan::TokenPlan, bool)>, plan::CompactOffer) {
    let items: Vec<plan::Item> = history.iter().filter(|m| m.status != Status::Streaming).map(|m| plan_item(m, counter)).collect();
    let summaries = stored.iter().map(|s| counter.tokens(&s.content)).sum();
    let fixed = plan::Fixed { system: counter.tokens(prompt), tools, summaries };
    let w = window.map(|window| plan::Window { context: window as usize, reserve: reserve(settings, Some(window)) });
    let through = stored.last().map(|s| s.through_id);
    (w.map(|w| plan::preview(w, fixed, through, &items)), plan::compact_offer(w, fixed, through, &items))
}

/// A tool as it is sent: its name, description and argument schema as JSON.
pub fn tool_json(tool: &crate::llm::ToolSpec) -> String {
    serde_json::to_string(tool).unwrap_or_default()
}

/// A stored message's size in a request: its text and time note counted (see `counted_texts`),
/// its tool calls' arguments, images and the chat template's markers estimated.
fn plan_item(m: &messages::Message, counter: &mut Counter) -> plan::Item {
    let extra: usize = m.tool_calls.iter().map(|c| estimate_tokens(&c.arguments) + 8).sum::<usize>() + m.images.len() * 800;
    let counted: usize = counted_texts(m).into_iter().map(|t| counter.tokens(t)).sum();
    plan::Item { id: m.id, tokens: counted + extra + 8, starts_turn: m.role == Role::User }
}

/// The texts of a message the plan counts, the ones the server's tokenizer is asked about.
fn counted_texts(m: &messages::Message) -> [&str; 2] {
    [&m.content, m.runtime_note.as_deref().unwrap_or("")]
}

/// Every text the plan of a request counts: what to ask the server's tokenizer about.
pub fn plan_texts<'t>(
    prompt: &'t str,
    tools: &'t [String],
    stored: &'t [summaries::Summary],
    history: &'t [messages::Message],
) -> Vec<&'t str> {
    let mut texts = vec![prompt];
    texts.extend(tools.iter().map(String::as_str));
    texts.extend(stored.iter().map(|s| s.content.as_str()));
    texts.extend(history.iter().flat_map(counted_texts));
    texts
}

/// Tokens kept free for the reply: its limit from settings, or a quarter of the window (at most
/// 2,048).
pub(super) fn reserve(settings: &Settings, window: Option<u32>) -> usize {
    let quarter = window.map_or(2048, |w| (w as usize / 4).min(2048));
    settings.max_tokens.map_or(quarter, |m| m as usize).min(quarter.max(256) * 2)
}

/// A request's size as the estimate counts it (when the server gave no window, an overflow
/// tells us it is smaller than this).
pub(super) fn estimate_request(request: &ChatRequest) -> usize {
    serde_json::to_string(&request.messages).map_or(0, |j| estimate_tokens(&j))
}
