//! A turn's rounds: each sends a request and streams its reply; the machine (`machine`) decides
//! how the reply ends and what follows (another request after compacting, the tools, the end);
//! this does what it decides: compacts, sends, stores, runs the tools and reports.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::begin::Committing;
use super::compact;
use super::history;
use super::machine::{Halt, Next, Step, Turn};
use super::reply::{Ended, Reply};
use super::round::{image_urls, open_round, Round};
use super::tool_results;
use super::tool_search;
use crate::app::{App, Feed, ToolContext, TurnEvent};
use crate::llm::{CancellationToken, ChatRequest, ToolCall, ToolSpec};
use crate::prompt::tokens::Recount;
use crate::store::settings::Settings;
use crate::store::summaries;
use crate::tools::servers::Offered;

/// A turn that answered: its conversation as the next turn will send it (the last request and
/// its answer), the recount of the next plan's texts, and its first request as it went out.
pub(super) struct Answered {
    pub(super) chat: ChatRequest,
    pub(super) recount: Recount,
    pub(super) first: Option<Vec<u8>>,
    /// The tokens the next message may have and be sent without summarising first.
    pub(super) room: usize,
    /// The day its prompts were written for, when all were for the same one.
    pub(super) day: Option<chrono::NaiveDate>,
    /// Whether it offered tools of the user's tool servers.
    pub(super) tool_servers: bool,
}

/// What every round of one turn works with.
pub(super) struct Rounds<'a> {
    pub(super) app: &'a Arc<App>,
    pub(super) session_id: i64,
    pub(super) settings: &'a Settings,
    pub(super) cancel: &'a CancellationToken,
    pub(super) feed: &'a Feed,
    client: crate::llm::Client,
    /// The user's tool servers' tools, fixed for the turn (read with its first round).
    servers: Option<Vec<Offered>>,
    /// Their names this chat has called before this turn (listed even past the tools' budget).
    used: Option<BTreeSet<String>>,
    /// Their names `search_tools` found in this turn: listed from the next request on.
    found: Mutex<BTreeSet<String>>,
}

/// A round's request as it last went out, and how its reply ended.
struct Sent {
    ended: Ended,
    next: Next,
    request: ChatRequest,
    body: Vec<u8>,
    reply_id: i64,
}

/// What a round offers the model: the tools' specs, and their text as the plan counts it.
struct RoundTools {
    specs: Vec<ToolSpec>,
    texts: Vec<String>,
}

impl<'a> Rounds<'a> {
    pub(super) fn new(
        app: &'a Arc<App>,
        session_id: i64,
        settings: &'a Settings,
        cancel: &'a CancellationToken,
        feed: &'a Feed,
    ) -> Rounds<'a> {
        Rounds {
            app,
            session_id,
            settings,
            cancel,
            feed,
            client: app.llm_client(settings),
            servers: None,
            used: None,
            found: Mutex::default(),
        }
    }

    /// Drives the turn's machine: each round streams a reply, the machine decides how it ends
    /// and what follows, and this stores it, runs the tools and reports. A turn that answered
    /// gives back its conversation as the next turn will send it (the last request and its
    /// answer): background requests begin with it, so they reuse the server's cached prompt and
    /// leave it in place.
    pub(super) async fn run(&mut self, mut next: Option<Round>, committing: &mut Option<Committing>) -> Result<Option<Answered>, Halt> {
        let mut turn = Turn::default();
        let mut step = turn.start();
        // The first round's request as it last went out, and the day its prompt was written for.
        let (mut round, mut first, mut first_day) = (0, None, chrono::NaiveDate::MIN);
        loop {
            let opened = match next.take() {
                Some(opened) => opened,
                None => self.open().await?,
            };
            let (tools_allowed, day, project_id) =
                (matches!(step, Step::Request { tools_allowed: true, .. }), opened.day, opened.project_id);
            let (prompt, history, window) = (opened.prompt.clone(), opened.history.clone(), self.window(&opened.model).await);
            let offered = self.offer(&opened).await;
            let model = opened.model.clone();
            let mut context = self.context(&model, window, &offered, !opened.temporary);
            let mut stored = opened.summaries.clone();
            let sent = self.send(opened, &mut turn, &mut step, tools_allowed, &offered, &mut context, &mut stored, committing).await?;
            if round == 0 {
                first = Some(sent.body.clone());
                first_day = day;
            }
            let Sent { ended, next: then, request, reply_id, .. } = sent;
            match then {
                Next::Failed => {
                    self.report_failure(&ended, reply_id);
                    return Ok(None);
                }
                Next::Done => {
                    let texts = compact::plan_texts(&prompt, &offered.texts, &stored, &history).into_iter().map(str::to_owned).collect();
                    let room = context.room_after(&prompt, &history, &stored, &ended.message.content);
                    let scope = context.counter.scope().to_string();
                    let day = Some(day).filter(|d| *d == first_day);
                    return Ok(Some(self.answered(ended, request, texts, scope, model, room, first, day)));
                }
                Next::RunTools => {}
            }
            self.run_tools(&ended.message.tool_calls, project_id, reply_id).await?;
            step = turn.tools_done();
            round += 1;
        }
    }

    /// A round after the first: its reply is stored with what it answers, in one transaction.
    async fn open(&self) -> Result<Round, Halt> {
        let model = self.app.resolve_model(&self.client, self.settings).await?;
        let window = self.window(&model).await;
        let (app, settings, session_id) = (self.app.clone(), self.settings.clone(), self.session_id);
        Ok(self.app.store.write(move |tx| open_round(tx, &app, session_id, model, window, &settings)).await?)
    }

    /// The model's context length, from the settings or the server.
    async fn window(&self, model: &str) -> Option<u32> {
        match self.settings.context_length {
            Some(n) => Some(n),
            // A stop (or closing Maru) must not wait on a server that takes the question and
            // never answers: the reply then ends as stopped.
            None => tokio::select! {
                window = self.app.clients.context_length(&self.client, &self.settings.server.base_url, model) => window,
                () = self.cancel.cancelled() => None,
            },
        }
    }

    /// The same tools every round, so that every tool the prompt names is offered (the last
    /// round forbids calling them); past the tools' budget, the servers' tools this chat used or
    /// found, and `search_tools` for the others.
    async fn offer(&mut self, round: &Round) -> RoundTools {
        if self.servers.is_none() {
            let on = round.servers.clone();
            self.servers = Some(if on.is_empty() { vec![] } else { self.app.tool_servers.offered(on).await });
            self.used = Some(round.history.iter().filter_map(|m| m.tool_name.clone()).collect());
        }
        let from_servers = self.servers.as_deref().unwrap_or_default();
        let mut offer = round.offer;
        offer.servers = !from_servers.is_empty();
        let mut specs = self.app.tools.specs(&offer);
        let found = self.found.lock().expect("the found tools' lock").clone();
        let used = self.used.clone().unwrap_or_default();
        let budget = self.settings.tool_schema_budget_tokens as usize;
        let (listed, search) = tool_search::select(&specs, from_servers, budget, &used, &found, &self.app.templates);
        specs.extend(search);
        specs.extend(listed.into_iter().map(|o| o.spec.clone()));
        let texts = specs.iter().map(compact::tool_json).collect();
        RoundTools { specs, texts }
    }

    /// What keeps the round's request in the model's window (`summarise`: not in a temporary chat).
    fn context<'c>(&'c self, model: &'c str, window: Option<u32>, offered: &RoundTools, summarise: bool) -> compact::Context<'c> {
        let mut counter = crate::prompt::tokens::Counter::new(&self.app.tokens, &self.settings.server.base_url, model);
        let tools = offered.texts.iter().map(|t| counter.tokens(t)).sum();
        compact::Context {
            app: self.app,
            client: &self.client,
            model,
            session_id: self.session_id,
            cancel: self.cancel,
            window,
            reserve: compact::reserve(self.settings, window),
            tools,
            counter,
            summarise,
        }
    }

    /// The round's request, again after compacting everything but the last turn when the
    /// machine says so (the server's window was full), streamed and stored as the machine ends it.
    #[allow(clippy::too_many_arguments)]
    async fn send(
        &self,
        round: Round,
        turn: &mut Turn,
        step: &mut Step,
        tools_allowed: bool,
        offered: &RoundTools,
        context: &mut compact::Context<'_>,
        stored: &mut Vec<summaries::Summary>,
        committing: &mut Option<Committing>,
    ) -> Result<Sent, Halt> {
        let images = image_urls(self.app, round.images).await.map_err(|e| Halt::Failed(e, round.reply_id))?;
        let mut reply_id = round.reply_id;
        loop {
            let Step::Request { compact_all, .. } = *step else { unreachable!("a round streams after a request") };
            let fitted = async {
                let summaries = context.fit(&round.prompt, &round.history, stored.clone(), compact_all).await?;
                let (system, sent) = compact::with_summaries(&self.app.templates, &round.prompt, &summaries, &round.history)?;
                Ok::<_, Halt>((summaries, history::request_messages(&self.app.templates, &system, sent, &images)?))
            };
            let (summaries, messages) = fitted.await.map_err(|halt| halt.in_reply(reply_id))?;
            stored.clone_from(&summaries);
            let request = self.request(&round.model, messages, offered, tools_allowed);
            let body = request.body();
            let (sent_at, opened, shown, id) = self.open_stream(&round.model, &body, reply_id, committing).await?;
            reply_id = Some(id);
            let reply = Reply {
                app: self.app,
                server: &self.settings.server,
                session_id: self.session_id,
                id,
                cancel: self.cancel,
                feed: self.feed,
            };
            let streamed = reply.stream(sent_at, opened, shown).await.map_err(|halt| halt.in_reply(Some(id)))?;
            *step = turn.streamed(streamed.outcome.clone());
            match &*step {
                Step::Request { .. } => {
                    tracing::info!(session_id = self.session_id, "the server's window was full: compacting once and retrying");
                    context.window = context.window.or(Some(compact::estimate_request(&request) as u32));
                }
                Step::End { ending, next } => {
                    let ended = reply.end(streamed, ending).await.map_err(|halt| halt.in_reply(Some(id)))?;
                    return Ok(Sent { ended, next: *next, request, body, reply_id: id });
                }
            }
        }
    }

    fn request(&self, model: &str, messages: Vec<crate::llm::ChatMessage>, offered: &RoundTools, tools_allowed: bool) -> ChatRequest {
        let mut request = ChatRequest::new(model.to_string(), messages);
        request.temperature = self.settings.temperature;
        request.top_p = self.settings.top_p;
        request.max_tokens = self.settings.max_tokens;
        request.tools = offered.specs.clone();
        if !tools_allowed {
            request.tool_choice = Some("none".into());
        }
        request
    }

    /// Sends `body` (or takes the answer to the same request sent ahead) and, for the first
    /// round, settles the turn's first transaction, which stores its reply once the request has
    /// gone out. Gives when it went out, the stream, the first words shown already, the reply.
    async fn open_stream(
        &self,
        model: &str,
        body: &[u8],
        reply_id: Option<i64>,
        committing: &mut Option<Committing>,
    ) -> Result<(Instant, Result<crate::llm::ChatStream, crate::llm::LlmError>, Option<(String, Instant)>, i64), Halt> {
        let mut sent = Instant::now();
        if let Some(id) = reply_id {
            return Ok((sent, self.client.stream_chat_body(body.to_vec(), model, self.cancel.clone(), None).await, None, id));
        }
        let mut committing = committing.take().expect("only the first round's reply is stored while it is sent");
        let mut on_sent = committing.sent.take();
        let ahead = committing.ahead.take();
        // The first words, when shown before the turn's transaction (see `ahead`).
        let mut shown = None;
        let sending = async {
            match ahead {
                // Gone out already: the commit need not wait for it.
                Some(ahead) if ahead.is(body) => {
                    on_sent.take();
                    sent = ahead.at;
                    let (opened, words) = ahead.answer().await;
                    shown = words;
                    opened
                }
                // Not this request: dropped, its connection closes. (Words of it shown already,
                // which only a change outside the store since it went out can cause, are not
                // stored: the reply holds this request's answer alone, as the chat shows it
                // once read again.)
                _ => self.client.stream_chat_body(body.to_vec(), model, self.cancel.clone(), on_sent.take()).await,
            }
        };
        let (opened, id) = tokio::join!(sending, committing.settle());
        Ok((sent, opened, shown, id?))
    }

    fn report_failure(&self, ended: &Ended, reply_id: i64) {
        let code = ended.error_code.clone().unwrap_or_default();
        tracing::warn!(message_id = reply_id, code, "reply failed: {}", ended.error.as_deref().unwrap_or(""));
        self.feed.push(TurnEvent::Error {
            code,
            message: ended.error.clone().unwrap_or_default(),
            message_id: Some(reply_id),
            nothing_stored: false,
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn answered(
        &self,
        ended: Ended,
        request: ChatRequest,
        mut texts: Vec<String>,
        scope: String,
        model: String,
        room: usize,
        first: Option<Vec<u8>>,
        day: Option<chrono::NaiveDate>,
    ) -> Answered {
        let mut chat = request;
        chat.messages.push(crate::llm::ChatMessage::assistant(ended.message.content.clone()));
        // What the next turn's plan will count, for the server's tokenizer after this one.
        texts.push(ended.message.content.clone());
        self.feed.push(TurnEvent::Done { message: Box::new(ended.message) });
        let recount = Recount { client: self.client.clone(), scope, model, texts };
        let tool_servers = self.servers.as_deref().is_some_and(|s| !s.is_empty());
        Answered { chat, recount, first, room, day, tool_servers }
    }

    /// Runs the reply's tool calls in order, storing each result as the next round will send it.
    async fn run_tools(&self, calls: &[ToolCall], project_id: i64, reply_id: i64) -> Result<(), Halt> {
        let ctx = ToolContext { session_id: self.session_id, project_id, message_id: Some(reply_id), store: self.app.store.clone() };
        for call in calls {
            self.feed.push(TurnEvent::ToolCall { id: call.id.clone(), name: call.name.clone(), arguments: call.arguments.clone() });
            let servers = self.servers.as_deref().unwrap_or_default();
            let reply = match servers.iter().find(|o| o.spec.name == call.name) {
                None if call.name == tool_search::NAME && !servers.is_empty() => {
                    tool_search::call(&self.app.templates, servers, &call.arguments).map(|(reply, names)| {
                        self.found.lock().expect("the found tools' lock").extend(names);
                        reply
                    })
                }
                Some(offered) => {
                    super::server_tools::call(self.app, offered, call, self.session_id, self.settings, self.cancel, self.feed).await
                }
                None => self.app.tools.run(ctx.clone(), &call.name, &call.arguments).await,
            };
            let reply = reply.unwrap_or_else(|failed| failed);
            let is_error = reply.did.failed();
            let result = if is_error { format!("error: {}", reply.text) } else { reply.text };
            let stored = tool_results::store(self.app, self.session_id, self.settings.tool_output_inline_tokens, call, result, reply.did);
            let Some((content, outcome)) = stored.await? else {
                return Err(Halt::ReplyGone);
            };
            self.feed.push(TurnEvent::ToolResult { id: call.id.clone(), name: call.name.clone(), content, is_error, outcome });
        }
        Ok(())
    }
}
