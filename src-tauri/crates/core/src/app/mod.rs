//! The `App` context every layer above the store takes: the store, the prompt templates, the
//! turns in flight, the tools the model may call and the model-server clients. It sits below
//! `api` and `chat` so that the arrows only point down:
//! main → desktop/server → api → chat → app → prompt → store/llm.
//!
//! - `runs`: the turns in flight, one per session, and how to stop or claim them
//! - `events`: what a turn reports, and the feed listeners read at their own pace

pub(crate) mod ahead;
pub mod demo;
pub mod events;
pub mod folders;
pub mod relaunch;
pub mod runs;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::attachments::{self, Files};
use crate::error::{Error, Result, UpstreamCode};
use crate::llm;
use crate::paths::{self, DataDirLock};
use crate::prompt::{PromptCache, Templates};
use crate::store::messages;
use crate::store::settings::Settings;
use crate::store::Store;
pub use crate::tools::{Offer, Tool, ToolContext, ToolRegistry};
pub use events::{Feed, TurnEvent, TurnStream};
pub use runs::{RunGuard, Runs};

/// How long closing waits for the replies being written to store their text.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

pub struct App {
    pub store: Store,
    pub data_dir: PathBuf,
    pub templates: Arc<Templates>,
    pub runs: Runs,
    pub tools: ToolRegistry,
    /// The user's MCP tool servers, started when first needed.
    pub tool_servers: Arc<crate::tools::servers::ToolServers>,
    /// Their calls waiting for the user's approval.
    pub approvals: crate::tools::approvals::Approvals,
    pub clients: Arc<llm::Clients>,
    /// The files' passages embedded in the background, when the user chose a model for it.
    pub embedding: Arc<attachments::embedding::Embedding>,
    /// Projects' folders mirrored as their files.
    pub folders: folders::Folders,
    /// Token counts by the model servers' tokenizers, for the window plan.
    pub tokens: crate::prompt::tokens::TokenCounts,
    /// Attached files: where they are stored and how their text is read.
    pub files: Files,
    /// Each session's last system prompt, reused while its inputs are unchanged.
    pub prompts: PromptCache,
    /// What a chat's next request will be, while nothing was written since its last turn.
    pub(crate) ahead: ahead::Ahead,
    /// The small model offered on a first run without a model server.
    pub demo: demo::Demo,
    /// A restored backup to open instead of this data folder.
    pub relaunch: relaunch::Relaunch,
    /// Other apps' exports being imported, and those done.
    pub imports: crate::imports::jobs::Jobs,
    /// Held for the life of the process: this process owns the data folder.
    _lock: DataDirLock,
}

impl App {
    /// Opens the data folder (creating it owner-only), takes its lock, opens its database and
    /// its prompt overrides, and marks the replies a previous run left unfinished.
    pub fn open(data_dir: &Path) -> Result<Arc<App>> {
        paths::create_private_dir(data_dir)?;
        let lock = DataDirLock::acquire(data_dir)?;
        // Owning the folder, no export of another process is being written: a crash's are left over.
        crate::backup::sweep_spools(data_dir);
        let store = Store::open(&data_dir.join("maru.db"))?;
        // Safe only because this process owns the folder: no other Maru has a reply streaming.
        let interrupted = store.with(|tx| messages::mark_interrupted(tx))?;
        if interrupted > 0 {
            tracing::warn!(interrupted, "replies the last run left unfinished are now marked interrupted");
        }
        let templates = Arc::new(Templates::load(Some(data_dir))?);
        let files = Files::new(data_dir);
        let unindexed = files.recover(&store)?;
        // Every capability's tools; each is offered only when it has something to work on.
        let tools = ToolRegistry::new(templates.clone());
        let (clients, embedding) = (Arc::<llm::Clients>::default(), Arc::<attachments::embedding::Embedding>::default());
        tools.register(Arc::new(attachments::tool::SearchAttachment::new(templates.clone(), clients.clone(), embedding.clone())));
        crate::memory::tools::register(&tools, &templates);
        tools.register(Arc::new(crate::tools::output::ReadToolOutput::new(templates.clone())));
        tools.register(Arc::new(crate::tools::skills::SkillTool::load(templates.clone())));
        tools.register(Arc::new(crate::tools::skills::SkillTool::read_file(templates.clone())));
        tools.register(Arc::new(crate::tools::skills::SkillTool::search(templates.clone())));
        let app = Arc::new(App {
            store,
            data_dir: data_dir.to_path_buf(),
            templates,
            runs: Runs::default(),
            tools,
            tool_servers: Arc::default(),
            approvals: Default::default(),
            clients,
            embedding,
            tokens: Default::default(),
            folders: Default::default(),
            prompts: PromptCache::default(),
            ahead: Default::default(),
            demo: demo::Demo::find(),
            relaunch: relaunch::Relaunch::default(),
            imports: Default::default(),
            files,
            _lock: lock,
        });
        // Files whose indexing the last run did not finish are indexed again, in the background.
        if let (false, Ok(runtime)) = (unindexed.is_empty(), tokio::runtime::Handle::try_current()) {
            let app = app.clone();
            runtime.spawn(async move {
                for (sha, kind) in unindexed {
                    app.index_file(sha, kind).await;
                }
            });
        }
        // No window has a temporary chat open at start: those a previous run left (closed
        // without closing them, or a crash) go now.
        app.drop_temporary_chats()?;
        folders::Folders::keep_in_sync(&app);
        // The embedding job holds the app weakly: a closed app is dropped, and the job ends.
        let weak = Arc::downgrade(&app);
        app.embedding.start(move || {
            weak.upgrade().map(|app| {
                let runs = app.runs.clone();
                attachments::embedding::Handles {
                    store: app.store.clone(),
                    clients: app.clients.clone(),
                    turn_running: Box::new(move || runs.running() > 0),
                }
            })
        });
        app.prepare_client();
        Ok(app)
    }

    /// Maru's tools as other apps get them (`/mcp`), over this app's store and tools.
    pub fn shared(&self) -> crate::sharing::Shared {
        crate::sharing::Shared::new(self.store.clone(), self.templates.clone(), self.tools.clone())
    }

    /// Deletes every temporary chat, with the files only they held. A temporary chat is a row
    /// like any other, flagged (`sessions.temporary`), so that a turn, its files and its tools
    /// work in it unchanged; what makes it temporary is that lists, search, titles, memory and
    /// summaries leave it out, and that it is deleted when closed, when Maru closes and at start.
    pub fn drop_temporary_chats(&self) -> Result<usize> {
        let (n, released) = self.store.with(|tx| {
            let ids = crate::store::sessions::temporary_ids(tx)?;
            let mut linked = vec![];
            for &id in &ids {
                linked.extend(crate::store::attachments::session_blobs(tx, id)?);
                crate::store::sessions::delete(tx, id)?;
            }
            Ok((ids.len(), crate::store::attachments::released(tx, linked)?))
        })?;
        self.files.blobs.remove(&released);
        if n > 0 {
            tracing::info!(n, "temporary chats deleted");
        }
        Ok(n)
    }

    /// Builds the default server's client on a thread of its own: building one reads the
    /// system's TLS roots (about 60 ms here), which the first message after opening would
    /// otherwise wait for. The thread keeps the clients only, not the app and its folder lock.
    fn prepare_client(&self) {
        let Ok(settings) = self.store.read_now(crate::store::settings::load) else { return };
        let (clients, id, config) = (self.clients.clone(), settings.server.id, client_config(&settings));
        let _ = std::thread::Builder::new().name("maru-client".into()).spawn(move || {
            clients.get(id, &config);
        });
    }

    /// How Maru closes, whoever closes it (the window, SIGTERM or Ctrl+C to `maru serve`): each
    /// reply being written stops as if the user pressed stop, keeping its text, and is given
    /// `SHUTDOWN_GRACE` to store it. Nothing else is touched: a turn that does not end in time
    /// stays recorded as in flight, and the next start marks it interrupted.
    pub async fn shutdown(&self) {
        let running = self.runs.running();
        if running > 0 {
            tracing::info!(running, "stopping the replies being written before closing");
        }
        // The embedding job lets go of the model server and the store.
        self.embedding.stop();
        self.runs.stop_all(SHUTDOWN_GRACE).await;
        // No tool server outlives Maru.
        self.tool_servers.stop_all().await;
        // A temporary chat goes when Maru closes (a reply that did not stop in time keeps its
        // chat until the next start, which deletes it then).
        if let Err(e) = self.drop_temporary_chats() {
            tracing::warn!("temporary chats could not be deleted on closing: {e}");
        }
    }

    /// Indexes a content's text; failures are stored on the files and logged.
    pub async fn index_file(&self, sha256: String, kind: attachments::Kind) {
        if let Err(e) = self.files.index(&self.store, &sha256, kind).await {
            tracing::warn!(sha256, "indexing a file failed: {e}");
        }
        // Its passages are there to embed.
        self.embedding.wake();
    }

    /// The client for the settings' server, reused while its address, key and timeouts stay.
    pub fn llm_client(&self, s: &Settings) -> llm::Client {
        self.clients.get(s.server.id, &client_config(s))
    }

    /// The model from settings, or the first one the server lists.
    pub async fn resolve_model(&self, client: &llm::Client, s: &Settings) -> Result<String> {
        let server = &s.server;
        self.clients.resolve_model(client, &server.base_url, &s.model).await?.ok_or_else(|| Error::Upstream {
            code: UpstreamCode::NoModel,
            message: format!(
                "the server \"{}\" at {} lists no models; load one, or set the model name in settings",
                server.name, server.base_url
            ),
        })
    }
}

/// How the settings' server is to be asked.
fn client_config(s: &Settings) -> llm::ClientConfig {
    let server = &s.server;
    llm::ClientConfig::new(&server.base_url, server.api_key.as_deref(), s.first_byte_timeout_secs, s.idle_timeout_secs)
}
