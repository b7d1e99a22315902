//! `search_attachment(query, file?, limit?)`: ranked passages from the files the turn's session
//! can see, its own and its current project's. The scope comes from the turn, never from the
//! arguments: a file name from another project simply finds nothing. The answer is quoted file
//! content, and the turn wraps every tool result as data, not instructions. How the passages
//! are ranked (words, meaning, reranker) is `hybrid`'s.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use super::embedding::Embedding;
use super::hybrid::{self, Scope};
use crate::llm::{self, ToolSpec};
use crate::prompt::Templates;
use crate::store::attachments as table;
use crate::tools::{self, FoundPassage, Offer, RankingStep, Tool, ToolContext, ToolDid, ToolFailure, ToolReply};
use maru_retrieval::analysis;

pub const NAME: &str = "search_attachment";
const LIMIT_DEFAULT: usize = 5;
const LIMIT_MAX: usize = 10;

pub struct SearchAttachment {
    templates: Arc<Templates>,
    /// Rendered once: the templates do not change while Maru runs.
    spec: ToolSpec,
    /// The servers of the embeddings model and the reranker, when the user chose them.
    clients: Arc<llm::Clients>,
    embedding: Arc<Embedding>,
}

impl SearchAttachment {
    pub fn new(templates: Arc<Templates>, clients: Arc<llm::Clients>, embedding: Arc<Embedding>) -> SearchAttachment {
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
        SearchAttachment { templates, spec, clients, embedding }
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
        let (templates, clients, embedding) = (self.templates.clone(), self.clients.clone(), self.embedding.clone());
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
            let scope = Scope { session_id: ctx.session_id, project_id: ctx.project_id, file };
            let found = hybrid::search(&ctx.store, &clients, &embedding, query, &scope, limit).await.map_err(|e| {
                tracing::warn!("search_attachment failed: {e}");
                ToolReply::from(e)
            })?;
            let (hits, ranking, unranked) = (found.hits, found.ranking, found.unranked);
            let files = match hits.is_empty() {
                true => ctx
                    .store
                    .read(move |c| table::in_scope(c, scope.session_id, scope.project_id))
                    .await
                    .map_err(ToolReply::from)?
                    .into_iter()
                    .map(|a| a.name)
                    .collect::<Vec<_>>(),
                false => vec![],
            };
            let file = args["file"].as_str();
            let (named, more) = files_to_name(files, query);
            let text = templates.render(
                "tools/search_attachment_result",
                &json!({
                    "hits": hits, "unranked": unranked, "query": query, "file": file, "files": named.join(", "), "more": more,
                    // Which part of a hybrid search was left out, and why: the template says so.
                    "meaning_failed": ranking.as_ref().and_then(|r| failed(&r.meaning)),
                    "meaning_timed_out": ranking.as_ref().is_some_and(|r| r.meaning == RankingStep::TimedOut),
                    "meaning_pending": ranking.as_ref().is_some_and(|r| r.meaning == RankingStep::Pending),
                    "rerank_failed": ranking.as_ref().and_then(|r| r.rerank.as_ref()).and_then(failed),
                    "rerank_timed_out": ranking.as_ref().is_some_and(|r| r.rerank == Some(RankingStep::TimedOut)),
                }),
            )?;
            let did = match hits.is_empty() {
                true => ToolDid::NothingFound { query: query.to_string(), ranking },
                false => ToolDid::Passages {
                    passages: hits
                        .into_iter()
                        .map(|h| FoundPassage { file: h.name, page: h.page, line_start: h.line_start, line_end: h.line_end, text: h.text })
                        .collect(),
                    ranking,
                },
            };
            Ok(ToolReply::new(text, did))
        })
    }
}

/// The server's words when a step failed.
fn failed(step: &RankingStep) -> Option<&str> {
    match step {
        RankingStep::Failed { message } => Some(message),
        _ => None,
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
