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
use crate::tools::{self, FoundFact, Offer, Tool, ToolContext, ToolDid, ToolFailure, ToolRegistry, ToolReply};

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

    fn call(&self, ctx: ToolContext, args: Value) -> BoxFuture<'static, Result<ToolReply, ToolReply>> {
        let (op, templates) = (self.op, self.templates.clone());
        Box::pin(async move {
            let arg = |key: &str| args[key].as_str().map(str::trim).filter(|t| !t.is_empty()).map(str::to_string);
            let (fact, query, id) = (arg("fact"), arg("query"), args["id"].as_i64());
            let (session_id, message_id) = (ctx.chat(), ctx.message_id);
            // What the call did, or why it did not.
            let done: Result<(ToolDid, Value), ToolFailure> = ctx
                .store
                .write(move |tx| {
                    let mode = settings::load(tx)?.memory_mode;
                    if mode == MemoryMode::Off {
                        return Ok(Err(ToolFailure::MemoryOff));
                    }
                    Ok(Ok(match op {
                        Op::Remember => {
                            let Some(fact) = fact else { return Ok(Err(ToolFailure::FactRequired)) };
                            super::refuse_secret(&fact)?;
                            match memories::propose(tx, &fact, mode, session_id, message_id)? {
                                Proposed::Added(m) if m.status == memories::MemoryStatus::Pending => (
                                    ToolDid::Proposed { id: m.id, fact: m.content.clone() },
                                    json!({ "outcome": "pending", "id": m.id, "fact": m.content }),
                                ),
                                Proposed::Added(m) => (
                                    ToolDid::Saved { id: m.id, fact: m.content.clone() },
                                    json!({ "outcome": "saved", "id": m.id, "fact": m.content }),
                                ),
                                Proposed::Updated(m) => {
                                    let pending = m.status == memories::MemoryStatus::Pending;
                                    let did = ToolDid::Merged { id: m.id, fact: m.content.clone(), pending };
                                    (did, json!({ "outcome": "merged", "id": m.id, "fact": m.content, "pending": pending }))
                                }
                                Proposed::Change { change, fact } => {
                                    let did =
                                        ToolDid::ChangeProposed { id: fact.id, was: fact.content.clone(), fact: change.content.clone() };
                                    (
                                        did,
                                        json!({ "outcome": "change_proposed", "id": fact.id, "was": fact.content, "fact": change.content }),
                                    )
                                }
                            }
                        }
                        Op::Update | Op::Forget => {
                            let Some(id) = id else { return Ok(Err(ToolFailure::IdRequired)) };
                            memories::get(tx, id)?;
                            match (op, mode) {
                                (_, MemoryMode::Review) => (ToolDid::NeedsReview { id }, json!({ "outcome": "needs_review", "id": id })),
                                (Op::Update, _) => {
                                    let Some(fact) = fact else { return Ok(Err(ToolFailure::FactRequired)) };
                                    super::refuse_secret(&fact)?;
                                    let patch = memories::MemoryPatch { content: Some(fact), pinned: None };
                                    let m = memories::update(tx, id, &patch)?;
                                    (
                                        ToolDid::Updated { id: m.id, fact: m.content.clone() },
                                        json!({ "outcome": "updated", "id": m.id, "fact": m.content }),
                                    )
                                }
                                _ => {
                                    memories::delete(tx, id)?;
                                    (ToolDid::Forgotten { id }, json!({ "outcome": "forgotten", "id": id }))
                                }
                            }
                        }
                        Op::Search => {
                            let query = query.unwrap_or_default();
                            let facts = memories::search(tx, &query, 10)?;
                            let did = match facts.is_empty() {
                                true => ToolDid::NothingFound { query: query.clone(), ranking: None },
                                false => ToolDid::Facts {
                                    facts: facts.iter().map(|m| FoundFact { id: m.id, content: m.content.clone() }).collect(),
                                },
                            };
                            (did, json!({ "outcome": "found", "query": query, "facts": facts }))
                        }
                    }))
                })
                .await?;
            let (did, vars) = done.map_err(|key| tools::refuse(&templates, key, json!({})))?;
            let text = templates.render("tools/memory_result", &vars)?;
            Ok(ToolReply::new(text.trim().to_string(), did))
        })
    }
}
