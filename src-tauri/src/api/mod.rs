//! The one API surface: plain async functions over an [`App`], returning typed JSON structs.
//! The HTTP server and the desktop shell are thin wrappers around these; nothing else is public.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tracing::{instrument, Level};

pub mod chat;
#[cfg(test)]
mod typescript;

use crate::chat::{Runs, ToolRegistry};
use crate::error::{Error, Result};
use crate::llm;
use crate::prompt::Templates;
use crate::store::settings::Settings;
use crate::store::memories::{self, Memory, MemoryPatch, NewMemory};
use crate::store::messages::{self, Message, MessagePage};
use crate::store::projects::{self, DeletedProject, NewProject, Project, ProjectPatch};
use crate::store::sessions::{self, NewSession, Session, SessionPage, SessionPatch};
use crate::store::settings::{self, SettingsPatch, SettingsView};
use crate::store::Store;

/// Everything a request needs: the store, the prompt templates, the turns in flight, the tools
/// the model may call, and a connection to the model server.
pub struct App {
    pub store: Store,
    pub data_dir: PathBuf,
    pub templates: Arc<Templates>,
    pub runs: Runs,
    pub tools: ToolRegistry,
    /// The client for the current endpoint, key and timeouts, rebuilt when settings change them.
    llm: Mutex<Option<CachedClient>>,
    /// The model the server listed first, per endpoint, so a turn does not ask every time.
    listed_model: Mutex<Option<(String, String)>>,
}

/// A model-server client and the settings it was built from.
struct CachedClient {
    url: String,
    api_key: Option<String>,
    timeouts: llm::Timeouts,
    client: llm::Client,
}

impl App {
    /// Opens the data folder (creating it owner-only), its database and its prompt overrides.
    pub fn open(data_dir: &Path) -> Result<Arc<App>> {
        create_private_dir(data_dir)?;
        let store = Store::open(&data_dir.join("maru.db"))?;
        let interrupted = store.with(|c| messages::mark_interrupted(c))?;
        if interrupted > 0 {
            tracing::warn!(interrupted, "replies left streaming by the last run are now marked interrupted");
        }
        let templates = Arc::new(Templates::load(Some(data_dir))?);
        Ok(Arc::new(App {
            store,
            data_dir: data_dir.to_path_buf(),
            templates,
            runs: Runs::default(),
            tools: ToolRegistry::default(),
            llm: Mutex::new(None),
            listed_model: Mutex::new(None),
        }))
    }

    pub fn llm_client(&self, s: &Settings) -> llm::Client {
        let timeouts = llm::Timeouts {
            first_byte: std::time::Duration::from_secs(s.first_byte_timeout_secs.into()),
            idle: std::time::Duration::from_secs(s.idle_timeout_secs.into()),
            ..llm::Timeouts::default()
        };
        let mut cached = self.llm.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = cached.as_ref() {
            if c.url == s.endpoint_url && c.api_key == s.api_key && c.timeouts == timeouts {
                return c.client.clone();
            }
        }
        let mut endpoint = llm::Endpoint::new(s.endpoint_url.clone());
        if let Some(key) = &s.api_key {
            endpoint = endpoint.with_api_key(key.clone());
        }
        let client = llm::Client::new(endpoint, timeouts);
        *cached = Some(CachedClient { url: s.endpoint_url.clone(), api_key: s.api_key.clone(), timeouts, client: client.clone() });
        client
    }

    /// The model from settings, or the first one the server lists.
    pub async fn resolve_model(&self, client: &llm::Client, s: &Settings) -> Result<String> {
        if !s.model.is_empty() {
            return Ok(s.model.clone());
        }
        if let Some((url, model)) = self.listed_model.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            if *url == s.endpoint_url {
                return Ok(model.clone());
            }
        }
        let models = client.list_models().await?;
        let model = models.into_iter().next().map(|m| m.id).ok_or_else(|| Error::Upstream {
            code: "no_model",
            message: format!("the server at {} lists no models; load one, or set the model name in settings", s.endpoint_url),
        })?;
        *self.listed_model.lock().unwrap_or_else(|p| p.into_inner()) = Some((s.endpoint_url.clone(), model.clone()));
        Ok(model)
    }

    /// Forgets the listed model (the server said it does not know it: it was swapped).
    pub fn forget_listed_model(&self) {
        *self.listed_model.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// Creates a directory readable by its owner only (it holds private chats).
pub fn create_private_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    }
    Ok(())
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Health {
    pub status: String,
    pub version: String,
    pub schema_version: i64,
}

pub async fn health(_app: &App) -> Result<Health> {
    Ok(Health {
        status: "ok".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        schema_version: crate::store::latest_version(),
    })
}

// ---- projects

pub async fn list_projects(app: &App) -> Result<Vec<Project>> {
    app.store.call(|c| projects::list(c)).await
}

#[instrument(skip_all, err(level = Level::WARN))]
pub async fn create_project(app: &App, new: NewProject) -> Result<Project> {
    app.store.call(move |c| projects::create(c, &new)).await
}

#[instrument(skip(app, patch), err(level = Level::WARN))]
pub async fn update_project(app: &App, id: i64, patch: ProjectPatch) -> Result<Project> {
    app.store.call(move |c| projects::update(c, id, &patch)).await
}

#[instrument(skip(app), err(level = Level::WARN))]
pub async fn delete_project(app: &App, id: i64) -> Result<DeletedProject> {
    app.store.call(move |c| projects::delete(c, id)).await
}

// ---- sessions

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields = nullable))]
pub struct SessionQuery {
    /// The Default project when absent.
    pub project_id: Option<i64>,
    pub cursor: Option<String>,
    pub limit: Option<usize>,
}

pub async fn list_sessions(app: &App, q: SessionQuery) -> Result<SessionPage> {
    app.store
        .call(move |c| {
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
    app.store.call(move |c| sessions::create(c, &new)).await
}

pub async fn get_session(app: &App, id: i64) -> Result<Session> {
    app.store.call(move |c| sessions::get(c, id)).await
}

/// Renames, moves (`project_id`) or sets the preset of a session, all or nothing.
#[instrument(skip(app, patch), err(level = Level::WARN))]
pub async fn update_session(app: &App, id: i64, patch: SessionPatch) -> Result<Session> {
    let templates = app.templates.clone();
    app.store
        .call(move |c| {
            let tx = c.transaction()?;
            let mut session = sessions::update(&tx, id, &patch)?;
            if let Some(preset) = &patch.preset {
                if let Some(key) = preset {
                    chat::check_preset(&tx, &templates, key)?;
                }
                session = sessions::set_preset(&tx, id, preset.as_deref())?;
            }
            tx.commit()?;
            Ok(session)
        })
        .await
}

#[instrument(skip(app), err(level = Level::WARN))]
pub async fn delete_session(app: &App, id: i64) -> Result<()> {
    app.store.call(move |c| sessions::delete(c, id)).await
}

// ---- messages

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields = nullable))]
pub struct MessageQuery {
    pub before: Option<i64>,
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct MessageEdit {
    pub content: String,
}

pub async fn list_messages(app: &App, session_id: i64, q: MessageQuery) -> Result<MessagePage> {
    app.store.call(move |c| messages::list(c, session_id, q.before, q.limit)).await
}

#[instrument(skip(app, edit), err(level = Level::WARN))]
pub async fn edit_message(app: &App, id: i64, edit: MessageEdit) -> Result<Message> {
    app.store.call(move |c| messages::edit(c, id, &edit.content)).await
}

#[instrument(skip(app), err(level = Level::WARN))]
pub async fn delete_message(app: &App, id: i64) -> Result<()> {
    app.store.call(move |c| messages::delete(c, id)).await
}

// ---- settings

pub async fn get_settings(app: &App) -> Result<SettingsView> {
    app.store.call(|c| Ok(SettingsView::from(&settings::load(c)?))).await
}

#[instrument(skip_all, err(level = Level::WARN))]
pub async fn update_settings(app: &App, patch: SettingsPatch) -> Result<SettingsView> {
    app.store.call(move |c| Ok(SettingsView::from(&settings::update(c, &patch)?))).await
}

// ---- long-term memory

pub async fn list_memories(app: &App) -> Result<Vec<Memory>> {
    app.store.call(|c| memories::list(c)).await
}

#[instrument(skip_all, err(level = Level::WARN))]
pub async fn create_memory(app: &App, new: NewMemory) -> Result<Memory> {
    app.store.call(move |c| memories::create(c, &new)).await
}

#[instrument(skip(app, patch), err(level = Level::WARN))]
pub async fn update_memory(app: &App, id: i64, patch: MemoryPatch) -> Result<Memory> {
    app.store.call(move |c| memories::update(c, id, &patch)).await
}

#[instrument(skip(app), err(level = Level::WARN))]
pub async fn delete_memory(app: &App, id: i64) -> Result<()> {
    app.store.call(move |c| memories::delete(c, id)).await
}
