//! What a model server says about meaning rather than words: embeddings (OpenAI's
//! `POST {base}/embeddings`, which vLLM, llama.cpp `--embeddings`, Ollama and LM Studio serve)
//! and a reranker's relevance scores (`POST {base}/rerank` as llama.cpp `--reranking`, vLLM,
//! TEI and Infinity serve it: `{model, query, documents}` → `results[{index, relevance_score}]`).
//! The connection, key and error handling are the chat client's.

use serde_json::{json, Value};
use tracing::instrument;

use super::client::Client;
use super::error::{trim_for_display, LlmError};

impl Client {
    /// One vector per input, in the inputs' order.
    #[instrument(skip(self, inputs), fields(inputs = inputs.len()), err(Display, level = "warn"))]
    pub async fn embed(&self, model: &str, inputs: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        if inputs.is_empty() {
            return Ok(vec![]);
        }
        let url = self.endpoint().api_url("embeddings")?;
        let body = json!({ "model": model, "input": inputs, "encoding_format": "float" });
        let (status, reply) = self.json_call(|| self.http().post(url.clone()).json(&body), &url, self.timeouts().first_byte).await?;
        if !status.is_success() {
            return Err(self.error_for_status(status, &reply, Some(model), &url));
        }
        parse_embeddings(&json_of(&reply, "embeddings")?, inputs.len())
    }

    /// The relevance of each of `documents` to `query`, as (index into `documents`, score),
    /// best first.
    #[instrument(skip(self, query, documents), fields(documents = documents.len()), err(Display, level = "warn"))]
    pub async fn rerank(&self, model: &str, query: &str, documents: &[String]) -> Result<Vec<(usize, f32)>, LlmError> {
        if documents.is_empty() {
            return Ok(vec![]);
        }
        let url = self.endpoint().api_url("rerank")?;
        let body = json!({ "model": model, "query": query, "documents": documents, "top_n": documents.len() });
        let (status, reply) = self.json_call(|| self.http().post(url.clone()).json(&body), &url, self.timeouts().first_byte).await?;
        if !status.is_success() {
            return Err(self.error_for_status(status, &reply, Some(model), &url));
        }
        parse_rerank(&json_of(&reply, "rerank")?, documents.len())
    }
}

fn json_of(body: &str, what: &str) -> Result<Value, LlmError> {
    serde_json::from_str(body).map_err(|_| {
        LlmError::bad_response(format!(
            "the {what} reply is not JSON: \"{}\"",
            trim_for_display(&body.chars().take(200).collect::<String>())
        ))
    })
}

/// OpenAI's `{"data":[{"index","embedding":[…]}]}`, in any order; every input must have one.
fn parse_embeddings(v: &Value, count: usize) -> Result<Vec<Vec<f32>>, LlmError> {
    let data =
        v.get("data").and_then(Value::as_array).ok_or_else(|| LlmError::bad_response("the embeddings reply has no \"data\" array"))?;
    let mut out: Vec<Option<Vec<f32>>> = vec![None; count];
    for (at, item) in data.iter().enumerate() {
        let index = item.get("index").and_then(Value::as_u64).map_or(at, |i| i as usize);
        let vector = item
            .get("embedding")
            .and_then(Value::as_array)
            .and_then(|xs| xs.iter().map(|x| x.as_f64().map(|x| x as f32)).collect::<Option<Vec<f32>>>())
            .ok_or_else(|| LlmError::bad_response("an embedding is not a list of numbers (base64 is not asked for)"))?;
        match out.get_mut(index) {
            Some(slot) => *slot = Some(vector),
            None => return Err(LlmError::bad_response(format!("an embedding for input {index} of {count}"))),
        }
    }
    out.into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| LlmError::bad_response(format!("{count} inputs were sent but {} embeddings came back", data.len())))
}

/// `{"results":[{"index","relevance_score"}]}` (llama.cpp, vLLM, Infinity, Jina, Cohere), or a
/// bare list of `{"index","score"}` (TEI); best first.
fn parse_rerank(v: &Value, count: usize) -> Result<Vec<(usize, f32)>, LlmError> {
    let list = v
        .get("results")
        .and_then(Value::as_array)
        .or_else(|| v.as_array())
        .ok_or_else(|| LlmError::bad_response("the rerank reply has no \"results\" list"))?;
    let mut scored = list
        .iter()
        .map(|r| {
            let index = r.get("index").and_then(Value::as_u64).map(|i| i as usize).filter(|&i| i < count)?;
            let score = r.get("relevance_score").or_else(|| r.get("score")).and_then(Value::as_f64)?;
            Some((index, score as f32))
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| LlmError::bad_response("a rerank result has no index within the documents or no score"))?;
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    Ok(scored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embeddings_come_back_in_the_inputs_order() {
        let v = json!({"object": "list", "data": [
            {"object": "embedding", "index": 1, "embedding": [0.0, 1.0]},
            {"object": "embedding", "index": 0, "embedding": [1.0, 0.0]}
        ]});
        assert_eq!(parse_embeddings(&v, 2).unwrap(), vec![vec![1.0, 0.0], vec![0.0, 1.0]], "a passage must get its own vector");
        let short = json!({"data": [{"index": 0, "embedding": [1.0]}]});
        assert_eq!(parse_embeddings(&short, 2).unwrap_err().code(), "bad_response", "a missing vector is an error, not a shift");
        let base64 = json!({"data": [{"index": 0, "embedding": "AAAA"}]});
        assert_eq!(parse_embeddings(&base64, 1).unwrap_err().code(), "bad_response");
    }

    #[test]
    fn rerank_reads_both_shapes_best_first() {
        let llama = json!({"results": [{"index": 0, "relevance_score": -2.0}, {"index": 1, "relevance_score": 3.5}]});
        assert_eq!(parse_rerank(&llama, 2).unwrap(), vec![(1, 3.5), (0, -2.0)]);
        let tei = json!([{"index": 1, "score": 0.1}, {"index": 0, "score": 0.9}]);
        assert_eq!(parse_rerank(&tei, 2).unwrap(), vec![(0, 0.9), (1, 0.1)]);
        let outside = json!({"results": [{"index": 5, "relevance_score": 1.0}]});
        assert_eq!(parse_rerank(&outside, 2).unwrap_err().code(), "bad_response", "an index past the documents is not trusted");
    }
}
