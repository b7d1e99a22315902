//! Maru's tools for other apps: what `maru mcp` (stdio) and `/mcp` on `maru serve` (Streamable
//! HTTP) offer an MCP client such as Claude Desktop. One definition for both transports: which
//! tools are listed, what each does, and the record of each call.
//!
//! Nothing is shared until the user says so (Settings → "Share with other apps"), by group:
//! reading memory, writing it, the chats, and the files of the projects they choose. A group
//! left off is not listed, and a call of it is refused with where to turn it on. The tools are
//! Maru's own, run as the chat's model runs them: `remember` in review mode proposes a fact the
//! user accepts in the memory panel, and a project's files are searched as `search_attachment`
//! searches them, words, meaning and reranker alike. Every call is recorded (`shared_calls`),
//! and Settings lists them.

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::attachments::embedding::Embedding;
use crate::error::Result;
use crate::llm;
use crate::prompt::Templates;
use crate::store::settings::{self, MemoryMode};
use crate::store::{projects, shared_calls, Store};
use crate::tools::{self, ToolContext, ToolRegistry};

/// The longest text argument accepted: a query or a fact is a line, not a document.
pub const TEXT_MAX_CHARS: usize = 2_000;
const CHATS_DEFAULT: usize = 5;
const CHATS_MAX: usize = 20;
const PASSAGES_DEFAULT: usize = 5;
const PASSAGES_MAX: usize = 10;

/// A tool as an MCP client lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SharedTool {
    pub name: String,
    pub description: String,
    /// A JSON Schema object.
    pub input_schema: Value,
    /// It only reads: a client may call it without asking (MCP's `readOnlyHint`).
    pub read_only: bool,
}

/// A call's answer: the text the other app's model reads, and whether the call failed (MCP's
/// `isError`: a refusal the model can read and act on, not a protocol error).
#[derive(Debug, Clone, PartialEq)]
pub struct SharedReply {
    pub text: String,
    pub failed: bool,
}

/// What the tools work with: the store, the templates their words come from, and Maru's own
/// tools, which the shared ones run.
#[derive(Clone)]
pub struct Shared {
    store: Store,
    templates: Arc<Templates>,
    tools: ToolRegistry,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    SearchMemory,
    Remember,
    UpdateMemory,
    Forget,
    SearchChats,
    SearchProjectFiles,
}

impl Kind {
    const ALL: [Kind; 6] =
        [Kind::SearchMemory, Kind::Remember, Kind::UpdateMemory, Kind::Forget, Kind::SearchChats, Kind::SearchProjectFiles];

    fn name(self) -> &'static str {
        match self {
            Kind::SearchMemory => "search_memory",
            Kind::Remember => "remember",
            Kind::UpdateMemory => "update_memory",
            Kind::Forget => "forget",
            Kind::SearchChats => "search_chats",
            Kind::SearchProjectFiles => "search_project_files",
        }
    }

    fn by_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the user shares it now. Memory's tools follow the memory setting too, as the
    /// chat's model's do: with memory off there is nothing to search or keep. The files' tool
    /// needs a shared project that still exists (`projects`).
    fn shared(self, s: &settings::Settings, projects: &[projects::Project]) -> bool {
        let memory_on = s.memory_mode != MemoryMode::Off;
        match self {
            Kind::SearchMemory => s.sharing.memory_read && memory_on,
            Kind::Remember | Kind::UpdateMemory | Kind::Forget => s.sharing.memory_write && memory_on,
            Kind::SearchChats => s.sharing.chats,
            Kind::SearchProjectFiles => !projects.is_empty(),
        }
    }

    fn read_only(self) -> bool {
        matches!(self, Kind::SearchMemory | Kind::SearchChats | Kind::SearchProjectFiles)
    }
}

impl Shared {
    pub fn new(store: Store, templates: Arc<Templates>, tools: ToolRegistry) -> Shared {
        Shared { store, templates, tools }
    }

    /// For `maru mcp`, which another app starts whenever it likes, also while Maru is open: the
    /// data folder's database and templates without its lock, so neither keeps the other from
    /// starting. SQLite lets both write (WAL, and a wait when busy), and nothing here touches
    /// what the lock guards (the replies being written, the files' store).
    pub fn open(data_dir: &Path) -> Result<Shared> {
        crate::paths::create_private_dir(data_dir)?;
        let store = Store::open(&data_dir.join("maru.db"))?;
        let templates = Arc::new(Templates::load(Some(data_dir))?);
        let tools = ToolRegistry::new(templates.clone());
        let (clients, embedding) = (Arc::<llm::Clients>::default(), Arc::<Embedding>::default());
        tools.register(Arc::new(crate::attachments::tool::SearchAttachment::new(templates.clone(), clients, embedding)));
        crate::memory::tools::register(&tools, &templates);
        Ok(Shared::new(store, templates, tools))
    }

    /// What the app's model is told about Maru when it connects (MCP's `instructions`).
    pub fn instructions(&self) -> String {
        self.templates.render("sharing_instructions", &json!({})).map(|t| t.trim().to_string()).unwrap_or_else(|e| {
            tracing::warn!("the sharing instructions do not render: {e}");
            String::new()
        })
    }

    /// The tools shared now, as the settings say when asked: a client that lists again after
    /// the user changed them sees the change.
    pub async fn list(&self) -> Result<Vec<SharedTool>> {
        let (settings, projects) = self.store.read(|c| Ok((settings::load(c)?, shared_projects(c)?))).await?;
        Ok(Kind::ALL.into_iter().filter(|k| k.shared(&settings, &projects)).map(|k| self.describe(k, &projects)).collect())
    }

    fn describe(&self, kind: Kind, projects: &[projects::Project]) -> SharedTool {
        let text = json!({ "type": "string", "maxLength": TEXT_MAX_CHARS });
        let (vars, parameters) = match kind {
            Kind::SearchMemory => (json!({}), json!({ "type": "object", "properties": { "query": text }, "required": ["query"] })),
            Kind::Remember => (json!({}), json!({ "type": "object", "properties": { "fact": text }, "required": ["fact"] })),
            Kind::UpdateMemory => (
                json!({}),
                json!({ "type": "object", "properties": { "id": { "type": "integer" }, "fact": text }, "required": ["id", "fact"] }),
            ),
            Kind::Forget => (json!({}), json!({ "type": "object", "properties": { "id": { "type": "integer" } }, "required": ["id"] })),
            Kind::SearchChats => (
                json!({ "limit": CHATS_DEFAULT, "limit_max": CHATS_MAX }),
                json!({
                    "type": "object",
                    "properties": { "query": text, "limit": { "type": "integer", "minimum": 1, "maximum": CHATS_MAX } },
                    "required": ["query"]
                }),
            ),
            Kind::SearchProjectFiles => {
                let names: Vec<&str> = projects.iter().map(|p| p.name.as_str()).collect();
                let required = if names.len() == 1 { json!(["query"]) } else { json!(["query", "project"]) };
                (
                    json!({ "limit": PASSAGES_DEFAULT, "limit_max": PASSAGES_MAX, "projects": quoted(&names), "one": names.len() == 1 }),
                    json!({
                        "type": "object",
                        "properties": {
                            "query": text,
                            "project": { "type": "string", "enum": names },
                            "file": { "type": "string", "maxLength": TEXT_MAX_CHARS },
                            "limit": { "type": "integer", "minimum": 1, "maximum": PASSAGES_MAX }
                        },
                        "required": required
                    }),
                )
            }
        };
        let spec = tools::spec(&self.templates, kind.name(), &vars, parameters);
        SharedTool { name: spec.name, description: spec.description, input_schema: spec.parameters, read_only: kind.read_only() }
    }

    /// Runs a call of `client` (the name it gave when it connected) and records it. A tool not
    /// shared, or bad arguments, is a failed call whose text says what to do; only the store
    /// failing is an error.
    pub async fn call(&self, client: &str, name: &str, arguments: Option<Map<String, Value>>) -> Result<SharedReply> {
        let args = arguments.unwrap_or_default();
        let summary = summarize(&args);
        let reply = self.run(name, args).await?;
        let (client, tool, error) = (client.to_string(), name.to_string(), reply.failed.then(|| reply.text.clone()));
        // The call is answered even if it cannot be recorded (a full disk): the record is for the
        // user to look back at, not a condition of the call.
        if let Err(e) = self.store.write(move |tx| shared_calls::record(tx, &client, &tool, &summary, error.as_deref())).await {
            tracing::warn!("a shared tool's call could not be recorded: {e}");
        }
        Ok(reply)
    }

    async fn run(&self, name: &str, args: Map<String, Value>) -> Result<SharedReply> {
        let (settings, projects) = self.store.read(|c| Ok((settings::load(c)?, shared_projects(c)?))).await?;
        let Some(kind) = Kind::by_name(name).filter(|k| k.shared(&settings, &projects)) else {
            let shared: Vec<&str> = Kind::ALL.into_iter().filter(|k| k.shared(&settings, &projects)).map(Kind::name).collect();
            // A name is echoed only so far: an app sending a megabyte of one gets no megabyte back.
            let name: String = name.chars().take(100).collect();
            return Ok(self.refuse("not_shared", json!({ "name": name, "shared": shared.join(", ") })));
        };
        for (field, value) in &args {
            if let Some(text) = value.as_str() {
                let chars = text.chars().count();
                if chars > TEXT_MAX_CHARS {
                    return Ok(self.refuse("too_long", json!({ "field": field, "chars": chars, "max": TEXT_MAX_CHARS })));
                }
            }
        }
        match kind {
            Kind::SearchMemory | Kind::Remember | Kind::UpdateMemory | Kind::Forget => {
                // Memory is no project's: the Default one stands for "none".
                let default = self.store.read(projects::default_id).await?;
                Ok(self.own_tool(ToolContext::outside_chats(default, self.store.clone()), kind.name(), &args).await)
            }
            Kind::SearchChats => self.search_chats(&args).await,
            Kind::SearchProjectFiles => {
                let asked = args.get("project").and_then(Value::as_str).map(str::trim).filter(|p| !p.is_empty());
                let project = match (asked, projects.as_slice()) {
                    (None, [only]) => Some(only),
                    (Some(asked), _) => projects.iter().find(|p| p.name.to_lowercase() == asked.to_lowercase()),
                    (None, _) => None,
                };
                let Some(project) = project else {
                    let names: Vec<&str> = projects.iter().map(|p| p.name.as_str()).collect();
                    return Ok(self.refuse("no_such_shared_project", json!({ "name": asked, "projects": quoted(&names) })));
                };
                let mut args = args;
                args.remove("project");
                if let Some(limit) = args.get("limit").and_then(Value::as_u64) {
                    args.insert("limit".into(), json!(limit.clamp(1, PASSAGES_MAX as u64)));
                }
                let ctx = ToolContext::outside_chats(project.id, self.store.clone());
                Ok(self.own_tool(ctx, crate::attachments::tool::NAME, &args).await)
            }
        }
    }

    /// One of the tools the chat's model has, run as it runs them.
    async fn own_tool(&self, ctx: ToolContext, name: &str, args: &Map<String, Value>) -> SharedReply {
        let arguments = Value::Object(args.clone()).to_string();
        match self.tools.run(ctx, name, &arguments).await {
            Ok(reply) => SharedReply { text: reply.text, failed: false },
            Err(reply) => SharedReply { text: reply.text, failed: true },
        }
    }

    async fn search_chats(&self, args: &Map<String, Value>) -> Result<SharedReply> {
        let Some(query) = args.get("query").and_then(Value::as_str).map(str::trim).filter(|q| !q.is_empty()).map(str::to_string) else {
            return Ok(self.refuse("query_required", json!({})));
        };
        if maru_retrieval::analysis::query(&query).is_none() {
            return Ok(self.refuse("no_search_words", json!({ "query": query })));
        }
        let limit = args.get("limit").and_then(Value::as_u64).map_or(CHATS_DEFAULT, |l| (l as usize).clamp(1, CHATS_MAX));
        let asked = query.clone();
        let (hits, projects) =
            self.store.read(move |c| Ok((crate::store::search::chats(c, &asked, limit, false)?, projects::list(c)?))).await?;
        let hits: Vec<Value> = hits
            .into_iter()
            .map(|h| {
                let project = projects.iter().find(|p| p.id == h.project_id).map_or("", |p| p.name.as_str());
                json!({ "session_id": h.session_id, "title": h.title, "project": project, "snippet": h.snippet, "earlier_version": h.earlier_version })
            })
            .collect();
        let text = self.templates.render("tools/search_chats_result", &json!({ "hits": hits, "query": query }))?;
        Ok(SharedReply { text: text.trim().to_string(), failed: false })
    }

    fn refuse(&self, key: &str, params: Value) -> SharedReply {
        SharedReply { text: tools::say(&self.templates, key, params), failed: true }
    }
}

/// The projects whose files are shared, as they are now (a deleted one is simply gone).
fn shared_projects(conn: &rusqlite::Connection) -> Result<Vec<projects::Project>> {
    let ids = settings::load(conn)?.sharing.projects;
    Ok(projects::list(conn)?.into_iter().filter(|p| ids.contains(&p.id)).collect())
}

fn quoted(names: &[&str]) -> String {
    names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ")
}

/// What a call asked, in a line for the user's record: the query or fact, the fact's id, the
/// project and file.
fn summarize(args: &Map<String, Value>) -> String {
    let mut parts = vec![];
    for key in ["query", "fact"] {
        if let Some(text) = args.get(key).and_then(Value::as_str) {
            parts.push(text.trim().to_string());
        }
    }
    if let Some(id) = args.get("id").and_then(Value::as_i64) {
        parts.insert(0, format!("#{id}"));
    }
    for key in ["project", "file"] {
        if let Some(text) = args.get(key).and_then(Value::as_str) {
            parts.push(format!("({text})"));
        }
    }
    parts.join(" ")
}
