//! The `App` context every layer above the store takes: the store, the prompt templates, the
//! turns in flight, the tools the model may call and the model-server clients. It sits below
//! `api` and `chat` so that the arrows only point down:
//! main → desktop/server → api → chat → app → prompt → store/llm.
//!
//! - `runs`: the turns in flight, one per session, and how to stop or claim them
//! - `events`: what a turn reports, and the feed listeners read at their own pace
//! - `tools`: the tools the model may call, with the store handle they work on

pub mod events;
pub mod runs;
pub mod tools;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::llm;
use crate::paths::{self, DataDirLock};
use crate::prompt::{PromptCache, Templates};
use crate::store::messages;
use crate::store::settings::Settings;
use crate::store::Store;
pub use events::{Feed, TurnEvent, TurnStream};
pub use runs::{RunGuard, Runs};
pub use tools::{Tool, ToolContext, ToolRegistry};

pub struct App {
    pub store: Store,
    pub data_dir: PathBuf,
    pub templates: Arc<Templates>,
    pub runs: Runs,
    pub tools: ToolRegistry,
    pub clients: llm::Clients,
    /// Each session's last system prompt, reused while its inputs are unchanged.
    pub prompts: PromptCache,
    /// Held for the life of the process: this process owns the data folder.
    _lock: DataDirLock,
}

impl App {
    /// Opens the data folder (creating it owner-only), takes its lock, opens its database and
    /// its prompt overrides, and marks the replies a previous run left unfinished.
    pub fn open(data_dir: &Path) -> Result<Arc<App>> {
        paths::create_private_dir(data_dir)?;
        let lock = DataDirLock::acquire(data_dir)?;
        let store = Store::open(&data_dir.join("maru.db"))?;
        // Safe only because this process owns the folder: no other Maru has a reply streaming.
        let interrupted = store.with(|tx| messages::mark_interrupted(tx))?;
        if interrupted > 0 {
            tracing::warn!(interrupted, "replies the last run left unfinished are now marked interrupted");
        }
        let templates = Arc::new(Templates::load(Some(data_dir))?);
        // Capabilities register their tools here (attachment search, memory); until one does,
        // requests carry no `tools`.
        let tools = ToolRegistry::default();
        Ok(Arc::new(App {
            store,
            data_dir: data_dir.to_path_buf(),
            templates,
            runs: Runs::default(),
            tools,
            clients: llm::Clients::default(),
            prompts: PromptCache::default(),
            _lock: lock,
        }))
    }

    /// The client for the configured server, reused while its settings are unchanged.
    pub fn llm_client(&self, s: &Settings) -> llm::Client {
        self.clients.get(&llm::ClientConfig::new(&s.endpoint_url, s.api_key.as_deref(), s.first_byte_timeout_secs, s.idle_timeout_secs))
    }

    /// The model from settings, or the first one the server lists.
    pub async fn resolve_model(&self, client: &llm::Client, s: &Settings) -> Result<String> {
        self.clients.resolve_model(client, &s.endpoint_url, &s.model).await?.ok_or_else(|| Error::Upstream {
            code: "no_model",
            message: format!("the server at {} lists no models; load one, or set the model name in settings", s.endpoint_url),
        })
    }
}
