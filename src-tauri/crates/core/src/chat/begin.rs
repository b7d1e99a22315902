//! A turn's beginning: the checks and the first transaction (the user's message, a regenerate's
//! branch, the reply's row), done before anything is streamed so that errors come back as plain
//! API errors, and its commit, which waits until the first request has gone out.

use std::sync::Arc;
use std::time::Duration;

use super::ahead::SentAhead;
use super::history;
use super::machine::{Halt, TurnKind};
use super::round::{insert_reply, read_round, Round};
use super::title;
use crate::app::{App, Feed, RunGuard, TurnEvent, TurnStream};
use crate::error::{Code, Error, Result};
use crate::store::messages::{self, NewMessage, Role};
use crate::store::settings::{self, Settings};
use crate::store::{attachments, sessions, turns};

/// The turn's first transaction, to commit once its first request has gone out.
pub(super) struct Committing {
    /// The stored reply's id once committed; `None` when nothing was stored (the caller of
    /// [`start`] was told why).
    pub(super) stored: tokio::task::JoinHandle<Option<i64>>,
    /// Tells the commit the first request has gone out.
    pub(super) sent: Option<crate::llm::Sent>,
    /// The first request, when it went out before the transaction began (see `ahead`).
    pub(super) ahead: Option<SentAhead>,
}

impl Committing {
    /// Commits `reply_id`'s transaction once told the request has gone out (or after
    /// [`STORE_REPLY_WITHIN`]), then answers the caller of [`start`]: with the turn's events
    /// (from `feed`), or with why nothing was stored (told in `feed` when answered already).
    pub(super) fn start(reply_id: StoredReply, feed: &Feed, answer: Option<Answering>, ahead: Option<SentAhead>) -> Committing {
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
    pub(super) async fn settle(self) -> Result<i64, Halt> {
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
pub(super) type Answering = tokio::sync::oneshot::Sender<Result<TurnStream>>;

/// Tells `e` in the turn's events, to a caller answered already: the turn stored nothing.
pub(super) fn tell(feed: &Feed, e: &Error) {
    feed.push(TurnEvent::Error { code: e.code().into_owned(), message: e.body().message, message_id: None, nothing_stored: true });
}

/// The id of the reply a transaction still open stores: it commits once polled.
pub(super) type StoredReply = std::pin::Pin<Box<dyn std::future::Future<Output = Result<i64>> + Send>>;

pub(super) type Began = (RunGuard, Settings, Option<Round>, Option<StoredReply>, Option<SentAhead>);

/// The first round's reply is stored once its request has gone out, or after this long when the
/// round has slower work to do first (a new model's window to ask, tool servers to start, a
/// chat to summarise): the turn's first transaction does not hold the writer through that.
const STORE_REPLY_WITHIN: Duration = Duration::from_millis(5);

/// The checks and writes before anything is streamed, holding the session's slot. With the
/// model known, the transaction hands over the first round as soon as it is read; the round
/// comes back with the rest of the transaction, which stores its reply, still to run (see
/// [`Committing`]).
pub(super) async fn begin(app: Arc<App>, session_id: i64, kind: TurnKind, answer: &mut Option<Answering>) -> Result<Began> {
    let guard = app.runs.begin(session_id)?;
    // A chat on the demo model after Maru restarted: it runs before anything is sent.
    app.wake_chat(session_id).await?;
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
    // And with its window known: the prompt's budgets leave room in it. A model's first turn
    // asks the server first, outside the transaction.
    let known = app.clients.known_model(&settings.server.base_url, &settings.model);
    let window = known.as_deref().and_then(|m| super::window::known(app, &settings, m));
    let model = known.filter(|_| window.is_some());
    if model.is_some() && connect {
        app.llm_client(&settings).open_connection();
    }
    let mut branch_at = None;
    match kind {
        TurnKind::Send { content, images, skills } => {
            check_content(&content)?;
            attachments::images_in_scope(tx, &images, session_id, session.project_id)?;
            let user = insert_user(tx, session_id, &content, &images, &history::runtime_note(&app.templates, now)?)?;
            for (n, name) in skills.iter().enumerate() {
                load_skill_now(tx, app, session_id, session.project_id, &format!("load_{user}_{n}"), name)?;
            }
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
        Some(model) => Some(read_round(tx, app, &session, model, window.flatten(), &settings, branch_at)?),
        None => None,
    };
    let server = settings.server.name.clone();
    Ok(((settings, first), Rest { model, server, branch_at }))
}

/// The user's message, stamped with the time it is sent (`note`), which later requests repeat.
fn insert_user(tx: &rusqlite::Connection, session_id: i64, content: &str, images: &[i64], note: &str) -> Result<i64> {
    messages::insert_id(tx, &NewMessage { session_id, role: Role::User, content, runtime_note: Some(note), images, ..Default::default() })
}

/// A skill the user loaded with their message (`/` in the composer): stored as a `load_skill`
/// call and its result, as if the model had asked for it, so the model has the procedure before
/// it answers, and the chat shows the skill loaded as it shows one the model loaded.
fn load_skill_now(tx: &rusqlite::Connection, app: &App, session_id: i64, project_id: i64, call_id: &str, name: &str) -> Result<()> {
    use crate::tools::skills;
    let Some((text, did)) = skills::load_now(tx, &app.templates, project_id, name)? else {
        return Err(Error::invalid(Code::UnknownSkill, format!("no skill named {name} is offered in this chat")).with("name", name));
    };
    let call = crate::llm::ToolCall {
        id: call_id.to_string(),
        name: skills::LOAD.to_string(),
        arguments: serde_json::json!({ "name": name }).to_string(),
    };
    messages::insert_id(
        tx,
        &NewMessage { session_id, role: Role::Assistant, tool_calls: std::slice::from_ref(&call), ..Default::default() },
    )?;
    let outcome = crate::tools::ToolOutcome { did, kept: None };
    messages::insert_id(
        tx,
        &NewMessage {
            session_id,
            role: Role::Tool,
            content: &text,
            tool_call_id: Some(call_id),
            tool_name: Some(skills::LOAD),
            tool_outcome: Some(&outcome),
            ..Default::default()
        },
    )?;
    Ok(())
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
