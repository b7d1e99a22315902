//! `search_attachment(query, file?, limit?)`: ranked passages from the files the turn's session
//! can see, its own and its current project's. The scope comes from the turn, never from the
//! arguments: a file name from another project simply finds nothing. The answer is quoted file
//! content, and the turn wraps every tool result as data, not instructions.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use crate::llm::ToolSpec;
use crate::prompt::Templates;
use crate::store::attachments as table;
use crate::store::terms;
use crate::tools::{self, Offer, Tool, ToolContext};

pub const NAME: &str = "search_attachment";
const LIMIT_DEFAULT: usize = 5;
const LIMIT_MAX: usize = 10;

pub struct SearchAttachment {
    templates: Arc<Templates>,
    /// Rendered once: the templates do not change while Maru runs.
    spec: ToolSpec,
}

impl SearchAttachment {
    pub fn new(templates: Arc<Templates>) -> SearchAttachment {
        let parameters = json!({
            "type": "object",
            "properties": {
                "query": { "type": "string" },
                "file": { "type": "string" },
                "limit": { "type": "integer", "minimum": 1, "maximum": LIMIT_MAX }
            },
            "required": ["query"]
        });
        let spec = tools::spec(&templates, NAME, &json!({ "limit": LIMIT_DEFAULT, "limit_max": LIMIT_MAX }), parameters);
        SearchAttachment { templates, spec }
    }
}

impl Tool for SearchAttachment {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn offered(&self, turn: &Offer) -> bool {
        turn.has_files
    }

    fn call(&self, ctx: ToolContext, args: Value) -> BoxFuture<'static, Result<String, String>> {
        let templates = self.templates.clone();
        Box::pin(async move {
            let query = args["query"]
                .as_str()
                .map(str::trim)
                .filter(|q| !q.is_empty())
                .ok_or_else(|| tools::say(&templates, "query_required", json!({})))?;
            let file = args["file"].as_str().map(str::trim).filter(|f| !f.is_empty()).map(str::to_string);
            let limit = args["limit"].as_u64().map_or(LIMIT_DEFAULT, |l| (l as usize).clamp(1, LIMIT_MAX));
            if terms::query(query).is_none() {
                return Err(tools::say(&templates, "no_search_words", json!({ "query": query })));
            }
            let asked = query.to_string();
            let (session_id, project_id) = (ctx.session_id, ctx.project_id);
            let (hits, files) = ctx
                .store
                .read(move |c| {
                    let hits = table::search(c, &asked, session_id, project_id, file.as_deref(), limit)?;
                    let files = table::in_scope(c, session_id, project_id)?.into_iter().map(|a| a.name).collect::<Vec<_>>();
                    Ok((hits, files))
                })
                .await
                .map_err(|e| {
                    tracing::warn!("search_attachment failed: {e}");
                    e.body().message
                })?;
            let file = args["file"].as_str();
            templates
                .render("tools/search_attachment_result", &json!({ "hits": hits, "query": query, "file": file, "files": files.join(", ") }))
                .map_err(|e| e.body().message)
        })
    }
}
