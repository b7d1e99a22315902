//! Tools the model may call. Each capability brings its own (`attachments::tool`); the registry
//! holds them, and a turn offers their specs and runs the calls. The scope a tool works in
//! (session, project) comes from the turn, never from the model's arguments. How a result is
//! sent is decided once, when it comes back (`output`).

pub mod approvals;
pub mod command_line;
pub mod folder_skills;
pub mod mcp_config;
pub mod output;
pub mod servers;
pub mod skills;

use std::sync::{Arc, RwLock};

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::llm::ToolSpec;
use crate::prompt::Templates;
use crate::store::Store;
pub use maru_types::tool_outcomes::{FoundFact, FoundPassage, KeptOutput, RankingStep, SearchRanking, ToolDid, ToolFailure, ToolOutcome};

/// What a turn has for tools to work on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Offer {
    /// The session can see attached files.
    pub has_files: bool,
    /// Long-term memory is not turned off.
    pub memory_on: bool,
    /// The user's tool servers offer tools too.
    pub servers: bool,
    /// The chat's project offers skills.
    pub skills: bool,
    /// More than the prompt's list of skills holds: `search_skills` finds the rest.
    pub skills_search: bool,
}

impl Offer {
    /// What a session's turns offer tools to work on, as the store says now.
    pub fn for_session(
        conn: &rusqlite::Connection,
        session: &crate::store::sessions::Session,
        settings: &crate::store::settings::Settings,
    ) -> crate::error::Result<Offer> {
        let skills = folder_skills::offered(conn, session.project_id)?;
        Ok(Offer {
            has_files: crate::store::attachments::any_in_scope(conn, session.id, session.project_id)?,
            // A temporary chat leaves nothing behind, in memory neither.
            memory_on: settings.memory_mode != crate::store::settings::MemoryMode::Off && !session.temporary,
            servers: false,
            skills: !skills.is_empty(),
            skills_search: crate::prompt::budget::skills_overflow(skills.iter().map(|s| (s.name.as_str(), s.description.as_str()))),
        })
    }
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

impl ToolContext {
    /// A call from outside any chat: another app's, through the tools the user shared
    /// (`sharing`). It sees the project's files and no chat's: `session_id` is 0, which no chat
    /// has (ids start at 1), so whatever a tool looks up by it finds nothing.
    pub fn outside_chats(project_id: i64, store: Store) -> ToolContext {
        ToolContext { session_id: 0, project_id, message_id: None, store }
    }

    /// The chat the call was made in; `None` for another app's.
    pub fn chat(&self) -> Option<i64> {
        (self.session_id > 0).then_some(self.session_id)
    }
}

pub trait Tool: Send + Sync {
    fn spec(&self) -> ToolSpec;
    /// Whether to offer it this turn.
    fn offered(&self, _turn: &Offer) -> bool {
        true
    }
    /// Runs the call; `Err` is a failure, its message for the model (bad arguments, a refusal…).
    fn call(&self, ctx: ToolContext, arguments: Value) -> BoxFuture<'static, Result<ToolReply, ToolReply>>;
}

/// A call's answer: the text the model reads (from `prompts/`, which the user may rewrite), and
/// what the call did as data, which is what the chat shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolReply {
    pub text: String,
    pub did: ToolDid,
}

impl ToolReply {
    pub fn new(text: String, did: ToolDid) -> ToolReply {
        ToolReply { text, did }
    }

    /// A result in no form Maru knows (a tool server's).
    pub fn text(text: String) -> ToolReply {
        ToolReply { text, did: ToolDid::Text }
    }

    /// A failed call: why, as a code, and the sentence the model reads.
    pub fn failed(code: ToolFailure, message: String) -> ToolReply {
        ToolReply { did: ToolDid::Error { code, message: message.clone() }, text: message }
    }
}

/// A refusal of the store (a secret, no such fact) is the model's to read and tell the user.
impl From<crate::error::Error> for ToolReply {
    fn from(e: crate::error::Error) -> ToolReply {
        let error = e.body();
        ToolReply { text: error.message.clone(), did: ToolDid::Refused { error } }
    }
}

/// A call refused with a sentence of `prompts/tools/messages.md`, its key the failure's code.
pub fn refuse(templates: &Templates, code: ToolFailure, params: Value) -> ToolReply {
    let key = serde_json::to_value(code).ok().and_then(|k| k.as_str().map(str::to_string)).unwrap_or_default();
    ToolReply::failed(code, say(templates, &key, params))
}

#[derive(Clone)]
pub struct ToolRegistry {
    tools: Arc<RwLock<Vec<Arc<dyn Tool>>>>,
    templates: Arc<Templates>,
    /// What each offer's tools take of a request, estimated (see [`ToolRegistry::estimated_tokens`]).
    estimated: Arc<std::sync::Mutex<std::collections::HashMap<Offer, usize>>>,
}

impl ToolRegistry {
    pub fn new(templates: Arc<Templates>) -> ToolRegistry {
        ToolRegistry { tools: Default::default(), templates, estimated: Default::default() }
    }

    pub fn register(&self, tool: Arc<dyn Tool>) {
        let mut tools = self.tools.write().unwrap_or_else(|p| p.into_inner());
        let name = tool.spec().name;
        tools.retain(|t| t.spec().name != name);
        tools.push(tool);
        self.estimated.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// The estimated tokens of the tools `turn` offers, as a request carries them (their JSON),
    /// worked out once per kind of offer: every round of a turn asks, on a path where
    /// microseconds count.
    pub fn estimated_tokens(&self, turn: &Offer) -> usize {
        if let Some(&n) = self.estimated.lock().unwrap_or_else(|p| p.into_inner()).get(turn) {
            return n;
        }
        let n =
            self.specs(turn).iter().map(|t| crate::prompt::render::estimate_tokens(&serde_json::to_string(t).unwrap_or_default())).sum();
        self.estimated.lock().unwrap_or_else(|p| p.into_inner()).insert(*turn, n);
        n
    }

    /// The tools to offer this turn: each only when it has something to work on.
    pub fn specs(&self, turn: &Offer) -> Vec<ToolSpec> {
        self.tools.read().unwrap_or_else(|p| p.into_inner()).iter().filter(|t| t.offered(turn)).map(|t| t.spec()).collect()
    }

    /// Runs one call; unknown tools and malformed arguments become errors the model can read.
    pub async fn run(&self, ctx: ToolContext, name: &str, arguments: &str) -> Result<ToolReply, ToolReply> {
        let tool = self.tools.read().unwrap_or_else(|p| p.into_inner()).iter().find(|t| t.spec().name == name).cloned();
        let Some(tool) = tool else {
            return Err(refuse(&self.templates, ToolFailure::NoSuchTool, serde_json::json!({ "name": name })));
        };
        let args: Value = if arguments.trim().is_empty() {
            Value::Object(Default::default())
        } else {
            serde_json::from_str(arguments)
                .map_err(|e| refuse(&self.templates, ToolFailure::BadArguments, serde_json::json!({ "detail": e.to_string() })))?
        };
        tool.call(ctx, args).await
    }
}

/// A tool's spec with its words for the model from `prompts/tools/<name>.md` (rendered with
/// `vars`): the description, then after a line `---` one line per argument, `argument: what it
/// is`, which goes into the argument's schema. The schema's shape stays in code.
pub fn spec(templates: &Templates, name: &str, vars: &Value, mut parameters: Value) -> ToolSpec {
    let text = templates.render(&format!("tools/{name}"), vars).unwrap_or_else(|e| {
        tracing::warn!("the words of the tool {name} do not render: {e}");
        String::new()
    });
    let (description, arguments) = text.split_once("\n---\n").unwrap_or((&text, ""));
    for line in arguments.lines() {
        if let Some((arg, what)) = line.split_once(':') {
            if let Some(property) = parameters["properties"].get_mut(arg.trim()) {
                property["description"] = Value::String(what.trim().to_string());
            }
        }
    }
    ToolSpec { name: name.into(), description: description.trim().to_string(), parameters }
}

/// What a tool tells the model besides its result (`prompts/tools/messages.md`): a refused call
/// or a note, by its key, with what the sentence names.
pub fn say(templates: &Templates, key: &str, mut params: Value) -> String {
    params["say"] = Value::String(key.into());
    templates.render("tools/messages", &params).map(|t| t.trim().to_string()).unwrap_or_else(|e| {
        tracing::warn!("the tool message {key} does not render: {e}");
        key.to_string()
    })
}
