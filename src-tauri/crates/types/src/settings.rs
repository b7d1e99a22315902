//! Settings: one typed struct with its defaults and bounds, what the API shows of it and its
//! partial update. The store keeps them, one JSON value per key (`maru_store::settings`).

use serde::{Deserialize, Serialize};

use crate::connections::ServerConnection;
use crate::error::{Code, Error, Result};

pub const TEXT_MAX_CHARS_DEFAULT: u32 = 10_000_000;

/// Facts the model proposes: not kept at all, kept once the user accepts them, or kept at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryMode {
    Off,
    Review,
    Auto,
}

/// The UI's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    En,
    Ko,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    System,
    Light,
    Dark,
}

/// A model on one of the user's servers, for work other than chat: embedding passages, or
/// reranking what a search found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelChoice {
    /// The server (a row of `/api/connections`).
    pub connection_id: i64,
    /// The model's name as the server lists it.
    pub model: String,
}

/// How far the files' passages are embedded for search by meaning (`GET /api/embeddings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EmbeddingProgress {
    /// The model chosen; `None`: search by words only.
    pub model: Option<ModelChoice>,
    /// Passages embedded by it (or that its server would not embed), of all passages.
    pub embedded: u64,
    pub passages: u64,
    /// Why the last batch failed, while no batch has succeeded since (the server's words).
    pub failure: Option<String>,
}

/// The smallest and largest value a numeric setting takes (both allowed).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Bounds {
    pub min: f64,
    pub max: f64,
}

impl Bounds {
    const fn new(min: f64, max: f64) -> Bounds {
        Bounds { min, max }
    }

    pub fn holds(&self, v: impl Into<f64>) -> bool {
        let v = v.into();
        self.min <= v && v <= self.max
    }
}

/// Declares every setting once: its type, default and (for a number) bounds with the code and
/// words of the error for a value outside them. From this come [`Settings`], what the API shows
/// ([`SettingsView`]), the partial update ([`SettingsPatch`]) and how it applies, and the bounds
/// that the store's `update` checks and the UI's settings dialog reads ([`BOUNDS`], generated into
/// `ui/src/backend/generated/setting-bounds.ts`). `optional` settings are `None` by default (the
/// server decides), and `null` in a patch sets them back to that; any other `null` sets the
/// default.
macro_rules! settings {
    (
        values { $( $(#[$vm:meta])* $v:ident: $vt:ty = $vd:expr $(, in $vmin:literal ..= $vmax:literal => $vcode:ident $vwhat:literal)? ; )* }
        optional { $( $(#[$om:meta])* $o:ident: $ot:ty $(, in $omin:literal ..= $omax:literal => $ocode:ident $owhat:literal)? ; )* }
    ) => {
        #[derive(Clone, Serialize, Deserialize, PartialEq)]
        #[serde(default)]
        pub struct Settings {
            /// The server requests go to: the default one, or the chat's own (`for_chat`). Not a
            /// stored setting: the servers are rows of `connections`.
            #[serde(skip)]
            pub server: ServerConnection,
            /// The model requests ask for: the chat's own, else its server's default model;
            /// empty means the first one the server lists. Not a stored setting either.
            #[serde(skip)]
            pub model: String,
            $( $(#[$vm])* pub $v: $vt, )*
            $( $(#[$om])* pub $o: Option<$ot>, )*
        }

        impl Default for Settings {
            fn default() -> Self {
                Settings { server: ServerConnection::default(), model: String::new(), $( $v: $vd, )* $( $o: None, )* }
            }
        }

        /// What the API shows: everything but the key itself.
        #[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
        pub struct SettingsView {
            /// The default server's address (the servers are listed by `/api/connections`).
            pub endpoint_url: String,
            /// The default server has a key.
            pub api_key_set: bool,
            /// The default server's default model (each server's is in `/api/connections`).
            pub model: String,
            $( $(#[$vm])* pub $v: $vt, )*
            $( $(#[$om])* pub $o: Option<$ot>, )*
        }

        impl From<&Settings> for SettingsView {
            fn from(s: &Settings) -> Self {
                SettingsView {
                    endpoint_url: crate::connections::shown_url(&s.server.base_url),
                    api_key_set: s.server.api_key.as_deref().is_some_and(|k| !k.is_empty()),
                    model: s.server.default_model.clone(),
                    $( $v: s.$v.clone(), )*
                    $( $o: s.$o, )*
                }
            }
        }

        /// A partial update; a field set to `null` goes back to its default.
        #[derive(Clone, Default, Deserialize, Serialize, utoipa::ToSchema)]
        #[serde(deny_unknown_fields)]
        pub struct SettingsPatch {
            /// The default server's address; `null` goes back to the usual local one.
            #[serde(default, deserialize_with = "crate::present")]
            pub endpoint_url: Option<Option<String>>,
            /// The default server's key: a string sets it; `null` or "" removes it.
            #[serde(default, deserialize_with = "crate::present")]
            pub api_key: Option<Option<String>>,
            /// The default server's default model; `null` or "": the first one it lists.
            #[serde(default, deserialize_with = "crate::present")]
            pub model: Option<Option<String>>,
            $( #[serde(default, deserialize_with = "crate::present")] pub $v: Option<Option<$vt>>, )*
            $( #[serde(default, deserialize_with = "crate::present")] pub $o: Option<Option<$ot>>, )*
        }

        impl Settings {
            /// These settings with the patch's values; the default where it says `null`.
            pub fn patched(mut self, patch: &SettingsPatch) -> Settings {
                let d = Settings::default();
                $( if let Some(v) = &patch.$v { self.$v = v.clone().unwrap_or_else(|| d.$v.clone()); } )*
                $( if let Some(v) = patch.$o { self.$o = v; } )*
                self
            }

            /// Refuses a number outside its bounds, with its own code and the bounds as params.
            pub fn check_bounds(&self) -> Result<()> {
                let outside = |code: Code, what: &str, bounds: &Bounds| {
                    Err(Error::invalid(code, format!("{what} must be between {} and {}", bounds.min, bounds.max))
                        .with("min", bounds.min)
                        .with("max", bounds.max))
                };
                $( $( if !BOUNDS.$v.holds(self.$v) { return outside(Code::$vcode, $vwhat, &BOUNDS.$v); } )? )*
                $( $( if self.$o.is_some_and(|v| !BOUNDS.$o.holds(v)) { return outside(Code::$ocode, $owhat, &BOUNDS.$o); } )? )*
                Ok(())
            }
        }

        /// Every numeric setting's bounds (both ends allowed).
        #[derive(Debug, Clone, Copy, PartialEq, Serialize)]
        pub struct SettingBounds {
            // (`cfg_attr(any(), …)` is never applied: it only tells the macro which settings have bounds.)
            $( $( #[cfg_attr(any(), doc = stringify!($vmin))] pub $v: Bounds, )? )*
            $( $( #[cfg_attr(any(), doc = stringify!($omin))] pub $o: Bounds, )? )*
        }

        pub const BOUNDS: SettingBounds = SettingBounds {
            $( $( $v: Bounds::new($vmin as f64, $vmax as f64), )? )*
            $( $( $o: Bounds::new($omin as f64, $omax as f64), )? )*
        };
    };
}

settings! {
    values {
        /// Global custom instructions: section ② of every system prompt.
        custom_instructions: String = String::new();
        /// Seconds to wait for a reply's first byte: a long prompt on a small GPU takes minutes.
        first_byte_timeout_secs: u32 = 300, in 5 ..= 3600 => InvalidTimeout "the wait for a reply's first word, in seconds,";
        /// Seconds of silence tolerated between two pieces of a reply.
        idle_timeout_secs: u32 = 60, in 5 ..= 3600 => InvalidTimeout "the silence allowed within a reply, in seconds,";
        language: Language = Language::En;
        theme: Theme = Theme::System;
        /// The largest file that can be attached, in MB.
        attachment_max_mb: u32 = 50, in 1 ..= 1024 => InvalidAttachmentLimit "the file size limit, in MB,";
        /// At most this many characters of a file's text are indexed; the rest is cut, with a
        /// note on the file. Bounds the time, memory and disk one file can take, whatever it
        /// inflates to. The default, about 3,000 pages of prose, takes every real document,
        /// while a file that inflates to gigabytes of text stops at a few tens of megabytes.
        attachment_text_max_chars: u32 = TEXT_MAX_CHARS_DEFAULT, in 10_000 ..= 100_000_000 => InvalidTextLimit "the text indexed per file, in characters,";
        memory_mode: MemoryMode = MemoryMode::Review;
        /// The system prompt's budget in characters (sections are cut from ⑤ back to ② beyond it).
        prompt_budget_chars: u32 = 48_000, in 2_000 ..= 1_000_000 => InvalidBudget "the prompt budget, in characters,";
        /// Section ⑤'s budget in characters (facts beyond it are left to `search_memory`).
        memory_budget_chars: u32 = 12_000, in 500 ..= 1_000_000 => InvalidBudget "the memory budget, in characters,";
        /// A tool result of up to this many tokens is sent whole; a larger one is kept aside and
        /// the model gets its first lines and a reference to read on (`read_tool_output`). The
        /// default is a tenth of the 20,000 that suits a 200,000-token window, for the 8,000 to
        /// 32,000 of a local model: a default search (five passages) is still sent whole, a
        /// whole document or a big listing is not.
        tool_output_inline_tokens: u32 = 2_000, in 200 ..= 1_000_000 => InvalidToolOutputLimit "the size up to which a tool result is sent whole, in tokens,";
        /// The most the tools' schemas may take of a request, in tokens. Past it (a tool server
        /// with hundreds of tools), a request carries Maru's own tools, the ones this chat has used
        /// or found, and `search_tools`, by which the model finds the others and can then call
        /// them.
        tool_schema_budget_tokens: u32 = 8_000, in 1_000 ..= 1_000_000 => InvalidToolSchemaBudget "the tools' budget, in tokens,";
        /// Seconds a call of one of the user's tool servers may take (after its approval).
        tool_call_timeout_secs: u32 = 120, in 5 ..= 3600 => InvalidTimeout "a tool call's time limit, in seconds,";
        /// The model that embeds the files' passages, so a search also finds passages by meaning
        /// (hybrid search); none, the default: search by words only.
        embeddings: Option<ModelChoice> = None;
        /// The model that reorders a hybrid search's best passages; none: they stay in the order
        /// the words and the meaning agreed on.
        reranker: Option<ModelChoice> = None;
        /// What other apps may use through `maru mcp` and `/mcp`: nothing, by default.
        sharing: crate::sharing::Sharing = crate::sharing::Sharing::default();
    }
    optional {
        temperature: f32, in 0.0 ..= 2.0 => InvalidTemperature "temperature";
        top_p: f32, in 0.01 ..= 1.0 => InvalidTopP "top_p";
        max_tokens: u32, in 1 ..= 1_000_000 => InvalidMaxTokens "max_tokens (or null for the server's default)";
        /// Context length to assume when the server does not say.
        context_length: u32, in 256 ..= 10_000_000 => InvalidContextLength "context_length, in tokens,";
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("server", &self.server)
            .field("model", &self.model)
            .field("custom_instructions_chars", &self.custom_instructions.chars().count())
            .finish_non_exhaustive()
    }
}

/// Like `Settings`, a patch never shows the API key in logs or panics.
impl std::fmt::Debug for SettingsPatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SettingsPatch")
            .field("endpoint_url", &self.endpoint_url)
            .field("api_key", &self.api_key.as_ref().map(|k| k.as_ref().map(|_| "<redacted>")))
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}
