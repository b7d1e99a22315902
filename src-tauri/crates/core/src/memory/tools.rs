//! `remember(fact)`, `update_memory(id, fact)`, `forget(id)`, `search_memory(query)`.
//!
//! What the model may do follows the memory setting: with `review` (the default) a new fact or a
//! change to a kept one waits for the user; with `auto` it is kept at once; with `off` the tools
//! are not offered. Secrets are refused by the store, whoever asks.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use crate::prompt::Templates;
use crate::store::memories::{self, Proposed};
use crate::store::settings;
use crate::store::settings::MemoryMode;
use crate::tools::{self, Offer, Tool, ToolContext, ToolRegistry};

pub fn register(registry: &ToolRegistry, templates: &Arc<Templates>) {
    for op in [Op::Remember, Op::Update, Op::Forget, Op::Search] {
        // Rendered once: the templates do not change while Maru runs.
        let spec = tools::spec(templates, MemoryTool::name(op), &json!({}), MemoryTool::parameters(op));
        registry.register(Arc::new(MemoryTool { op, templates: templates.clone(), spec }));
    }
}

#[derive(Clone, Copy)]
enum Op {
    Remember,
    Update,
    Forget,
    Search,
}

struct MemoryTool {
    op: Op,
    templates: Arc<Templates>,
    spec: crate::llm::ToolSpec,
}

impl MemoryTool {
    fn name(op: Op) -> &'static str {
        match op {
            Op::Remember => "remember",
            Op::Update => "update_memory",
            Op::Forget => "forget",
            Op::Search => "search_memory",
        }
    }
}

impl MemoryTool {
    fn parameters(op: Op) -> Value {
        match op {
            Op::Remember => json!({ "type": "object", "properties": { "fact": { "type": "string" } }, "required": ["fact"] }),
            Op::Update => json!({
                "type": "object",
                "properties": { "id": { "type": "integer" }, "fact": { "type": "string" } },
                "required": ["id", "fact"]
            }),
            Op::Forget => json!({ "type": "object", "properties": { "id": { "type": "integer" } }, "required": ["id"] }),
            Op::Search => json!({ "type": "object", "properties": { "query": { "type": "string" } }, "required": ["query"] }),
        }
    }
}

impl Tool for MemoryTool {
    fn spec(&self) -> crate::llm::ToolSpec {
        self.spec.clone()
    }

    fn offered(&self, turn: &Offer) -> bool {
        turn.memory_on
    }

    fn call(&self, ctx: ToolContext, args: Value) -> BoxFuture<'static, Result<String, String>> {
        let (op, templates) = (self.op, self.templates.clone());
        Box::pin(async move {
            let arg = |key: &str| args[key].as_str().map(str::trim).filter(|t| !t.is_empty()).map(str::to_string);
            let (fact, query, id) = (arg("fact"), arg("query"), args["id"].as_i64());
            let (session_id, message_id) = (ctx.session_id, ctx.message_id);
            let outcome = ctx
                .store
                .write(move |tx| {
                    let mode = settings::load(tx)?.memory_mode;
                    if mode == MemoryMode::Off {
                        return Ok(json!({ "error": "memory_off" }));
                    }
                    Ok(match op {
                        Op::Remember => {
                            let Some(fact) = fact else { return Ok(json!({ "error": "fact_required" })) };
                            match memories::propose(tx, &fact, mode, Some(session_id), message_id)? {
                                Proposed::Added(m) if m.status == memories::MemoryStatus::Pending => json!({ "outcome": "pending", "id": m.id, "fact": m.content }),
                                Proposed::Added(m) => json!({ "outcome": "saved", "id": m.id, "fact": m.content }),
                                Proposed::Updated(m) => json!({ "outcome": "merged", "id": m.id, "fact": m.content, "pending": m.status == memories::MemoryStatus::Pending }),
                                Proposed::Change { change, fact } => {
                                    json!({ "outcome": "change_proposed", "id": fact.id, "was": fact.content, "fact": change.content })
                                }
                            }
                        }
                        Op::Update | Op::Forget => {
                            let Some(id) = id else { return Ok(json!({ "error": "id_required" })) };
                            memories::get(tx, id)?;
                            match (op, mode) {
                                (_, MemoryMode::Review) => json!({ "outcome": "needs_review", "id": id }),
                                (Op::Update, _) => {
                                    let Some(fact) = fact else { return Ok(json!({ "error": "fact_required" })) };
                                    let patch = memories::MemoryPatch { content: Some(fact), pinned: None };
                                    let m = memories::update(tx, id, &patch)?;
                                    json!({ "outcome": "updated", "id": m.id, "fact": m.content })
                                }
                                _ => {
                                    memories::delete(tx, id)?;
                                    json!({ "outcome": "forgotten", "id": id })
                                }
                            }
                        }
                        Op::Search => {
                            let query = query.unwrap_or_default();
                            let facts = memories::search(tx, &query, 10)?;
                            json!({ "outcome": "found", "query": query, "facts": facts })
                        }
                    })
                })
                .await
                // A refusal (a secret, no such fact) is the model's to read and tell the user.
                .map_err(|e| e.body().message)?;
            if let Some(key) = outcome["error"].as_str() {
                return Err(tools::say(&templates, key, json!({})));
            }
            templates.render("tools/memory_result", &outcome).map(|t| t.trim().to_string()).map_err(|e| e.body().message)
        })
    }
}
