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
use crate::tools::{self, FoundPassage, Offer, Tool, ToolContext, ToolDid, ToolFailure, ToolReply};
use maru_retrieval::analysis;

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

    fn call(&self, ctx: ToolContext, args: Value) -> BoxFuture<'static, Result<ToolReply, ToolReply>> {
        let templates = self.templates.clone();
        Box::pin(async move {
            let query = args["query"]
                .as_str()
                .map(str::trim)
                .filter(|q| !q.is_empty())
                .ok_or_else(|| tools::refuse(&templates, ToolFailure::QueryRequired, json!({})))?;
            let file = args["file"].as_str().map(str::trim).filter(|f| !f.is_empty()).map(str::to_string);
            let limit = args["limit"].as_u64().map_or(LIMIT_DEFAULT, |l| (l as usize).clamp(1, LIMIT_MAX));
            if analysis::query(query).is_none() {
                return Err(tools::refuse(&templates, ToolFailure::NoSearchWords, json!({ "query": query })));
            }
            let asked = query.to_string();
            let (session_id, project_id) = (ctx.session_id, ctx.project_id);
            let (found, files) = ctx
                .store
                .read(move |c| {
                    let found = table::search(c, &asked, session_id, project_id, file.as_deref(), limit)?;
                    let files = match found.hits.is_empty() {
                        true => table::in_scope(c, session_id, project_id)?.into_iter().map(|a| a.name).collect::<Vec<_>>(),
                        false => vec![],
                    };
                    Ok((found, files))
                })
                .await
                .map_err(|e| {
                    tracing::warn!("search_attachment failed: {e}");
                    ToolReply::from(e)
                })?;
            let file = args["file"].as_str();
            let (named, more) = files_to_name(files, query);
            let text = templates.render(
                "tools/search_attachment_result",
                &json!({
                    "hits": found.hits,
                    "unranked": found.unranked,
                    "query": query,
                    "file": file,
                    "files": named.join(", "),
                    "more": more
                }),
            )?;
            let did = match found.hits.is_empty() {
                true => ToolDid::NothingFound { query: query.to_string() },
                false => ToolDid::Passages {
                    passages: found
                        .hits
                        .into_iter()
                        .map(|h| FoundPassage { file: h.name, page: h.page, line_start: h.line_start, line_end: h.line_end, text: h.text })
                        .collect(),
                },
            };
            Ok(ToolReply::new(text, did))
        })
    }
}

/// File names a search that found nothing lists, at most this many: enough to pick a `file` or
/// a better word, never a whole folder's worth of names (1,700 names were 18,000 tokens).
const NAMED_MAX: usize = 30;

/// The file names to list after no match, those whose names share a word with the query first,
/// and how many are left unnamed.
fn files_to_name(mut files: Vec<String>, query: &str) -> (Vec<String>, usize) {
    // Short words ("a", "do") are in nearly every name: only words that say something count.
    let telling = |w: &&str| w.chars().count() >= if w.is_ascii() { 3 } else { 2 };
    let words: Vec<String> = analysis::query_words(query).into_iter().filter(telling).map(str::to_lowercase).collect();
    let named_in = |name: &String| {
        let name = name.to_lowercase();
        !words.iter().any(|w| name.contains(w.as_str()))
    };
    files.sort_by_key(named_in); // stable: the rest keep their order
    let more = files.len().saturating_sub(NAMED_MAX);
    files.truncate(NAMED_MAX);
    (files, more)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_that_finds_nothing_names_a_few_files_not_the_whole_folder() {
        let mut files: Vec<String> = (0..1_700).map(|i| format!("crates/uv-{i}/src/lib.rs")).collect();
        files.push("docs/concepts/python-versions.md".into());
        let (named, more) = files_to_name(files, "how do I pin a Python version");
        assert_eq!(named.len(), NAMED_MAX, "at most {NAMED_MAX} names reach the model");
        assert_eq!(more, 1_701 - NAMED_MAX, "and the model is told how many more there are");
        assert_eq!(named[0], "docs/concepts/python-versions.md", "a file named after the question comes first");
    }
}
