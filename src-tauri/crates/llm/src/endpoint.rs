//! Where the model server is (`Endpoint`), how long to wait for it (`Timeouts`), and the URLs
//! derived from the base URL. The API key lives here and nowhere is it printed: `Debug` is
//! written by hand and server text is passed through `redact` before it reaches an error.

use std::fmt;
use std::time::Duration;

use reqwest::Url;
use serde::Deserialize;

use super::error::LlmError;

/// An OpenAI-compatible server. Deliberately not `Serialize`: serialising it would write the key.
#[derive(Clone, Deserialize)]
pub struct Endpoint {
    /// Up to and including the API prefix, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer …`; empty means none.
    #[serde(default)]
    pub api_key: Option<String>,
}

impl Endpoint {
    pub fn new(base_url: impl Into<String>) -> Self {
        Endpoint { base_url: base_url.into(), api_key: None }
    }

    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The key, if one is set and not blank.
    pub(crate) fn key(&self) -> Option<&str> {
        self.api_key.as_deref().map(str::trim).filter(|k| !k.is_empty())
    }

    /// The base URL without surrounding spaces or trailing slashes.
    pub(crate) fn base(&self) -> &str {
        self.base_url.trim().trim_end_matches('/')
    }

    /// `{base}/{path}`, checked to be an http(s) URL.
    pub(crate) fn api_url(&self, path: &str) -> Result<Url, LlmError> {
        self.parse(self.base())?;
        self.parse(&format!("{}/{}", self.base(), path))
    }

    /// `{root}/{path}`, where root is the base without its `/v1` suffix: llama.cpp and vLLM serve
    /// `/props` and `/tokenize` at the server root.
    pub(crate) fn root_url(&self, path: &str) -> Result<Url, LlmError> {
        let base = self.base();
        let root = base.strip_suffix("/v1").unwrap_or(base);
        self.parse(base)?;
        self.parse(&format!("{root}/{path}"))
    }

    fn parse(&self, url: &str) -> Result<Url, LlmError> {
        let invalid = |reason: &str| LlmError::InvalidUrl { url: self.base().to_string(), reason: reason.to_string() };
        let parsed = Url::parse(url).map_err(|e| invalid(&e.to_string()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(invalid("it must start with http:// or https://"));
        }
        if parsed.host_str().is_none_or(str::is_empty) {
            return Err(invalid("it has no host"));
        }
        Ok(parsed)
    }

    /// Replaces the key wherever a server echoed it back ("invalid key sk-…").
    pub(crate) fn redact(&self, text: &str) -> String {
        match self.key() {
            Some(key) if key.len() >= 4 => text.replace(key, "[api key]"),
            _ => text.to_string(),
        }
    }
}

/// A URL as it may appear in messages and logs: no user name or password.
pub(crate) fn shown_url(url: &Url) -> String {
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.to_string()
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint").field("base_url", &self.base_url).field("api_key", &self.key().map(|_| "[set]")).finish()
    }
}

/// How long to wait, per phase. A big prompt can take minutes before the first token on a
/// small GPU, so `first_byte` is long; once tokens flow, a long silence means trouble.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    pub connect: Duration,
    pub first_byte: Duration,
    pub idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts { connect: Duration::from_secs(10), first_byte: Duration::from_secs(300), idle: Duration::from_secs(60) }
    }
}

/// How Maru names itself to the server, on every connection (reqwest's and `warm`'s).
pub(crate) const USER_AGENT: &str = concat!("maru/", env!("CARGO_PKG_VERSION"));

/// A server on this machine: no proxy stands between, whatever the system's settings.
pub(crate) fn is_loopback(url: &Url) -> bool {
    let host = url.host_str().unwrap_or("").trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_derive_from_the_base() {
        let e = Endpoint::new(" http://127.0.0.1:8080/v1/ ");
        assert_eq!(e.api_url("chat/completions").unwrap().as_str(), "http://127.0.0.1:8080/v1/chat/completions");
        assert_eq!(e.root_url("props").unwrap().as_str(), "http://127.0.0.1:8080/props");
        assert_eq!(Endpoint::new("http://h/api").root_url("props").unwrap().as_str(), "http://h/api/props");
    }

    #[test]
    fn bad_urls_are_explained() {
        for bad in ["127.0.0.1:8080/v1", "ftp://h/v1", "", "http://"] {
            assert_eq!(Endpoint::new(bad).api_url("models").unwrap_err().code(), "invalid_url", "{bad}");
        }
    }

    #[test]
    fn debug_hides_the_key_and_redact_removes_echoes() {
        let e = Endpoint::new("http://h/v1").with_api_key("sk-secret-123");
        let dbg = format!("{e:?}");
        assert!(!dbg.contains("sk-secret-123") && dbg.contains("[set]"), "{dbg}");
        assert_eq!(e.redact("bad key sk-secret-123!"), "bad key [api key]!");
        assert_eq!(Endpoint::new("http://h/v1").with_api_key("  ").key(), None, "a blank key is no key");
    }

    #[test]
    fn shown_url_drops_credentials() {
        let url = Url::parse("http://user:pw@h:1/v1").unwrap();
        assert_eq!(shown_url(&url), "http://h:1/v1");
    }
}
