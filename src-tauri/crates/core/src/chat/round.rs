//! A round of a turn as the store holds it: the prompt, the history it precedes, the summaries
//! and images it carries and what the chat's tools may work on, read in one transaction with
//! the reply that will hold its answer.

use std::sync::Arc;

use super::history;
use crate::app::{App, Offer};
use crate::error::{Error, Result};
use crate::prompt;
use crate::store::messages::{self, NewMessage, Role, Status};
use crate::store::settings::Settings;
use crate::store::{attachments, sessions, summaries, tool_servers};

/// What a round of the turn sends, and the stored reply that will hold its answer.
pub(super) struct Round {
    pub(super) model: String,
    pub(super) prompt: String,
    pub(super) history: Vec<messages::Message>,
    /// The session's summaries, oldest first; `history` starts after the last.
    pub(super) summaries: Vec<summaries::Summary>,
    /// Images the history carries, read after the transaction.
    pub(super) images: Vec<ImageRef>,
    pub(super) project_id: i64,
    /// What the chat's tools have to work on (files, memory, skills).
    pub(super) offer: Offer,
    /// The user's tool servers on in the chat's project.
    pub(super) servers: Vec<crate::store::tool_servers::ToolServer>,
    /// The stored reply; `None` while the turn's first transaction is still storing it.
    pub(super) reply_id: Option<i64>,
    /// The day the prompt was written for.
    pub(super) day: chrono::NaiveDate,
    /// A temporary chat: never summarised.
    pub(super) temporary: bool,
}

/// [`read_round`] and its new streaming reply: one transaction, so the reply and what it
/// answers belong together.
pub(super) fn open_round(
    tx: &rusqlite::Transaction,
    app: &App,
    session_id: i64,
    model: String,
    window: Option<u32>,
    settings: &Settings,
) -> Result<Round> {
    let session = sessions::get(tx, session_id)?;
    let mut round = read_round(tx, app, &session, model, window, settings, None)?;
    round.reply_id = Some(insert_reply(tx, session_id, &round.model, &settings.server.name)?);
    Ok(round)
}

/// The new streaming reply by `model` of the server named `server`: its id.
pub(super) fn insert_reply(tx: &rusqlite::Connection, session_id: i64, model: &str, server: &str) -> Result<i64> {
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
/// (only its id and project count, which a turn's writes never change), on a model whose
/// window is `window` tokens (the prompt's budgets leave room in it). `ends_at`: the chat
/// as it is once a regenerate has branched after that message ([`messages::branch_at`]), which
/// this transaction does after the request has gone out.
pub(super) fn read_round(
    tx: &rusqlite::Connection,
    app: &App,
    session: &sessions::Session,
    model: String,
    window: Option<u32>,
    settings: &Settings,
    ends_at: Option<i64>,
) -> Result<Round> {
    let session_id = session.id;
    let today = chrono::Local::now().date_naive();
    // The offer reads the folder's skills, which marks them as seen: a change on disk must
    // reach the prompt all the same.
    app.prompts.forget_if_folder_changed(session_id);
    let mut offer = Offer::for_session(tx, session, settings)?;
    let servers: Vec<_> = tool_servers::list(tx)?.into_iter().filter(|s| s.on_in(session.project_id)).collect();
    let budgets = super::window::budgets(app, settings, offer, &servers, session.project_id, window);
    let prepared = prompt::prepare(tx, &app.templates, &app.prompts, session_id, today, &budgets)?;
    // A window too small for the list of skills leaves some out: `search_skills` finds them.
    offer.skills_search |= !prepared.unlisted_skills.is_empty();
    // Only what no summary covers: a long chat's older messages are not read at all.
    let mut summaries = summaries::list(tx, session_id)?;
    let kept = |id: i64| ends_at.is_none_or(|end| id <= end);
    // The branch forgets summaries of what it leaves, and the branch ends at `ends_at`: along
    // it, every later message has a larger id.
    summaries.retain(|s| kept(s.through_id));
    let mut history = messages::history_after(tx, session_id, summaries.last().map_or(0, |s| s.through_id))?;
    history.retain(|m| kept(m.id));
    let images = image_refs(tx, &history)?;
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
pub(super) struct ImageRef {
    id: i64,
    name: String,
    sha256: String,
    mime: String,
}

/// The images the history's messages carry. Their files are read after the transaction
/// (`image_urls`), not while it holds the writer.
pub(super) fn image_refs(conn: &rusqlite::Connection, history: &[messages::Message]) -> Result<Vec<ImageRef>> {
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
pub(super) async fn image_urls(app: &Arc<App>, refs: Vec<ImageRef>) -> Result<history::Images> {
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
