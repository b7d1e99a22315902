//! Runs one turn: the driver of `machine`, which decides; this does the I/O. [`start`] does the
//! checks and the writes that must happen before anything is streamed (so errors come back as
//! plain API errors), then streams in the same task and hands back a listener on its events.
//!
//! The turn never waits for a listener (see `app::events`) and writes only to the reply it
//! created: every save names the reply and its session and stops the turn when the reply is
//! gone (its chat was deleted), so nothing it writes can land in another chat.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;

use super::ahead::SentAhead;
use super::compact;
use super::history;
use super::machine::{Ending, Failure, Next, Step, Streamed, Turn};
use super::title;
use crate::app::{App, Feed, Offer, RunGuard, ToolContext, TurnEvent, TurnStream};
use crate::error::{Code, Error, Result};
use crate::llm::{CancellationToken, ChatRequest, Delta, LlmError, ToolCall};
use crate::prompt::tokens::Recount;
use crate::prompt::{self, Budgets};
use crate::store::messages::{self, NewMessage, ReplyStats, Role, Status, CONTENT_MAX_CHARS};
use crate::store::settings::{self, Settings};
use crate::store::{attachments, sessions, summaries, tool_outputs, tool_servers, turns};
use crate::tools::{output, ToolOutcome};

use super::machine::Halt;
pub use super::machine::TurnKind;
pub use super::machine::MAX_TOOL_ROUNDS;
/// Partial replies are saved at most this often, so a crash loses at most this much text.
const SAVE_EVERY: Duration = Duration::from_millis(250);

/// Starts a turn; the stream yields its events and ends when the turn has ended.
///
/// The turn runs in its own task from the first check on: a caller that goes away (a client
/// that closes its socket right after sending) cannot cut it between storing the question and
/// streaming the reply. Either it is refused before anything is stored, or it runs.
///
/// The caller is answered once the turn's first transaction has committed. When that
/// transaction opens the first round, it commits once the request has gone out (the commit is
/// off the time to first token), and nothing the server answers is read before it has. A turn
/// whose request went out ahead may answer at once and show the first words before its
/// transaction (`ahead`): what fails after that is told in its events.
pub async fn start(app: Arc<App>, session_id: i64, kind: TurnKind) -> Result<TurnStream> {
    let (answer, started) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let mut answer = Some(answer);
        match begin(app.clone(), session_id, kind, &mut answer).await {
            Ok((guard, settings, first, commit, ahead)) => {
                let committing = match commit {
                    Some(reply_id) => Some(Committing::start(reply_id, &guard.feed, answer, ahead)),
                    None => {
                        // No one listening is fine: the turn writes into the store either way.
                        if let Some(answer) = answer {
                            let _ = answer.send(Ok(guard.feed.subscribe()));
                        }
                        None
                    }
                };
                run(app, guard, session_id, settings, first, committing).await;
            }
            Err(e) => {
                // Taken: `begin` told it in the turn's events.
                if let Some(answer) = answer {
                    let _ = answer.send(Err(e));
                }
            }
        }
    });
    started.await.map_err(|_| Error::Internal(anyhow::anyhow!("the turn's task ended before it started")))?
}

/// The turn's first transaction, to commit once its first request has gone out.
struct Committing {
    /// The stored reply's id once committed; `None` when nothing was stored (the caller of
    /// [`start`] was told why).
    stored: tokio::task::JoinHandle<Option<i64>>,
    /// Tells the commit the first request has gone out.
    sent: Option<crate::llm::Sent>,
    /// The first request, when it went out before the transaction began (see `ahead`).
    ahead: Option<SentAhead>,
}

impl Committing {
    /// Commits `reply_id`'s transaction once told the request has gone out (or after
    /// [`STORE_REPLY_WITHIN`]), then answers the caller of [`start`]: with the turn's events
    /// (from `feed`), or with why nothing was stored (told in `feed` when answered already).
    fn start(reply_id: StoredReply, feed: &Feed, answer: Option<Answering>, ahead: Option<SentAhead>) -> Committing {
        let (sent, gone) = tokio::sync::oneshot::channel();
        let (listener, feed) = (feed.subscribe(), feed.clone());
        let stored = tokio::spawn(async move {
            let _ = tokio::time::timeout(STORE_REPLY_WITHIN, gone).await;
            let stored = reply_id.await;
            match answer {
                Some(answer) => {
                    let id = stored.as_ref().ok().copied();
                    let _ = answer.send(stored.map(|_| listener));
                    id
                }
                None => stored.map_err(|e| tell(&feed, &e)).ok(),
            }
        });
        Committing { stored, sent: Some(sent), ahead }
    }

    /// Waits for the commit: the stored reply's id, or `Halt::Refused` when nothing was stored
    /// (the turn then ends without another write).
    async fn settle(self) -> Result<i64, Halt> {
        let Committing { stored, sent, .. } = self;
        // Not sending (any longer): the commit need not wait for it.
        drop(sent);
        match stored.await {
            Ok(Some(id)) => Ok(id),
            _ => Err(Halt::Refused),
        }
    }
}

/// Answers the caller of [`start`].
type Answering = tokio::sync::oneshot::Sender<Result<TurnStream>>;

/// Tells `e` in the turn's events, to a caller answered already: the turn stored nothing.
fn tell(feed: &Feed, e: &Error) {
    feed.push(TurnEvent::Error { code: e.code().into_owned(), message: e.body().message, message_id: None, nothing_stored: true });
}

/// The id of the reply a transaction still open stores: it commits once polled.
type StoredReply = std::pin::Pin<Box<dyn std::future::Future<Output = Result<i64>> + Send>>;

type Began = (RunGuard, Settings, Option<Round>, Option<StoredReply>, Option<SentAhead>);

/// The first round's reply is stored once its request has gone out, or after this long when the
/// round has slower work to do first (a new model's window to ask, tool servers to start, a
/// chat to summarise): the turn's first transaction does not hold the writer through that.
const STORE_REPLY_WITHIN: Duration = Duration::from_millis(5);

/// The checks and writes before anything is streamed, holding the session's slot. With the
/// model known, the transaction hands over the first round as soon as it is read; the round
/// comes back with the rest of the transaction, which stores its reply, still to run (see
/// [`Committing`]).
async fn begin(app: Arc<App>, session_id: i64, kind: TurnKind, answer: &mut Option<Answering>) -> Result<Began> {
    let guard = app.runs.begin(session_id)?;
    // The time the user's message is stamped with, in the request sent ahead as in the store.
    let now = chrono::Local::now();
    let mut ahead = super::ahead::send(&app, session_id, &kind, now, &guard.cancel).await;
    if let Some(sent) = ahead.as_mut().filter(|sent| sent.shows_first) {
        if let Some(answer) = answer.take() {
            let _ = answer.send(Ok(guard.feed.subscribe()));
        }
        sent.show_first(&guard.feed).await;
    }
    // Answered already: what fails is told in the turn's events.
    let (answered, feed) = (answer.is_none(), guard.feed.clone());
    let told = |e: Error| {
        if answered {
            tell(&feed, &e);
        }
        e
    };
    let connect = ahead.is_none();
    if matches!(&kind, TurnKind::Send { images, .. } if !images.is_empty()) {
        check_model_sees_images(&app, session_id).await?;
    }
    let shared = app.clone();
    let (began, commit) = app
        .store
        .write_in_two(
            move |tx| first_step(tx, &shared, session_id, kind, now, connect),
            move |tx, Rest { model, server, branch_at }| {
                if let Some(last_user) = branch_at {
                    // The reply so far stays as an earlier version.
                    messages::branch_at(tx, session_id, Some(last_user))?;
                }
                // Until the turn stores how it ended: a crash before then is told from a deleted reply.
                turns::begin(tx, session_id)?;
                model.map(|model| insert_reply(tx, session_id, &model, &server)).transpose()
            },
        )
        .await
        .map_err(told)?;
    let (settings, first) = began;
    if first.is_none() {
        commit.await.map_err(told)?;
        return Ok((guard, settings, None, None, None));
    }
    let reply_id = async move { commit.await?.ok_or_else(|| Error::Internal(anyhow::anyhow!("the turn's reply was not stored"))) };
    Ok((guard, settings, first, Some(Box::pin(reply_id)), ahead))
}

/// What the first step gives the turn (its settings, and its first round when the model is
/// known), and what it leaves for the rest of the transaction.
type FirstStep = ((Settings, Option<Round>), Rest);

/// The rest of the turn's first transaction, after its round went out: a regenerate's branch,
/// and the reply's row (with the model and the server's name).
struct Rest {
    model: Option<String>,
    server: String,
    /// Regenerating: the user's message whose reply so far becomes an earlier version. The
    /// round, read before, leaves out what follows it.
    branch_at: Option<i64>,
}

/// The turn's first transaction up to its first round: the checks, the user's message (stamped
/// `now`; a regenerate's branch waits for the second step: see [`Rest`]) and, with the model
/// known, the round, whose connection opens meanwhile unless one is open already (`connect`:
/// no request was sent ahead).
fn first_step(
    tx: &rusqlite::Connection,
    app: &App,
    session_id: i64,
    kind: TurnKind,
    now: chrono::DateTime<chrono::Local>,
    connect: bool,
) -> Result<FirstStep> {
    let session = sessions::get(tx, session_id)?;
    // The session read here: the turn's own row, not a second query.
    let settings = settings::in_chat(tx, app.store.settings(tx)?, &session)?;
    settings::check_server_on(&settings)?;
    // With the model known without asking the server, the first round is read in this
    // same transaction: one store round trip from the call to the request.
    let model = app.clients.known_model(&settings.server.base_url, &settings.model);
    if model.is_some() && connect {
        app.llm_client(&settings).open_connection();
    }
    let mut branch_at = None;
    match kind {
        TurnKind::Send { content, images } => {
            check_content(&content)?;
            attachments::images_in_scope(tx, &images, session_id, session.project_id)?;
            insert_user(tx, session_id, &content, &images, &history::runtime_note(&app.templates, now)?)?;
            if session.title.is_empty() {
                sessions::set_title_if_empty(tx, session_id, &title::from_first_message(&content))?;
            }
        }
        TurnKind::Regenerate => {
            let last_user = messages::last_user_id(tx, session_id)?
                .ok_or_else(|| Error::invalid(Code::NothingToRegenerate, "this chat has no message to answer yet"))?;
            // Branched after the round is read and its request has gone out.
            branch_at = Some(last_user);
        }
        TurnKind::Resend { message_id, content } => {
            check_content(&content)?;
            let m = messages::get(tx, message_id)?;
            if m.session_id != session_id || m.role != Role::User {
                return Err(Error::invalid(Code::NotAUserMessage, "only your own messages in this chat can be edited and resent"));
            }
            // The edited message is a new version beside the old one, which keeps its
            // replies; it keeps the old one's images and is stamped with the new time.
            messages::choose(tx, message_id)?;
            messages::branch_at(tx, session_id, m.parent_id)?;
            insert_user(tx, session_id, &content, &m.images, &history::runtime_note(&app.templates, now)?)?;
        }
    }
    let first = match model.clone() {
        Some(model) => Some(read_round(tx, app, &session, model, &settings, branch_at)?),
        None => None,
    };
    let server = settings.server.name.clone();
    Ok(((settings, first), Rest { model, server, branch_at }))
}

/// The user's message, stamped with the time it is sent (`note`), which later requests repeat.
fn insert_user(tx: &rusqlite::Connection, session_id: i64, content: &str, images: &[i64], note: &str) -> Result<i64> {
    messages::insert_id(tx, &NewMessage { session_id, role: Role::User, content, runtime_note: Some(note), images, ..Default::default() })
}

/// What a round of the turn sends, and the stored reply that will hold its answer.
struct Round {
    model: String,
    prompt: String,
    history: Vec<messages::Message>,
    /// The session's summaries, oldest first; `history` starts after the last.
    summaries: Vec<summaries::Summary>,
    /// Images the history carries, read after the transaction.
    images: Vec<ImageRef>,
    project_id: i64,
    /// What the chat's tools have to work on (files, memory, skills).
    offer: Offer,
    /// The user's tool servers on in the chat's project.
    servers: Vec<crate::store::tool_servers::ToolServer>,
    /// The stored reply; `None` while the turn's first transaction is still storing it.
    reply_id: Option<i64>,
    /// The day the prompt was written for.
    day: chrono::NaiveDate,
    /// A temporary chat: never summarised.
    temporary: bool,
}

/// [`read_round`] and its new streaming reply: one transaction, so the reply and what it
/// answers belong together.
fn open_round(tx: &rusqlite::Transaction, app: &App, session_id: i64, model: String, settings: &Settings) -> Result<Round> {
    let session = sessions::get(tx, session_id)?;
    let mut round = read_round(tx, app, &session, model, settings, None)?;
    round.reply_id = Some(insert_reply(tx, session_id, &round.model, &settings.server.name)?);
    Ok(round)
}

/// The new streaming reply by `model` of the server named `server`: its id.
fn insert_reply(tx: &rusqlite::Connection, session_id: i64, model: &str, server: &str) -> Result<i64> {
    let reply = NewMessage {
        session_id,
        role: Role::Assistant,
        status: Status::Streaming,
        model: Some(model),
        server: Some(server),
        ..Default::default()
    };
    messages::insert_id(tx, &reply)
}

/// What a round sends: the prompt (reused while its inputs are unchanged), the history it
/// precedes, and what the chat's tools may work on, for `session` as this transaction read it
/// (only its id and project count, which a turn's writes never change). `ends_at`: the chat
/// as it is once a regenerate has branched after that message ([`messages::branch_at`]), which
/// this transaction does after the request has gone out.
fn read_round(
    tx: &rusqlite::Connection,
    app: &App,
    session: &sessions::Session,
    model: String,
    settings: &Settings,
    ends_at: Option<i64>,
) -> Result<Round> {
    let session_id = session.id;
    let today = chrono::Local::now().date_naive();
    let prepared = prompt::prepare(tx, &app.templates, &app.prompts, session_id, today, &Budgets::from_settings(settings))?;
    // Only what no summary covers: a long chat's older messages are not read at all.
    let mut summaries = summaries::list(tx, session_id)?;
    let kept = |id: i64| ends_at.is_none_or(|end| id <= end);
    // The branch forgets summaries of what it leaves, and the branch ends at `ends_at`: along
    // it, every later message has a larger id.
    summaries.retain(|s| kept(s.through_id));
    let mut history = messages::history_after(tx, session_id, summaries.last().map_or(0, |s| s.through_id))?;
    history.retain(|m| kept(m.id));
    let images = image_refs(tx, &history)?;
    let offer = Offer::for_session(tx, session, settings)?;
    let servers = tool_servers::list(tx)?.into_iter().filter(|s| s.on_in(session.project_id)).collect();
    Ok(Round {
        model,
        prompt: prepared.rendered.text.clone(),
        history,
        summaries,
        images,
        project_id: session.project_id,
        offer,
        servers,
        reply_id: None,
        day: today,
        temporary: session.temporary,
    })
}

/// An image the history carries: its attachment's id, name, content sha256 and MIME type.
struct ImageRef {
    id: i64,
    name: String,
    sha256: String,
    mime: String,
}

/// The images the history's messages carry. Their files are read after the transaction
/// (`image_urls`), not while it holds the writer.
fn image_refs(conn: &rusqlite::Connection, history: &[messages::Message]) -> Result<Vec<ImageRef>> {
    let mut refs: Vec<ImageRef> = vec![];
    for id in history.iter().flat_map(|m| m.images.iter().copied()) {
        if !refs.iter().any(|r| r.id == id) {
            let a = attachments::get(conn, id)?;
            refs.push(ImageRef { id, name: a.name, sha256: a.sha256, mime: a.mime });
        }
    }
    Ok(refs)
}

/// The images as the `data:` URLs a request carries, by attachment id.
async fn image_urls(app: &Arc<App>, refs: Vec<ImageRef>) -> Result<history::Images> {
    if refs.is_empty() {
        return Ok(history::Images::new());
    }
    let app = app.clone();
    tokio::task::spawn_blocking(move || {
        use base64::Engine;
        let mut urls = history::Images::new();
        for ImageRef { id, name, sha256, mime } in refs {
            let bytes = app.files.blobs.read(&sha256, &name)?;
            urls.insert(id, format!("data:{mime};base64,{}", base64::engine::general_purpose::STANDARD.encode(bytes)));
        }
        Ok(urls)
    })
    .await
    .map_err(|e| Error::Internal(anyhow::anyhow!("reading images failed: {e}")))?
}

/// Refuses images before anything is stored when the model is known not to see them.
async fn check_model_sees_images(app: &App, session_id: i64) -> Result<()> {
    let settings = app.store.read(move |c| settings::for_session(c, session_id)).await?;
    // A server turned off is not asked, even about its model.
    settings::check_server_on(&settings)?;
    let client = app.llm_client(&settings);
    let model = app.resolve_model(&client, &settings).await?;
    if client.accepts_images(&model).await == Some(false) {
        return Err(Error::invalid(
            Code::ImagesUnsupported,
            format!("the model {model} does not take images; choose a vision model in settings, or send the message without them"),
        )
        .with("model", model));
    }
    Ok(())
}

fn check_content(content: &str) -> Result<()> {
    if content.trim().is_empty() {
        return Err(Error::invalid(Code::EmptyMessage, "the message is empty"));
    }
    Ok(())
}

async fn run(
    app: Arc<App>,
    guard: RunGuard,
    session_id: i64,
    settings: Settings,
    first: Option<Round>,
    mut committing: Option<Committing>,
) {
    let RunGuard { ref cancel, ref feed, .. } = guard;
    let mut outcome = run_rounds(&app, session_id, &settings, first, &mut committing, cancel, feed).await;
    // Failed before its first request went out: the caller still waits for the commit, which
    // stored the reply that is to tell why.
    if let Some(committing) = committing {
        outcome = match committing.settle().await {
            Ok(id) => outcome.map_err(|halt| halt.in_reply(Some(id))),
            Err(refused) => Err(refused),
        };
    }
    let mut answered = None;
    match outcome {
        Ok(Some(Answered { chat, recount, first, room, day, tool_servers })) if !cancel.is_cancelled() => {
            answered = first.map(|first| (first, chat.clone(), room, day, tool_servers));
            super::extract::after_turn(
                app.clone(),
                session_id,
                chat,
                settings.memory_mode != crate::store::settings::MemoryMode::Off,
                recount,
            )
        }
        Ok(_) => {}
        Err(Halt::Refused) => return,
        Err(Halt::ReplyGone) => {
            tracing::info!(session_id, "the reply was deleted while streaming; the turn ends without writing");
            feed.push(TurnEvent::Error {
                code: crate::error::Code::ReplyDeleted.as_str().into(),
                message: "this reply was deleted while it was being written".into(),
                message_id: None,
                nothing_stored: false,
            });
        }
        Err(Halt::Failed(e, reply)) => {
            // Failed before or between replies (server down, no model, an image that cannot be
            // read…): the chat shows why, as a failed reply under the user's message, which
            // stays. That is the round's own reply when it had stored one.
            tracing::warn!(session_id, code = %e.code(), "turn failed: {e}");
            let text = e.body().message;
            let code = e.code().into_owned();
            // The server that failed: the failed reply says which, as its error does.
            let server = settings.server.name.clone();
            let stored = app
                .store
                .write(move |tx| {
                    let (id, kept) = match reply {
                        // Whatever it holds already stays (text saved before the store failed).
                        Some(id) => match messages::get(tx, id) {
                            Ok(m) => (id, m.content),
                            Err(_) => return Ok(None),
                        },
                        None => {
                            sessions::get(tx, session_id)?;
                            let new = NewMessage {
                                session_id,
                                role: Role::Assistant,
                                status: Status::Streaming,
                                server: Some(&server),
                                ..Default::default()
                            };
                            (messages::insert_id(tx, &new)?, String::new())
                        }
                    };
                    let ending = messages::Ending {
                        content: &kept,
                        status: Status::Error,
                        error: Some(&text),
                        error_code: Some(&code),
                        ..Default::default()
                    };
                    messages::finish(tx, session_id, id, &ending, &ReplyStats::default())
                })
                .await;
            let message_id = stored.ok().flatten().map(|m| m.id);
            feed.push(TurnEvent::Error { code: e.code().into_owned(), message: e.body().message, message_id, nothing_stored: false });
        }
    }
    // The next turn most likely asks the same server: a connection kept ready spares it the
    // connect (see `llm::warm`).
    let client = app.llm_client(&settings);
    client.keep_ready();
    match app.store.write_noting_version(move |tx| turns::end(tx, session_id)).await {
        Ok(((), version)) => {
            // The store as this turn left it: the next turn's request is known while it stays so.
            if let Some((first, chat, room, day, tool_servers)) = answered {
                app.ahead.answered(crate::app::ahead::Last { session_id, version, client, first, chat, room, day, tool_servers });
            }
        }
        Err(e) => tracing::warn!(session_id, "cannot record that the turn ended: {e}"),
    }
    drop(guard);
}

/// A turn that answered: its conversation as the next turn will send it (the last request and
/// its answer), the recount of the next plan's texts, and its first request as it went out.
struct Answered {
    chat: ChatRequest,
    recount: Recount,
    first: Option<Vec<u8>>,
    /// The tokens the next message may have and be sent without summarising first.
    room: usize,
    /// The day its prompts were written for, when all were for the same one.
    day: Option<chrono::NaiveDate>,
    /// Whether it offered tools of the user's tool servers.
    tool_servers: bool,
}

/// Drives the turn's machine: each round streams a reply, the machine decides how it ends and
/// what follows, and this stores it, runs the tools and reports. A turn that answered gives back
/// its conversation as the next turn will send it (the last request and its answer): background
/// requests begin with it, so they reuse the server's cached prompt and leave it in place.
async fn run_rounds(
    app: &Arc<App>,
    session_id: i64,
    settings: &Settings,
    mut next: Option<Round>,
    committing: &mut Option<Committing>,
    cancel: &CancellationToken,
    feed: &Feed,
) -> Result<Option<Answered>, Halt> {
    let client = app.llm_client(settings);
    let mut turn = Turn::default();
    let mut step = turn.start();
    // The user's tool servers' tools, fixed for the turn (read with its first round).
    let mut servers: Option<Vec<crate::tools::servers::Offered>> = None;
    // The first round's request as it last went out, and the day its prompt was written for.
    let (mut round, mut first, mut first_day) = (0, None, chrono::NaiveDate::MIN);
    loop {
        let Step::Request { tools_allowed, .. } = step else { unreachable!("each round starts with a request") };
        let Round {
            model,
            prompt,
            history,
            summaries: mut stored,
            images,
            project_id,
            mut offer,
            servers: on,
            mut reply_id,
            day,
            temporary,
        } = match next.take() {
            Some(opened) => opened,
            None => {
                let model = app.resolve_model(&client, settings).await?;
                let shared = app.clone();
                let settings = settings.clone();
                app.store.write(move |tx| open_round(tx, &shared, session_id, model, &settings)).await?
            }
        };
        let images = image_urls(app, images).await.map_err(|e| Halt::Failed(e, reply_id))?;
        let window = match settings.context_length {
            Some(n) => Some(n),
            // A stop (or closing Maru) must not wait on a server that takes the question and
            // never answers: the reply then ends as stopped, below.
            None => tokio::select! {
                window = app.clients.context_length(&client, &settings.server.base_url, &model) => window,
                () = cancel.cancelled() => None,
            },
        };
        // The same tools every round, so that every tool the prompt names is offered; the last
        // round forbids calling them.
        if servers.is_none() {
            servers = Some(if on.is_empty() { vec![] } else { app.tool_servers.offered(on).await });
        }
        let from_servers = servers.as_deref().unwrap_or_default();
        offer.servers = !from_servers.is_empty();
        let mut tools = app.tools.specs(&offer);
        tools.extend(from_servers.iter().map(|o| o.spec.clone()));
        let mut counter = crate::prompt::tokens::Counter::new(&app.tokens, &settings.server.base_url, &model);
        let tool_texts: Vec<String> = tools.iter().map(compact::tool_json).collect();
        let tool_tokens = tool_texts.iter().map(|t| counter.tokens(t)).sum();
        let mut context = compact::Context {
            app,
            client: &client,
            model: &model,
            session_id,
            cancel,
            window,
            reserve: compact::reserve(settings, window),
            tools: tool_tokens,
            counter,
            summarise: !temporary,
        };
        // The round's request, again after compacting everything but the last turn when the
        // machine says so (the server's window was full).
        let (ending, then, request, reply_id) = loop {
            let Step::Request { compact_all, .. } = step else { unreachable!("a round streams after a request") };
            let fitted = async {
                let summaries = context.fit(&prompt, &history, stored.clone(), compact_all).await?;
                let (system, sent) = compact::with_summaries(&app.templates, &prompt, &summaries, &history)?;
                Ok::<_, Halt>((summaries, history::request_messages(&app.templates, &system, sent, &images)?))
            };
            let (summaries, messages) = fitted.await.map_err(|halt| halt.in_reply(reply_id))?;
            stored.clone_from(&summaries);
            let mut request = ChatRequest::new(model.clone(), messages);
            request.temperature = settings.temperature;
            request.top_p = settings.top_p;
            request.max_tokens = settings.max_tokens;
            request.tools = tools.clone();
            if !tools_allowed {
                request.tool_choice = Some("none".into());
            }
            let mut sent = Instant::now();
            let body = request.body();
            // The first words, when shown before the turn's transaction (see `ahead`).
            let mut shown = None;
            let (opened, id) = match reply_id {
                Some(id) => (client.stream_chat_body(body.clone(), &model, cancel.clone(), None).await, id),
                // The first round, its reply stored once the request has gone out.
                None => {
                    let mut committing = committing.take().expect("only the first round's reply is stored while it is sent");
                    let mut on_sent = committing.sent.take();
                    let ahead = committing.ahead.take();
                    let sending = async {
                        match ahead {
                            // Gone out already: the commit need not wait for it.
                            Some(ahead) if ahead.is(&body) => {
                                on_sent.take();
                                sent = ahead.at;
                                let (opened, words) = ahead.answer().await;
                                shown = words;
                                opened
                            }
                            // Not this request: dropped, its connection closes. (Words of it
                            // shown already, which only a change outside the store since it went
                            // out can cause, are not stored: the reply holds this request's
                            // answer alone, as the chat shows it once read again.)
                            _ => client.stream_chat_body(body.clone(), &model, cancel.clone(), on_sent.take()).await,
                        }
                    };
                    let (opened, id) = tokio::join!(sending, committing.settle());
                    (opened, id?)
                }
            };
            if round == 0 {
                first = Some(body);
                first_day = day;
            }
            reply_id = Some(id);
            let reply = Reply { app, server: &settings.server, session_id, id, cancel, feed };
            let streamed = reply.stream(sent, opened, shown.take()).await.map_err(|halt| halt.in_reply(Some(id)))?;
            step = turn.streamed(streamed.outcome.clone());
            match &step {
                Step::Request { .. } => {
                    tracing::info!(session_id, "the server's window was full: compacting once and retrying");
                    context.window = context.window.or(Some(compact::estimate_request(&request) as u32));
                }
                Step::End { ending, next } => {
                    let ended = reply.end(streamed, ending).await.map_err(|halt| halt.in_reply(Some(id)))?;
                    break (ended, *next, request, id);
                }
            }
        };
        match then {
            Next::Failed => {
                let code = ending.error_code.clone().unwrap_or_default();
                tracing::warn!(message_id = reply_id, code, "reply failed: {}", ending.error.as_deref().unwrap_or(""));
                feed.push(TurnEvent::Error {
                    code,
                    message: ending.error.unwrap_or_default(),
                    message_id: Some(reply_id),
                    nothing_stored: false,
                });
                return Ok(None);
            }
            Next::Done => {
                let mut chat = request;
                chat.messages.push(crate::llm::ChatMessage::assistant(ending.message.content.clone()));
                // What the next turn's plan will count, for the server's tokenizer after this one.
                let mut texts: Vec<String> =
                    compact::plan_texts(&prompt, &tool_texts, &stored, &history).into_iter().map(str::to_owned).collect();
                texts.push(ending.message.content.clone());
                let room = context.room_after(&prompt, &history, &stored, &ending.message.content);
                feed.push(TurnEvent::Done { message: Box::new(ending.message) });
                let recount = Recount { client: client.clone(), scope: context.counter.scope().to_string(), model: model.clone(), texts };
                let tool_servers = servers.as_deref().is_some_and(|s| !s.is_empty());
                let day = Some(day).filter(|d| *d == first_day);
                return Ok(Some(Answered { chat, recount, first, room, day, tool_servers }));
            }
            Next::RunTools => {}
        }
        let ctx = ToolContext { session_id, project_id, message_id: Some(reply_id), store: app.store.clone() };
        for call in ending.message.tool_calls.clone() {
            feed.push(TurnEvent::ToolCall { id: call.id.clone(), name: call.name.clone(), arguments: call.arguments.clone() });
            let reply = match servers.as_deref().unwrap_or_default().iter().find(|o| o.spec.name == call.name) {
                Some(offered) => super::server_tools::call(app, offered, &call, session_id, settings, cancel, feed).await,
                None => app.tools.run(ctx.clone(), &call.name, &call.arguments).await,
            };
            let reply = reply.unwrap_or_else(|failed| failed);
            let is_error = reply.did.failed();
            let result = if is_error { format!("error: {}", reply.text) } else { reply.text };
            let (id, name, templates, did) = (call.id.clone(), call.name.clone(), app.templates.clone(), reply.did);
            let inline_tokens = settings.tool_output_inline_tokens;
            // The result's form is decided here, once: what is stored is what every later
            // request sends. What the call did is stored beside it, for the chat to show.
            let stored = app
                .store
                .write(move |tx| {
                    if sessions::get(tx, session_id).is_err() {
                        return Ok(None);
                    }
                    let decided = output::decide(tx, &templates, session_id, &name, result, inline_tokens)?;
                    let outcome = ToolOutcome { did, kept: decided.kept_output };
                    let m = messages::insert(
                        tx,
                        &NewMessage {
                            session_id,
                            role: Role::Tool,
                            content: &decided.sent,
                            tool_call_id: Some(&id),
                            tool_name: Some(&name),
                            tool_outcome: Some(&outcome),
                            ..Default::default()
                        },
                    )?;
                    if let Some(kept) = decided.kept {
                        tool_outputs::attach(tx, kept, m.id)?;
                    }
                    Ok(Some((decided.sent, outcome)))
                })
                .await?;
            let Some((content, outcome)) = stored else {
                return Err(Halt::ReplyGone);
            };
            feed.push(TurnEvent::ToolResult { id: call.id, name: call.name, content, is_error, outcome });
        }
        step = turn.tools_done();
        round += 1;
    }
}

/// One reply being streamed into the stored message `id` of `session_id`.
#[derive(Clone)]
struct Reply<'a> {
    app: &'a Arc<App>,
    /// The server `client` asks: errors name it.
    server: &'a crate::store::connections::ServerConnection,
    session_id: i64,
    id: i64,
    cancel: &'a CancellationToken,
    feed: &'a Feed,
}

/// What streaming a reply gave: for the machine (`outcome`) and for storing it.
struct Stream {
    outcome: Streamed,
    text: String,
    reasoning: String,
    stats: ReplyStats,
}

/// A reply as stored, with the ending the machine chose.
struct Ended {
    message: messages::Message,
    error: Option<String>,
    error_code: Option<String>,
}

impl Reply<'_> {
    /// Streams the reply of the request sent at `sent`, saving it as it grows: text is saved
    /// SAVE_EVERY after it arrived, whether more follows or the server pauses. Not at once: the
    /// first token's save, right as the token went out, took a core from the client waiting to
    /// show it, while the model server computed the next one on the others.
    /// `shown`: its first words, shown already (no longer in the stream), and when.
    async fn stream(
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
        let outcome = Streamed { empty: text.is_empty(), too_long, cancelled, failure, calls };
        Ok(Stream { outcome, text, reasoning, stats })
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
    async fn end(&self, streamed: Stream, ending: &Ending) -> Result<Ended, Halt> {
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
