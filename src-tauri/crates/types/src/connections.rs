//! The user's model servers: the stored row (its key included, never sent) and what creates or
//! changes one. What the API shows of a server is `ConnectionView`, in the core.

use serde::{Deserialize, Serialize};

pub const DEFAULT_URL: &str = "http://127.0.0.1:8080/v1";

/// The `user:secret@` part of an address, when it has one. New addresses with one are refused
/// (the key goes in the API key field); one saved before that is never shown or logged with it.
pub fn credentials(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    authority.rfind('@').map(|at| &authority[..=at])
}

/// An address as it may be shown: without its credentials.
pub fn shown_url(url: &str) -> String {
    match credentials(url) {
        Some(secret) => url.replacen(secret, "", 1),
        None => url.to_string(),
    }
}

/// A server as stored, its key included: never sent anywhere as it is.
#[derive(Clone, PartialEq)]
pub struct ServerConnection {
    pub id: i64,
    pub name: String,
    /// Up to and including the API prefix, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    pub api_key: Option<String>,
    /// What a chat on this server asks when it names no model; empty: the first one listed.
    pub default_model: String,
    pub enabled: bool,
    pub is_default: bool,
    /// The demo model Maru starts itself: one server, whose address follows the port it runs on.
    pub demo: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

/// What a store without a connections table yet (or a unit test) asks: the usual local server.
impl Default for ServerConnection {
    fn default() -> Self {
        ServerConnection {
            id: 0,
            name: "127.0.0.1:8080".into(),
            base_url: DEFAULT_URL.into(),
            api_key: None,
            default_model: String::new(),
            enabled: true,
            is_default: true,
            demo: false,
            created_at: 0,
            updated_at: 0,
        }
    }
}

impl std::fmt::Debug for ServerConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConnection")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("base_url", &shown_url(&self.base_url))
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("default_model", &self.default_model)
            .field("enabled", &self.enabled)
            .field("demo", &self.demo)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewConnection {
    /// How the user tells it apart ("Desktop GPU", "OpenRouter").
    pub name: String,
    pub base_url: String,
    /// Never shown again.
    #[serde(default)]
    pub api_key: Option<String>,
    /// What its chats ask when they name no model; empty or absent: the first one it lists.
    #[serde(default)]
    pub default_model: Option<String>,
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// A partial update.
#[derive(Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ConnectionPatch {
    pub name: Option<String>,
    pub base_url: Option<String>,
    /// A string sets the key; `null` or "" removes it.
    #[serde(default, deserialize_with = "crate::present")]
    pub api_key: Option<Option<String>>,
    /// `null` or "": the first model the server lists.
    #[serde(default, deserialize_with = "crate::present")]
    pub default_model: Option<Option<String>>,
    /// The default server cannot be turned off.
    pub enabled: Option<bool>,
    /// `true` makes it the default server (the one before it stays, as an ordinary one).
    pub is_default: Option<bool>,
}

impl std::fmt::Debug for ConnectionPatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectionPatch")
            .field("name", &self.name)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|k| k.as_ref().map(|_| "<redacted>")))
            .field("default_model", &self.default_model)
            .field("enabled", &self.enabled)
            .field("is_default", &self.is_default)
            .finish()
    }
}
