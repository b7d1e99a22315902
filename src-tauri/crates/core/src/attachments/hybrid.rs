//! `search_attachment`'s ranking: by the words always, and, once the user has chosen an
//! embeddings model, by meaning too. The two rankings are fused by reciprocal rank
//! (`maru_retrieval::fusion`), and a reranker, when one is chosen, reorders the best of them.
//!
//! Each server gets a budget: the question's embedding `QUERY_BUDGET`, the reranker
//! `RERANK_BUDGET`. Past it, or when a server fails, its step is left out and the search says
//! so ([`SearchRanking`]); the words alone always answer, so a server that is down or slow never
//! costs the user a search or a turn.

use std::collections::HashMap;
use std::time::Duration;

use super::embedding::{client_for, Embedding};
use crate::error::Result;
use crate::llm;
use crate::store::attachments::{self as table, Hit};
use crate::store::passage_vectors::{self as vectors_table, VectorModel};
use crate::store::settings::{self, ModelChoice, Settings};
use crate::store::Store;
use crate::tools::{RankingStep, SearchRanking};
use maru_retrieval::{fusion, vectors};

/// The question's embedding: one short text, tens of milliseconds on a local server; past this
/// the server is taken to be busy or gone.
pub const QUERY_BUDGET: Duration = Duration::from_secs(3);
/// The reranker's look at the best candidates: a cross-encoder reads each with the question,
/// about a second for twenty passages on a CPU.
pub const RERANK_BUDGET: Duration = Duration::from_secs(5);
/// How many of the fused passages the reranker reorders.
const RERANK_TOP: usize = 20;

/// Where a search looks: the turn's session and project, and perhaps one file by name.
#[derive(Debug, Clone)]
pub struct Scope {
    pub session_id: i64,
    pub project_id: i64,
    pub file: Option<String>,
}

/// The passages found, best first, and how (`None`: by the words alone, as the user chose).
pub struct Found {
    pub hits: Vec<Hit>,
    pub ranking: Option<SearchRanking>,
    /// The words' ranking ran out of time: some passages were taken as they matched.
    pub unranked: bool,
}

/// The best `limit` passages for `asked` within `scope`.
pub async fn search(
    store: &Store,
    clients: &llm::Clients,
    embedding: &Embedding,
    asked: &str,
    scope: &Scope,
    limit: usize,
) -> Result<Found> {
    let settings = store.read(settings::load).await?;
    let Some(choice) = settings.embeddings.clone() else {
        let found = by_words(store, asked, scope, limit).await?;
        return Ok(Found { hits: found.hits, ranking: None, unranked: found.unranked });
    };
    // More candidates than asked for: fusion and the reranker choose among them.
    let candidates = (limit * 4).max(RERANK_TOP);
    let (words, meaning) = tokio::join!(
        by_words(store, asked, scope, candidates),
        by_meaning(store, clients, embedding, &settings, &choice, asked, scope, candidates)
    );
    let words = words?;
    let unranked = words.unranked;
    let (meaning_hits, meaning) = meaning;
    let mut hits = match meaning_hits.is_empty() {
        true => words.hits,
        false => fuse(words.hits, meaning_hits),
    };
    let rerank = match &settings.reranker {
        Some(reranker) if !hits.is_empty() => Some(rerank(store, clients, &settings, reranker, asked, &mut hits).await),
        _ => None,
    };
    hits.truncate(limit);
    Ok(Found { hits, ranking: Some(SearchRanking { meaning, rerank }), unranked })
}

async fn by_words(store: &Store, asked: &str, scope: &Scope, limit: usize) -> Result<table::Found> {
    let (asked, scope) = (asked.to_string(), scope.clone());
    store.read(move |c| table::search(c, &asked, scope.session_id, scope.project_id, scope.file.as_deref(), limit)).await
}

/// The passages nearest the question in meaning, and how that went. Never an error: a failure
/// is a step left out.
#[allow(clippy::too_many_arguments)]
async fn by_meaning(
    store: &Store,
    clients: &llm::Clients,
    embedding: &Embedding,
    settings: &Settings,
    choice: &ModelChoice,
    asked: &str,
    scope: &Scope,
    k: usize,
) -> (Vec<Hit>, RankingStep) {
    let asking = async {
        let client = client_for(store, clients, settings, choice).await?;
        Ok::<_, crate::error::Error>(client.embed(&choice.model, &[asked.to_string()]).await?)
    };
    let query = match tokio::time::timeout(QUERY_BUDGET, asking).await {
        Err(_) => return (vec![], RankingStep::TimedOut),
        Ok(Err(e)) => return (vec![], RankingStep::Failed { message: e.body().message }),
        Ok(Ok(v)) => v.first().and_then(|v| vectors::quantize(v)),
    };
    let Some(query) = query else {
        return (vec![], RankingStep::Failed { message: "the embeddings server answered with an empty vector".into() });
    };
    let model = VectorModel { connection_id: choice.connection_id, model: choice.model.clone() };
    let scope = scope.clone();
    let found = store
        .read(move |c| {
            let (session_id, project_id, file) = (scope.session_id, scope.project_id, scope.file.as_deref());
            let nearest = vectors_table::nearest(c, &model, &query, session_id, project_id, file, k)?;
            if nearest.is_empty() {
                // The stored vectors are of another width: the server's model changed under its name.
                if vectors_table::width(c, &model)?.is_some_and(|w| w != query.values.len()) {
                    return Ok(Meaning::Stale);
                }
                if vectors_table::any_missing(c, session_id, project_id, file)? {
                    return Ok(Meaning::NotYet);
                }
            }
            Ok(Meaning::Found(vectors_table::hits(c, &nearest, session_id, project_id, file)?))
        })
        .await;
    match found {
        Ok(Meaning::Found(hits)) => (hits, RankingStep::Used),
        Ok(Meaning::Stale) => {
            embedding.mark_stale();
            (vec![], RankingStep::Pending)
        }
        Ok(Meaning::NotYet) => (vec![], RankingStep::Pending),
        Err(e) => (vec![], RankingStep::Failed { message: e.body().message }),
    }
}

/// What the scan of the scope's vectors found.
enum Meaning {
    Found(Vec<Hit>),
    /// Nothing: the stored vectors are of another width.
    Stale,
    /// Nothing: the scope's passages are not embedded yet.
    NotYet,
}

/// The two rankings as one, by reciprocal rank. A passage is known by its file and text, as the
/// word search tells its own hits apart.
fn fuse(words: Vec<Hit>, meaning: Vec<Hit>) -> Vec<Hit> {
    let key = |h: &Hit| (h.name.clone(), h.text.clone());
    let lists = [words.iter().map(key).collect::<Vec<_>>(), meaning.iter().map(key).collect::<Vec<_>>()];
    let mut by_key: HashMap<(String, String), Hit> = HashMap::new();
    for hit in meaning.into_iter().chain(words) {
        by_key.insert(key(&hit), hit);
    }
    fusion::reciprocal_rank(&lists, fusion::K).into_iter().filter_map(|(k, _)| by_key.remove(&k)).collect()
}

/// Reorders the best [`RERANK_TOP`] of `hits` by the reranker's scores, within its budget;
/// past it, or when it fails, they keep their order.
async fn rerank(
    store: &Store,
    clients: &llm::Clients,
    settings: &Settings,
    choice: &ModelChoice,
    asked: &str,
    hits: &mut Vec<Hit>,
) -> RankingStep {
    let top = hits.len().min(RERANK_TOP);
    let documents: Vec<String> = hits[..top]
        .iter()
        .map(|h| match &h.heading {
            Some(heading) => format!("{heading}\n{}", h.text),
            None => h.text.clone(),
        })
        .collect();
    let asking = async {
        let client = client_for(store, clients, settings, choice).await?;
        Ok::<_, crate::error::Error>(client.rerank(&choice.model, asked, &documents).await?)
    };
    let order = match tokio::time::timeout(RERANK_BUDGET, asking).await {
        Err(_) => return RankingStep::TimedOut,
        Ok(Err(e)) => return RankingStep::Failed { message: e.body().message },
        Ok(Ok(order)) => order,
    };
    let mut taken: Vec<Option<Hit>> = hits.drain(..top).map(Some).collect();
    let mut reordered: Vec<Hit> = order.into_iter().filter_map(|(i, _)| taken.get_mut(i).and_then(Option::take)).collect();
    // Any the reranker left out keep their place after those it scored.
    reordered.extend(taken.into_iter().flatten());
    reordered.append(hits);
    *hits = reordered;
    RankingStep::Used
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(name: &str, text: &str) -> Hit {
        Hit { attachment_id: 1, name: name.into(), page: None, line_start: 1, line_end: 1, heading: None, text: text.into(), rank: 0.0 }
    }

    #[test]
    fn fusion_keeps_each_passage_once_and_favours_agreement() {
        let words = vec![hit("a.md", "licence"), hit("a.md", "pinning")];
        let meaning = vec![hit("a.md", "python version"), hit("a.md", "pinning")];
        let fused: Vec<String> = fuse(words, meaning).into_iter().map(|h| h.text).collect();
        assert_eq!(fused, ["pinning", "licence", "python version"], "found both ways beats found one way, and nothing is lost twice");
    }
}
