//! A client per model server, built once and rebuilt only when its address, key or timeouts
//! change (a new client means a new connection pool: chats on two servers keep both warm), and
//! the model each server lists first, remembered per address so a turn does not ask every time.

use std::collections::HashMap;
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

/// Servers a user has clients for at once; past it the oldest built is dropped (its pool closes).
const CLIENTS_MAX: usize = 16;

#[derive(Default)]
pub struct Clients {
    /// By server id (the caller's), the client and what it was built from.
    built: Mutex<Vec<(i64, ClientConfig, Client)>>,
    /// The first model each server listed, by endpoint url.
    listed_model: Mutex<HashMap<String, String>>,
    /// Context lengths the server listed, by (endpoint url, model id); `None`: it did not say.
    context: Mutex<HashMap<(String, String), Option<u32>>>,
}

impl Clients {
    /// The client for server `id` as `config` says, reused while the config is unchanged.
    pub fn get(&self, id: i64, config: &ClientConfig) -> Client {
        let mut built = self.built.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = built.iter().position(|(i, _, _)| *i == id) {
            if &built[at].1 == config {
                return built[at].2.clone();
            }
            built.remove(at);
        }
        if built.len() >= CLIENTS_MAX {
            built.remove(0);
        }
        let mut endpoint = Endpoint::new(config.url.clone());
        if let Some(key) = &config.api_key {
            endpoint = endpoint.with_api_key(key.clone());
        }
        let client = Client::new(endpoint, config.timeouts);
        built.push((id, config.clone(), client.clone()));
        client
    }

    /// The model to use when it is known without asking the server: `configured`, or the one
    /// the server at `url` listed last time.
    pub fn known_model(&self, url: &str, configured: &str) -> Option<String> {
        if !configured.is_empty() {
            return Some(configured.to_string());
        }
        self.listed_model.lock().unwrap_or_else(|p| p.into_inner()).get(url).cloned()
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
        self.listed_model.lock().unwrap_or_else(|p| p.into_inner()).insert(url.to_string(), model.clone());
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

    /// The model's context length if the server was asked already (`Some(None)`: it did not
    /// say), without asking: a turn's first transaction cannot wait on the server.
    pub fn known_context_length(&self, url: &str, model: &str) -> Option<Option<u32>> {
        self.context.lock().unwrap_or_else(|p| p.into_inner()).get(&(url.to_string(), model.to_string())).copied()
    }

    /// Forgets what the server at `url` listed (it said it does not know the model: it was swapped).
    pub fn forget_listed_model(&self, url: &str) {
        self.listed_model.lock().unwrap_or_else(|p| p.into_inner()).remove(url);
        self.context.lock().unwrap_or_else(|p| p.into_inner()).retain(|(u, _), _| u != url);
    }
}
