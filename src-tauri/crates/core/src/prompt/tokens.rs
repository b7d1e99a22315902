//! Token counts for the window plan (`chat::compact`). Where the model server has a tokenizer (llama.cpp's and
//! vLLM's `/tokenize`), its counts, remembered by the text's hash so each text is asked once.
//! Counting is never on the way to a reply's first token: the plan reads only what is already
//! known, and the texts not yet counted are sent to the tokenizer after the turn (and when the
//! inspector opens). Until then a text is estimated, with the estimate fitted to the server's
//! counts so far: a small model's tokenizer spends two or three tokens on a Hangul syllable where
//! the plain estimate says one.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::llm::Client;
use crate::prompt::render::estimate_tokens;

/// Remembered counts before the memory is cleared (a count is 40 bytes or so).
const MAX_KNOWN: usize = 100_000;
/// A server that said it has no tokenizer is asked again after this long (it may be restarted
/// as another kind of server at the same address).
const NO_TOKENIZER_FOR: Duration = Duration::from_secs(600);
/// One tokenizer call may take this long before counting gives up until the next occasion.
const CALL_LIMIT: Duration = Duration::from_secs(5);

/// How a text's count was had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The model server's tokenizer counted this very text.
    Server,
    /// The estimate, fitted to the server's counts of other texts.
    Fitted,
    /// The plain estimate (no tokenizer, or nothing counted yet).
    Estimate,
}

/// The counts of every model server and model Maru has talked to, shared by the turns and the
/// inspector.
#[derive(Default)]
pub struct TokenCounts {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    known: HashMap<(String, [u8; 32]), u32>,
    servers: HashMap<String, Server>,
}

#[derive(Default)]
struct Server {
    /// None until asked; Some(false) when the server has no tokenizer (since when).
    tokenizer: Option<(bool, Instant)>,
    fit: Fit,
}

/// Least squares of the server's counts on the two parts of the estimate (ASCII characters / 4,
/// other characters), so that English and Korean are each scaled by what the tokenizer does.
#[derive(Default, Clone, Copy)]
struct Fit {
    aa: f64,
    ab: f64,
    bb: f64,
    at: f64,
    bt: f64,
}

impl Fit {
    fn add(&mut self, text: &str, tokens: u32) {
        let (a, b) = parts(text);
        let t = tokens as f64;
        self.aa += a * a;
        self.ab += a * b;
        self.bb += b * b;
        self.at += a * t;
        self.bt += b * t;
    }

    /// Tokens per estimated token for each part, when enough has been counted to say.
    fn scales(&self) -> Option<(f64, f64)> {
        let det = self.aa * self.bb - self.ab * self.ab;
        let (sa, sb) = if det > 1e-6 * (self.aa * self.bb).max(1.0) {
            ((self.at * self.bb - self.bt * self.ab) / det, (self.bt * self.aa - self.at * self.ab) / det)
        } else if self.aa + self.bb > 0.0 {
            // One kind of text so far: one scale for both, fitted to the whole estimate.
            let s = (self.at + self.bt) / (self.aa + 2.0 * self.ab + self.bb);
            (s, s)
        } else {
            return None;
        };
        // A wild scale means texts that are not alike: stay near the estimate.
        Some((sa.clamp(0.25, 4.0), sb.clamp(0.25, 4.0)))
    }
}

/// The plain estimate's two parts: ASCII characters / 4 and other characters.
fn parts(text: &str) -> (f64, f64) {
    let (ascii, other) = text.chars().fold((0usize, 0usize), |(a, o), c| if c.is_ascii() { (a + 1, o) } else { (a, o + 1) });
    (ascii as f64 / 4.0, other as f64)
}

/// Which server and model a count belongs to: the same text is a different count elsewhere.
pub fn scope(endpoint_url: &str, model: &str) -> String {
    format!("{endpoint_url}\n{model}")
}

fn hash(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

impl TokenCounts {
    /// `text`'s tokens as far as known now, without asking anyone.
    pub fn count(&self, scope: &str, text: &str) -> (usize, Source) {
        if text.is_empty() {
            return (0, Source::Server);
        }
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&n) = inner.known.get(&(scope.to_string(), hash(text))) {
            return (n as usize, Source::Server);
        }
        match inner.servers.get(scope).and_then(|s| s.fit.scales()) {
            Some((sa, sb)) => {
                let (a, b) = parts(text);
                ((a * sa + b * sb).ceil() as usize, Source::Fitted)
            }
            None => (estimate_tokens(text), Source::Estimate),
        }
    }

    /// Asks the server's tokenizer for the texts not counted yet, one at a time, until `deadline`.
    /// A server without a tokenizer is remembered as such; one that fails stops the counting
    /// until the next occasion. Returns how many texts were counted.
    pub async fn learn(&self, client: &Client, scope: &str, model: &str, texts: &[&str], deadline: Instant) -> usize {
        let asked_lately = |inner: &Inner| {
            inner.servers.get(scope).and_then(|s| s.tokenizer).is_some_and(|(yes, at)| !yes && at.elapsed() < NO_TOKENIZER_FOR)
        };
        let todo: Vec<&str> = {
            let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            if asked_lately(&inner) {
                return 0;
            }
            let mut seen = std::collections::HashSet::new();
            texts
                .iter()
                .copied()
                .filter(|t| !t.is_empty() && seen.insert(hash(t)) && !inner.known.contains_key(&(scope.to_string(), hash(t))))
                .collect()
        };
        let mut counted = 0;
        for text in todo {
            let left = deadline.saturating_duration_since(Instant::now()).min(CALL_LIMIT);
            if left.is_zero() {
                break;
            }
            let answer = tokio::time::timeout(left, client.tokenize(model, text)).await;
            let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            match answer {
                Ok(Ok(Some(n))) => {
                    if inner.known.len() >= MAX_KNOWN {
                        inner.known.clear();
                    }
                    inner.known.insert((scope.to_string(), hash(text)), n as u32);
                    let server = inner.servers.entry(scope.to_string()).or_default();
                    server.tokenizer = Some((true, Instant::now()));
                    server.fit.add(text, n as u32);
                    counted += 1;
                }
                Ok(Ok(None)) => {
                    inner.servers.entry(scope.to_string()).or_default().tokenizer = Some((false, Instant::now()));
                    break;
                }
                Ok(Err(e)) => {
                    tracing::debug!("counting tokens with the server failed: {e}");
                    break;
                }
                Err(_) => break,
            }
        }
        counted
    }
}

/// How many of a request's tokens were counted by the server, fitted, or estimated.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct Tally {
    pub server: usize,
    pub fitted: usize,
    pub estimated: usize,
}

/// Counts the texts of one request for one server and model, adding up how each was counted.
pub struct Counter<'a> {
    counts: &'a TokenCounts,
    scope: String,
    pub tally: Tally,
}

impl<'a> Counter<'a> {
    pub fn new(counts: &'a TokenCounts, endpoint_url: &str, model: &str) -> Self {
        Counter { counts, scope: scope(endpoint_url, model), tally: Tally::default() }
    }

    pub fn tokens(&mut self, text: &str) -> usize {
        let (n, source) = self.counts.count(&self.scope, text);
        match source {
            Source::Server => self.tally.server += n,
            Source::Fitted => self.tally.fitted += n,
            Source::Estimate => self.tally.estimated += n,
        }
        n
    }

    pub fn scope(&self) -> &str {
        &self.scope
    }
}

/// The texts a finished turn leaves for the next one's plan, to count with the server after it.
pub struct Recount {
    pub client: Client,
    pub scope: String,
    pub model: String,
    pub texts: Vec<String>,
}

/// However many texts a chat has, counting them after a turn stops after this long.
const RECOUNT_FOR: Duration = Duration::from_secs(20);

impl Recount {
    pub async fn run(self, counts: &TokenCounts) {
        let texts: Vec<&str> = self.texts.iter().map(String::as_str).collect();
        let counted = counts.learn(&self.client, &self.scope, &self.model, &texts, Instant::now() + RECOUNT_FOR).await;
        tracing::debug!(counted, "texts counted by the server's tokenizer after the turn");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_scales_english_and_korean_apart() {
        let mut fit = Fit::default();
        // A tokenizer that spends 1 token on 4 ASCII characters and 3 on a Hangul syllable.
        for (text, tokens) in [("abcdabcdabcd", 3), ("가나다라", 12), ("abcd 가나", 2 + 6)] {
            fit.add(text, tokens);
        }
        let (sa, sb) = fit.scales().expect("three texts are enough");
        assert!((sa - 1.0).abs() < 0.1 && (sb - 3.0).abs() < 0.1, "each part keeps its own scale: {sa} {sb}");
    }

    #[test]
    fn one_kind_of_text_gives_one_scale() {
        let mut fit = Fit::default();
        fit.add("abcdabcd", 4);
        let (sa, sb) = fit.scales().unwrap();
        assert!((sa - 2.0).abs() < 1e-6 && sa == sb, "{sa} {sb}");
    }

    #[test]
    fn an_unknown_text_is_estimated_and_an_empty_one_is_nothing() {
        let counts = TokenCounts::default();
        assert_eq!(counts.count("s", "abcdefgh"), (2, Source::Estimate));
        assert_eq!(counts.count("s", ""), (0, Source::Server));
    }
}
