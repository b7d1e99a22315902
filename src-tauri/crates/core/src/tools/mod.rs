//! Tools the model may call. Each capability brings its own (`attachments::tool`); the registry
//! holds them, and a turn offers their specs and runs the calls. The scope a tool works in
//! (session, project) comes from the turn, never from the model's arguments. How a result is
//! sent is decided once, when it comes back (`output`).

pub mod output;

use std::sync::{Arc, RwLock};

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::llm::ToolSpec;
use crate::store::Store;

/// What a turn has for tools to work on.
#[derive(Debug, Clone, Copy, Default)]
pub struct Offer {
    /// The session can see attached files.
    pub has_files: bool,
    /// Long-term memory is not turned off.
    pub memory_on: bool,
}

/// Where a call happens: the tool may only look at what this session can see, through the
/// store it is handed (reads and writes go through the same store as everything else).
#[derive(Clone)]
pub struct ToolContext {
    pub session_id: i64,
    pub project_id: i64,
    /// The reply that made the call (a fact remembered from it keeps it as its source).
    pub message_id: Option<i64>,
    pub store: Store,
}

pub trait Tool: Send + Sync {
    fn spec(&self) -> ToolSpec;
    /// Whether to offer it this turn.
    fn offered(&self, _turn: &Offer) -> bool {
        true
    }
    /// Runs the call; `Err` is a message for the model (bad arguments, nothing found…).
    fn call(&self, ctx: ToolContext, arguments: Value) -> BoxFuture<'static, Result<String, String>>;
}

#[derive(Default, Clone)]
pub struct ToolRegistry {
    tools: Arc<RwLock<Vec<Arc<dyn Tool>>>>,
}

impl ToolRegistry {
    pub fn register(&self, tool: Arc<dyn Tool>) {
        let mut tools = self.tools.write().unwrap_or_else(|p| p.into_inner());
        let name = tool.spec().name;
        tools.retain(|t| t.spec().name != name);
        tools.push(tool);
    }

    /// The tools to offer this turn: each only when it has something to work on.
    pub fn specs(&self, turn: &Offer) -> Vec<ToolSpec> {
        self.tools.read().unwrap_or_else(|p| p.into_inner()).iter().filter(|t| t.offered(turn)).map(|t| t.spec()).collect()
    }

    /// Runs one call; unknown tools and malformed arguments become errors the model can read.
    pub async fn call(&self, ctx: ToolContext, name: &str, arguments: &str) -> Result<String, String> {
        let tool = self.tools.read().unwrap_or_else(|p| p.into_inner()).iter().find(|t| t.spec().name == name).cloned();
        let Some(tool) = tool else {
            return Err(format!("there is no tool named {name:?}"));
        };
        let args: Value = if arguments.trim().is_empty() {
            Value::Object(Default::default())
        } else {
            serde_json::from_str(arguments).map_err(|e| format!("the arguments are not valid JSON: {e}"))?
        };
        tool.call(ctx, args).await
    }
}
