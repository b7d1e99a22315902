//! What the server offers: the model list with context lengths (`/v1/models`, llama.cpp's
//! `/props`), token counts (`/tokenize`), and finding a server on the usual local ports.

use std::time::Duration;

use futures_util::future::join_all;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tracing::{debug, instrument};

use super::client::Client;
use super::endpoint::{Endpoint, Timeouts};
use super::error::{trim_for_display, LlmError};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ModelInfo {
    pub id: String,
    /// Tokens the model accepts (prompt + reply); `None` when the server does not say.
    pub context_length: Option<u32>,
    pub owned_by: Option<String>,
}

/// A server found by `probe_local_servers`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct FoundServer {
    /// Ready for `Endpoint::base_url`, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    /// "vLLM", "llama.cpp", "Ollama", "LM Studio", or "OpenAI-compatible".
    pub kind_guess: &'static str,
    pub models: Vec<String>,
    /// The server answered 401/403: it is there, but wants a key before it lists models.
    pub needs_api_key: bool,
}

/// vLLM, llama.cpp, Ollama, LM Studio: their default ports.
pub const LOCAL_PORTS: [u16; 4] = [8000, 8080, 11434, 1234];

impl Client {
    /// `GET {base}/models`, with each model's context length when the server tells it.
    #[instrument(skip(self), err(Display, level = "warn"))]
    pub async fn list_models(&self) -> Result<Vec<ModelInfo>, LlmError> {
        let mut models = parse_models(&self.models_json().await?)?;
        let missing: Vec<usize> = (0..models.len()).filter(|&i| models[i].context_length.is_none()).collect();
        if missing.is_empty() {
            return Ok(models);
        }
        if models.len() == 1 {
            models[0].context_length = self.props_n_ctx(None).await;
        } else if models.iter().any(|m| m.owned_by.as_deref() == Some("llamacpp")) {
            // llama.cpp serving several models (router mode) answers `/props?model=…` per model.
            let asks = missing.iter().map(|&i| self.props_n_ctx(Some(&models[i].id)));
            for (i, n_ctx) in missing.iter().zip(join_all(asks).await) {
                models[*i].context_length = n_ctx;
            }
        }
        Ok(models)
    }

    /// Tokens in `text` by the server's own tokenizer; `Ok(None)` when it has none we can use
    /// (Ollama, LM Studio, hosted APIs), so the caller estimates instead.
    #[instrument(skip(self, text), fields(chars = text.len()), err(Display, level = "warn"))]
    pub async fn tokenize(&self, model: &str, text: &str) -> Result<Option<usize>, LlmError> {
        let url = self.endpoint().root_url("tokenize")?;
        // One body both servers understand: llama.cpp reads `content`, vLLM reads `model` and
        // `prompt`; each ignores the other's fields.
        let body = json!({"model": model, "prompt": text, "content": text, "add_special": false});
        let (status, reply) = self.small_call(|| self.http().post(url.clone()).json(&body), &url).await?;
        match status.as_u16() {
            200..=299 => {}
            401 | 403 => return Err(self.error_for_status(status, &reply, None, &url)),
            s if s >= 500 && s != 501 => return Err(self.error_for_status(status, &reply, None, &url)),
            _ => return Ok(None), // 404/405/501: no tokenizer; 400/422: not one that speaks our shape
        }
        let Ok(v) = serde_json::from_str::<Value>(&reply) else {
            return Ok(None);
        };
        let count = v.get("count").and_then(Value::as_u64).map(|n| n as usize);
        Ok(count.or_else(|| v.get("tokens").and_then(Value::as_array).map(Vec::len)))
    }

    async fn models_json(&self) -> Result<Value, LlmError> {
        let url = self.endpoint().api_url("models")?;
        let (status, body) = self.small_call(|| self.http().get(url.clone()), &url).await?;
        if !status.is_success() {
            return Err(self.error_for_status(status, &body, None, &url));
        }
        serde_json::from_str(&body).map_err(|_| {
            LlmError::bad_response(format!(
                "the model list is not JSON: \"{}\"",
                trim_for_display(&body.chars().take(200).collect::<String>())
            ))
        })
    }

    /// llama.cpp's context size from `/props`: `default_generation_settings.n_ctx` in newer
    /// versions, top-level `n_ctx` in older ones. `None` on anything else.
    async fn props_n_ctx(&self, model: Option<&str>) -> Option<u32> {
        let mut url = self.endpoint().root_url("props").ok()?;
        if let Some(model) = model {
            url.query_pairs_mut().append_pair("model", model);
        }
        let (status, body) = self.small_call(|| self.http().get(url.clone()), &url).await.ok()?;
        if !status.is_success() {
            debug!(status = status.as_u16(), "no /props: not llama.cpp");
            return None;
        }
        let v: Value = serde_json::from_str(&body).ok()?;
        let n_ctx = v.pointer("/default_generation_settings/n_ctx").or_else(|| v.get("n_ctx"))?.as_u64()?;
        u32::try_from(n_ctx).ok().filter(|&n| n > 0)
    }
}

impl Client {
    /// Whether `model` takes images: llama.cpp says so in `/props` (`modalities.vision`); other
    /// servers do not, so well-known vision model names count as yes. `None`: nobody knows.
    pub async fn accepts_images(&self, model: &str) -> Option<bool> {
        if let Ok(url) = self.endpoint().root_url("props") {
            if let Ok((status, body)) = self.small_call(|| self.http().get(url.clone()), &url).await {
                let vision =
                    serde_json::from_str::<Value>(&body).ok().and_then(|v| v.pointer("/modalities/vision").and_then(Value::as_bool));
                if let (true, Some(vision)) = (status.is_success(), vision) {
                    return Some(vision);
                }
            }
        }
        vision_by_name(model).then_some(true)
    }
}

/// Model families known to take images, by the names servers list them under.
fn vision_by_name(model: &str) -> bool {
    let m = model.to_lowercase();
    [
        "vision",
        "-vl",
        "_vl",
        "vl-",
        "llava",
        "pixtral",
        "gemma-3",
        "gemma3",
        "minicpm-v",
        "internvl",
        "idefics",
        "moondream",
        "llama-4",
        "gpt-4o",
    ]
    .iter()
    .any(|k| m.contains(k))
}

/// Reads OpenAI's `{"data":[{"id"...}]}`, or a bare `{"models":[...]}` list.
fn parse_models(v: &Value) -> Result<Vec<ModelInfo>, LlmError> {
    let list = v
        .get("data")
        .and_then(Value::as_array)
        .or_else(|| v.get("models").and_then(Value::as_array))
        .ok_or_else(|| LlmError::bad_response("the model list has no \"data\" array"))?;
    let text = |m: &Value, keys: &[&str]| keys.iter().find_map(|k| m.get(*k).and_then(Value::as_str)).map(str::to_string);
    Ok(list
        .iter()
        .filter_map(|m| {
            let id = text(m, &["id", "name", "model"])?;
            // vLLM says `max_model_len`; other servers and proxies use one of the others.
            let context_length = ["max_model_len", "context_length", "max_context_length", "context_window"]
                .iter()
                .find_map(|k| m.get(*k).and_then(Value::as_u64))
                .and_then(|n| u32::try_from(n).ok());
            Some(ModelInfo { id, context_length, owned_by: text(m, &["owned_by"]) })
        })
        .collect())
}

/// Looks for a model server on the usual local ports, all at once, about a second in total.
pub async fn probe_local_servers() -> Vec<FoundServer> {
    probe_ports(&LOCAL_PORTS, Duration::from_secs(1)).await
}

/// `probe_local_servers` on chosen ports of 127.0.0.1; results in the order of `ports`.
pub async fn probe_ports(ports: &[u16], timeout: Duration) -> Vec<FoundServer> {
    join_all(ports.iter().map(|&port| probe_port(port, timeout))).await.into_iter().flatten().collect()
}

async fn probe_port(port: u16, timeout: Duration) -> Option<FoundServer> {
    let base_url = format!("http://127.0.0.1:{port}/v1");
    let timeouts = Timeouts { connect: timeout, first_byte: timeout, idle: timeout };
    let client = Client::new(Endpoint::new(base_url.clone()), timeouts).without_retries();
    let (models, needs_api_key) = match tokio::time::timeout(timeout, client.models_json()).await {
        Ok(Ok(v)) => (parse_models(&v).ok()?, false),
        Ok(Err(LlmError::Unauthorized { .. })) => (Vec::new(), true),
        _ => return None,
    };
    let kind_guess = models.iter().find_map(|m| kind_from_owner(m.owned_by.as_deref()?)).unwrap_or(kind_from_port(port));
    Some(FoundServer { base_url, kind_guess, models: models.into_iter().map(|m| m.id).collect(), needs_api_key })
}

fn kind_from_owner(owned_by: &str) -> Option<&'static str> {
    match owned_by {
        "vllm" => Some("vLLM"),
        "llamacpp" => Some("llama.cpp"),
        "library" | "ollama" => Some("Ollama"),
        "organization_owner" => Some("LM Studio"),
        _ => None,
    }
}

fn kind_from_port(port: u16) -> &'static str {
    match port {
        8000 => "vLLM",
        8080 => "llama.cpp",
        11434 => "Ollama",
        1234 => "LM Studio",
        _ => "OpenAI-compatible",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_vllm_llama_cpp_and_bare_lists() {
        let vllm = json!({"object": "list", "data": [{"id": "Qwen/Qwen3-8B", "owned_by": "vllm", "max_model_len": 32768}]});
        assert_eq!(
            parse_models(&vllm).unwrap(),
            vec![ModelInfo { id: "Qwen/Qwen3-8B".into(), context_length: Some(32768), owned_by: Some("vllm".into()) }]
        );
        let llama = json!({"models": [{"name": "smol", "model": "smol"}], "data": [{"id": "smol", "owned_by": "llamacpp", "meta": {"n_ctx_train": 8192}}]});
        assert_eq!(parse_models(&llama).unwrap()[0].context_length, None, "n_ctx_train is not the served context");
        assert_eq!(parse_models(&json!({"models": [{"name": "a"}]})).unwrap()[0].id, "a");
        assert_eq!(parse_models(&json!({"x": 1})).unwrap_err().code(), "bad_response");
    }

    #[test]
    fn kind_comes_from_owner_then_port() {
        assert_eq!(kind_from_owner("organization_owner"), Some("LM Studio"));
        assert_eq!(kind_from_port(11434), "Ollama");
        assert_eq!(kind_from_port(9), "OpenAI-compatible");
    }
}
