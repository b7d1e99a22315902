//! The one API surface: plain async functions over an [`App`], taking and returning typed JSON
//! structs. The HTTP routes, the OpenAPI document and the desktop commands wrap these and add
//! nothing but transport; each user action here is one store transaction.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tracing::{instrument, Level};

pub mod attachments;
pub mod backup;
pub mod chat;
pub mod connections;
pub mod context;
pub mod demo;
pub mod export;
pub mod presets;
pub mod skills;
pub mod tool_servers;

use crate::app::App;
use crate::error::Result;
use crate::store::memories::{self, Memory, MemoryPatch, NewMemory};
use crate::store::messages::{self, Message, MessagePage};
use crate::store::projects::{self, DeletedProject, NewProject, Project, ProjectPatch};
use crate::store::sessions::{self, NewSession, Session, SessionPage, SessionPatch};
use crate::store::settings::{self, SettingsPatch, SettingsView};

/// How long a delete waits for the chat's running reply to stop and store its text.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// What a delete answers when there is nothing more to say.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Deleted {
    pub id: i64,
    pub deleted: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Health {
    pub status: String,
    pub version: String,
    pub schema_version: i64,
}

pub async fn health(_app: &App) -> Result<Health> {
    Ok(Health { status: "ok".into(), version: env!("CARGO_PKG_VERSION").into(), schema_version: crate::store::latest_version() })
}

// ---- projects

pub async fn list_projects(app: &App) -> Result<Vec<Project>> {
    app.store.read(projects::list).await
}

#[instrument(skip_all, err(level = Level::WARN))]
pub async fn create_project(app: &App, new: NewProject) -> Result<Project> {
    app.store.write(move |tx| projects::create(tx, &new)).await
}

/// Renames a project, changes its instructions, or links it to a folder (`folder`), whose files
/// are then mirrored as the project's, in the background (`app::folders`), but for the paths
/// `exclude` leaves out.
#[instrument(skip(app, patch), err(level = Level::WARN))]
pub async fn update_project(app: &Arc<App>, id: i64, mut patch: ProjectPatch) -> Result<Project> {
    if let Some(Some(raw)) = &patch.folder {
        patch.folder = Some(Some(crate::app::folders::check_folder(raw)?));
    }
    if let Some(raw) = &patch.exclude {
        patch.exclude = Some(crate::app::folders::check_exclude(raw)?);
    }
    let relinked = patch.folder.is_some() || patch.exclude.is_some();
    let project = app.store.write(move |tx| projects::update(tx, id, &patch)).await?;
    if relinked {
        // Followed from now on (or no longer), and synced: unlinking takes the mirror away.
        app.folders.relinked(id);
    }
    Ok(project)
}

/// How far the project's folder sync got (files found, read, skipped, failed, done).
pub async fn folder_sync(app: &Arc<App>, id: i64) -> Result<crate::app::folders::FolderSync> {
    app.store.read(move |c| projects::get(c, id)).await?;
    Ok(app.folders.progress(id))
}

/// The instructions files of the project's folder (AGENTS.md, CLAUDE.md, GEMINI.md, their
/// imports) as the next request finds them: those sent, most general first, and those found and
/// not sent, with why. The project's own view shows them; a chat's inspector shows the same list
/// after section ③'s budget (which may cut or leave out a file that is read here whole).
pub async fn project_instructions(app: &Arc<App>, id: i64) -> Result<context::InstructionFiles> {
    let project = app.store.read(move |c| projects::get(c, id)).await?;
    let Some(folder) = project.folder else { return Ok(context::InstructionFiles::default()) };
    let read = folder.clone();
    // Reads files up the folder's tree (cached by their sizes and times): off the async threads.
    let found = tokio::task::spawn_blocking(move || crate::prompt::instruction_files::KNOWN.get(std::path::Path::new(&read)))
        .await
        .map_err(|e| crate::error::Error::Internal(anyhow::anyhow!("reading the instructions files failed: {e}")))?;
    Ok(context::InstructionFiles::from_found(Some(folder), &found))
}

/// The project that follows `folder`, linked now if none does (`maru serve --folder`): a new
/// project named after the folder (with a number when that name is taken).
pub async fn follow_folder(app: &Arc<App>, folder: &str) -> Result<Project> {
    let folder = crate::app::folders::check_folder(folder)?;
    let existing = app.store.read(projects::list).await?.into_iter().find(|p| p.folder.as_deref() == Some(folder.as_str()));
    if let Some(project) = existing {
        return Ok(project);
    }
    let name = std::path::Path::new(&folder).file_name().map_or_else(|| "Folder".to_string(), |n| n.to_string_lossy().into_owned());
    let created = app
        .store
        .write(move |tx| projects::create(tx, &NewProject { name: projects::free_name(tx, &name)?, instructions: String::new() }))
        .await?;
    let patch = ProjectPatch { folder: Some(Some(folder)), ..Default::default() };
    update_project(app, created.id, patch).await
}

/// Deletes a project; its chats move to Default in the same transaction. A reply streaming in
/// one of them goes on: it writes to its own chat, which still exists.
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn delete_project(app: &App, id: i64) -> Result<DeletedProject> {
    let blobs = app.files.blobs.clone();
    let (deleted, _) = app.store.write_then(move |tx| projects::delete(tx, id), move |(_, released)| blobs.remove(released)).await?;
    Ok(deleted)
}

// ---- changes

/// Every change from now on (see `store::changes`); `Resync` in place of those a slow listener
/// missed.
pub fn changes(app: &App) -> futures_util::stream::BoxStream<'static, crate::store::changes::Change> {
    use crate::store::changes::Change;
    use tokio::sync::broadcast::error::RecvError;
    let stream = futures_util::stream::unfold(app.store.changes(), |mut rx| async move {
        match rx.recv().await {
            Ok(change) => Some((change, rx)),
            Err(RecvError::Lagged(_)) => Some((Change::Resync, rx)),
            Err(RecvError::Closed) => None,
        }
    });
    Box::pin(stream)
}

// ---- sessions

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SessionQuery {
    /// The Default project when absent.
    pub project_id: Option<i64>,
    /// The previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// Sessions per page (50 when absent, at most 200).
    pub limit: Option<usize>,
}

pub async fn list_sessions(app: &App, q: SessionQuery) -> Result<SessionPage> {
    app.store
        .read(move |c| {
            let project_id = match q.project_id {
                Some(id) => id,
                None => projects::default_id(c)?,
            };
            sessions::list(c, project_id, q.cursor.as_deref(), q.limit)
        })
        .await
}

#[instrument(skip_all, err(level = Level::WARN))]
pub async fn create_session(app: &App, new: NewSession) -> Result<Session> {
    app.store.write(move |tx| sessions::create(tx, &new)).await
}

pub async fn get_session(app: &App, id: i64) -> Result<Session> {
    app.store.read(move |c| sessions::get(c, id)).await
}

/// Renames, moves (`project_id`), or sets the preset or the (server, model) of a session, all or
/// nothing.
#[instrument(skip(app, patch), err(level = Level::WARN))]
pub async fn update_session(app: &App, id: i64, patch: SessionPatch) -> Result<Session> {
    let templates = app.templates.clone();
    app.store
        .write(move |tx| {
            let mut session = sessions::update(tx, id, &patch)?;
            if let Some(preset) = &patch.preset {
                if let Some(key) = preset {
                    presets::check_preset(tx, &templates, key)?;
                }
                session = sessions::set_preset(tx, id, preset.as_deref())?;
            }
            if let Some(connection_id) = patch.connection_id {
                session = sessions::set_connection(tx, id, connection_id)?;
            }
            if let Some(model) = &patch.model {
                session = sessions::set_model(tx, id, model.as_deref())?;
            }
            Ok(session)
        })
        .await
}

/// Keeps a temporary chat: from now on it is listed, searched, titled and remembered like any.
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn keep_session(app: &App, id: i64) -> Result<Session> {
    app.store.write(move |tx| sessions::keep(tx, id)).await
}

/// Asks the model again for the chat's title (its menu's "New title"): it replaces the title,
/// whoever wrote it. See `chat::title::regenerate`.
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn regenerate_title(app: &App, id: i64) -> Result<Session> {
    crate::chat::title::regenerate(app, id).await
}

/// Deletes a chat. A reply still being written in it is stopped first, and no new one can start
/// until the delete is done.
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn delete_session(app: &App, id: i64) -> Result<Deleted> {
    let _slot = app.runs.claim(id, STOP_GRACE).await?;
    let blobs = app.files.blobs.clone();
    app.store
        .write_then(
            move |tx| {
                let linked = crate::store::attachments::session_blobs(tx, id)?;
                sessions::delete(tx, id)?;
                crate::store::attachments::released(tx, linked)
            },
            // A crash before this leaves orphans that the next start sweeps.
            move |released| blobs.remove(released),
        )
        .await?;
    Ok(Deleted { id, deleted: true })
}

// ---- messages

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MessageQuery {
    /// The previous page's `next_before`: only messages older than this id.
    pub before: Option<i64>,
    /// Messages per page (50 when absent, at most 500).
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageEdit {
    pub content: String,
}

pub async fn list_messages(app: &App, session_id: i64, q: MessageQuery) -> Result<MessagePage> {
    app.store.read(move |c| messages::list(c, session_id, q.before, q.limit)).await
}

/// Edits a message in place. Refused with `turn_running` while a reply is being written in its
/// chat: the reply would answer the text as it was (stop it first, or edit and resend).
#[instrument(skip(app, edit), err(level = Level::WARN))]
pub async fn edit_message(app: &App, id: i64, edit: MessageEdit) -> Result<Message> {
    let session_id = app.store.read(move |c| Ok(messages::get(c, id)?.session_id)).await?;
    let _slot = app.runs.hold(session_id)?;
    app.store.write(move |tx| messages::edit(tx, id, &edit.content)).await
}

/// Deletes a message. A reply being written in its chat is stopped first: the turn would
/// otherwise answer a history that no longer holds what it was asked.
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn delete_message(app: &App, id: i64) -> Result<Deleted> {
    let session_id = app.store.read(move |c| Ok(messages::get(c, id)?.session_id)).await?;
    let _slot = app.runs.claim(session_id, STOP_GRACE).await?;
    app.store.write(move |tx| messages::delete(tx, id)).await?;
    Ok(Deleted { id, deleted: true })
}

/// Shows another version of a message (a reply regenerated, a message edited and resent): the
/// chat continues along it. Refused while a reply is being written in the chat, which would
/// otherwise land on a branch the chat no longer shows. Returns the newest page of the branch.
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn choose_version(app: &App, id: i64) -> Result<MessagePage> {
    let session_id = app.store.read(move |c| Ok(messages::get(c, id)?.session_id)).await?;
    let _slot = app.runs.hold(session_id)?;
    app.store
        .write(move |tx| {
            messages::choose(tx, id)?;
            messages::list(tx, session_id, None, None)
        })
        .await
}

/// Continues the chat in a new chat from message `id`: the new chat (in the same project, with
/// the chat's preset, server and model) holds that message and the ones it follows, the versions
/// on its way only; the original is unchanged.
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn fork_message(app: &App, id: i64) -> Result<Session> {
    app.store.write(move |tx| sessions::get(tx, crate::store::forks::fork(tx, id)?)).await
}

// ---- settings

pub async fn get_settings(app: &App) -> Result<SettingsView> {
    app.store.read(|c| Ok(SettingsView::from(&settings::load(c)?))).await
}

#[instrument(skip_all, err(level = Level::WARN))]
pub async fn update_settings(app: &App, patch: SettingsPatch) -> Result<SettingsView> {
    let view = app.store.write(move |tx| Ok(SettingsView::from(&settings::update(tx, &patch)?))).await?;
    // The embeddings model may have changed: its job looks at once.
    app.embedding.wake();
    Ok(view)
}

// ---- long-term memory

/// Which facts `GET /api/memories` lists.
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MemoryStatusQuery {
    /// `accepted` (the default: what the model sees), `pending` (proposals waiting) or `all`.
    pub status: Option<memories::MemoryFilter>,
}

pub async fn list_memories(app: &App, q: MemoryStatusQuery) -> Result<Vec<Memory>> {
    app.store.read(move |c| memories::list(c, q.status.unwrap_or_default())).await
}

/// Accepts a fact the model proposed: it is in section ⑤ from the next turn.
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn accept_memory(app: &App, id: i64) -> Result<Memory> {
    app.store.write(move |tx| memories::accept(tx, id)).await
}

#[instrument(skip_all, err(level = Level::WARN))]
pub async fn create_memory(app: &App, new: NewMemory) -> Result<Memory> {
    crate::memory::refuse_secret(&new.content)?;
    app.store.write(move |tx| memories::create(tx, &new)).await
}

#[instrument(skip(app, patch), err(level = Level::WARN))]
pub async fn update_memory(app: &App, id: i64, patch: MemoryPatch) -> Result<Memory> {
    if let Some(content) = &patch.content {
        crate::memory::refuse_secret(content)?;
    }
    app.store.write(move |tx| memories::update(tx, id, &patch)).await
}

#[instrument(skip(app), err(level = Level::WARN))]
pub async fn delete_memory(app: &App, id: i64) -> Result<Deleted> {
    app.store.write(move |tx| memories::delete(tx, id)).await?;
    Ok(Deleted { id, deleted: true })
}

// ---- search across chats

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchQuery {
    /// Words to find, in any language; a Korean word is found with its particles.
    pub q: String,
    /// At most this many chats (default 20, at most 100).
    pub limit: Option<usize>,
    /// Also earlier versions of messages (replies regenerated since, messages edited and resent).
    pub versions: Option<bool>,
}

/// Files of every chat and project whose text matches, best first, each with its best passage.
pub async fn search_files(app: &App, query: SearchQuery) -> Result<Vec<crate::store::search::FileHit>> {
    let limit = query.limit.unwrap_or(20).clamp(1, 100);
    app.store.read(move |c| crate::store::search::files(c, &query.q, limit)).await
}

/// Chats in every project whose messages or title match, best first.
pub async fn search(app: &App, query: SearchQuery) -> Result<Vec<crate::store::search::ChatHit>> {
    let limit = query.limit.unwrap_or(20).clamp(1, 100);
    let versions = query.versions.unwrap_or(false);
    app.store.read(move |c| crate::store::search::chats(c, &query.q, limit, versions)).await
}

// ---- sharing with other apps

/// How many of the calls other apps made `GET /api/sharing/calls` lists.
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SharedCallsQuery {
    /// The newest this many (50 when absent, at most 500).
    pub limit: Option<usize>,
}

/// The calls other apps made of the tools the user shared, newest first.
pub async fn shared_calls(app: &App, q: SharedCallsQuery) -> Result<Vec<crate::store::shared_calls::SharedCall>> {
    let limit = q.limit.unwrap_or(50).clamp(1, crate::store::shared_calls::KEPT as usize);
    app.store.read(move |c| crate::store::shared_calls::list(c, limit)).await
}
