//! The model-server client for the current settings, built once and rebuilt only when the
//! endpoint, key or timeouts change (a new client means a new connection pool), and the model
//! the server lists first, remembered per endpoint so a turn does not ask every time.

use std::sync::Mutex;
use std::time::Duration;

use super::{Client, Endpoint, LlmError, Timeouts};

/// What a client is built from: the endpoint, its key, the timeouts.
#[derive(Clone, PartialEq)]
pub struct ClientConfig {
    pub url: String,
    pub api_key: Option<String>,
    pub timeouts: Timeouts,
}

impl ClientConfig {
    pub fn new(url: &str, api_key: Option<&str>, first_byte_secs: u32, idle_secs: u32) -> ClientConfig {
        let timeouts = Timeouts {
            first_byte: Duration::from_secs(first_byte_secs.into()),
            idle: Duration::from_secs(idle_secs.into()),
            ..Timeouts::default()
        };
        ClientConfig { url: url.to_string(), api_key: api_key.map(str::to_string), timeouts }
    }
}

#[derive(Default)]
pub struct Clients {
    current: Mutex<Option<(ClientConfig, Client)>>,
    /// (endpoint url, model id) of the last model list.
    listed_model: Mutex<Option<(String, String)>>,
    /// Context lengths the server listed, by (endpoint url, model id); `None`: it did not say.
    context: Mutex<std::collections::HashMap<(String, String), Option<u32>>>,
}

impl Clients {
    /// The client for `config`, reused while the config is unchanged.
    pub fn get(&self, config: &ClientConfig) -> Client {
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((c, client)) = current.as_ref() {
            if c == config {
                return client.clone();
            }
        }
        let mut endpoint = Endpoint::new(config.url.clone());
        if let Some(key) = &config.api_key {
            endpoint = endpoint.with_api_key(key.clone());
        }
        let client = Client::new(endpoint, config.timeouts);
        *current = Some((config.clone(), client.clone()));
        client
    }

    /// The model to use when it is known without asking the server: `configured`, or the one
    /// the server at `url` listed last time.
    pub fn known_model(&self, url: &str, configured: &str) -> Option<String> {
        if !configured.is_empty() {
            return Some(configured.to_string());
        }
        let listed = self.listed_model.lock().unwrap_or_else(|p| p.into_inner());
        listed.as_ref().filter(|(listed_url, _)| listed_url == url).map(|(_, model)| model.clone())
    }

    /// `configured` when set, else the first model the server lists (asked once per endpoint).
    /// `Ok(None)` when the server lists none.
    pub async fn resolve_model(&self, client: &Client, url: &str, configured: &str) -> Result<Option<String>, LlmError> {
        if let Some(model) = self.known_model(url, configured) {
            return Ok(Some(model));
        }
        let Some(model) = client.list_models().await?.into_iter().next().map(|m| m.id) else {
            return Ok(None);
        };
        *self.listed_model.lock().unwrap_or_else(|p| p.into_inner()) = Some((url.to_string(), model.clone()));
        Ok(Some(model))
    }

    /// The model's context length as the server lists it (asked once per endpoint and model).
    pub async fn context_length(&self, client: &Client, url: &str, model: &str) -> Option<u32> {
        let key = (url.to_string(), model.to_string());
        if let Some(known) = self.context.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
            return *known;
        }
        let models = client.list_models().await.ok()?;
        let found = models.iter().find(|m| m.id == model).or(models.first()).and_then(|m| m.context_length);
        self.context.lock().unwrap_or_else(|p| p.into_inner()).insert(key, found);
        found
    }

    /// Forgets the listed model (the server said it does not know it: it was swapped).
    pub fn forget_listed_model(&self) {
        *self.listed_model.lock().unwrap_or_else(|p| p.into_inner()) = None;
        self.context.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}
