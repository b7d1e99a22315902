//! Settings: one typed struct with defaults, stored as one JSON value per key so that adding a
//! setting needs no migration and an unknown stored key (from a newer Maru) is simply kept.

use rusqlite::{params, Connection};
use serde::{Deserialize, Deserializer, Serialize};

use super::char_len;
use super::connections::ServerConnection;
use crate::error::{Code, Error, Result};

pub const CUSTOM_INSTRUCTIONS_MAX_CHARS: usize = 100_000;
pub const TEXT_MAX_CHARS_DEFAULT: u32 = 10_000_000;

/// Facts the model proposes: not kept at all, kept once the user accepts them, or kept at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum MemoryMode {
    Off,
    Review,
    Auto,
}

/// The UI's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Language {
    En,
    Ko,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    System,
    Light,
    Dark,
}

/// The smallest and largest value a numeric setting takes (both allowed).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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

/// Every numeric setting's bounds, said once: [`update`] checks them and the UI's settings
/// dialog reads them (generated into `ui/src/backend/generated/settingBounds.ts`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SettingBounds {
    pub temperature: Bounds,
    pub top_p: Bounds,
    pub max_tokens: Bounds,
    pub context_length: Bounds,
    pub first_byte_timeout_secs: Bounds,
    pub idle_timeout_secs: Bounds,
    pub attachment_max_mb: Bounds,
    pub attachment_text_max_chars: Bounds,
    pub prompt_budget_chars: Bounds,
    pub memory_budget_chars: Bounds,
    pub tool_output_inline_tokens: Bounds,
    pub tool_call_timeout_secs: Bounds,
}

pub const BOUNDS: SettingBounds = SettingBounds {
    temperature: Bounds::new(0.0, 2.0),
    top_p: Bounds::new(0.01, 1.0),
    max_tokens: Bounds::new(1.0, 1_000_000.0),
    context_length: Bounds::new(256.0, 10_000_000.0),
    first_byte_timeout_secs: Bounds::new(5.0, 3600.0),
    idle_timeout_secs: Bounds::new(5.0, 3600.0),
    attachment_max_mb: Bounds::new(1.0, 1024.0),
    attachment_text_max_chars: Bounds::new(10_000.0, 100_000_000.0),
    prompt_budget_chars: Bounds::new(2_000.0, 1_000_000.0),
    memory_budget_chars: Bounds::new(500.0, 1_000_000.0),
    tool_output_inline_tokens: Bounds::new(200.0, 1_000_000.0),
    tool_call_timeout_secs: Bounds::new(5.0, 3600.0),
};

#[derive(Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Settings {
    /// Global custom instructions: section ② of every system prompt.
    pub custom_instructions: String,
    /// The server requests go to: the default one, or the chat's own (`for_chat`). Not a stored
    /// setting: the servers are rows of `connections`.
    #[serde(skip)]
    pub server: ServerConnection,
    /// Model id on the default server (the chat's own on its own server); empty means the first
    /// one the server lists.
    pub model: String,
    pub temperature: Option<f32>,
    pub top_p: Option<f32>,
    pub max_tokens: Option<u32>,
    /// Context length to assume when the server does not say.
    pub context_length: Option<u32>,
    /// Seconds to wait for a reply's first byte: a long prompt on a small GPU takes minutes.
    pub first_byte_timeout_secs: u32,
    /// Seconds of silence tolerated between two pieces of a reply.
    pub idle_timeout_secs: u32,
    pub language: Language,
    pub theme: Theme,
    /// The largest file that can be attached, in MB.
    pub attachment_max_mb: u32,
    /// At most this many characters of a file's text are indexed; the rest is cut, with a note
    /// on the file. Bounds the time, memory and disk one file can take, whatever it inflates to.
    pub attachment_text_max_chars: u32,
    pub memory_mode: MemoryMode,
    /// The system prompt's budget in characters (sections are cut from ⑤ back to ② beyond it).
    pub prompt_budget_chars: u32,
    /// Section ⑤'s budget in characters (facts beyond it are left to `search_memory`).
    pub memory_budget_chars: u32,
    /// A tool result of up to this many tokens is sent whole; a larger one is kept aside and the
    /// model gets its first lines and a reference to read on (`read_tool_output`).
    pub tool_output_inline_tokens: u32,
    /// Seconds a call of one of the user's tool servers may take (after its approval).
    pub tool_call_timeout_secs: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            custom_instructions: String::new(),
            server: ServerConnection::default(),
            model: String::new(),
            temperature: None,
            top_p: None,
            max_tokens: None,
            context_length: None,
            first_byte_timeout_secs: 300,
            idle_timeout_secs: 60,
            language: Language::En,
            theme: Theme::System,
            attachment_max_mb: 50,
            // About 3,000 pages of prose: every real document, while a file that inflates to
            // gigabytes of text stops at a few tens of megabytes.
            attachment_text_max_chars: TEXT_MAX_CHARS_DEFAULT,
            memory_mode: MemoryMode::Review,
            prompt_budget_chars: 48_000,
            memory_budget_chars: 12_000,
            // A tenth of the 20,000 that suits a 200,000-token window, for the 8,000 to 32,000
            // of a local model: a default search (five passages) is still sent whole, a whole
            // document or a big listing is not.
            tool_output_inline_tokens: 2_000,
            tool_call_timeout_secs: 120,
        }
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("server", &self.server)
            .field("model", &self.model)
            .field("custom_instructions_chars", &char_len(&self.custom_instructions))
            .finish_non_exhaustive()
    }
}

/// What the API shows: everything but the key itself.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SettingsView {
    pub custom_instructions: String,
    /// The default server's address (the servers are listed by `/api/connections`).
    pub endpoint_url: String,
    /// The default server has a key.
    pub api_key_set: bool,
    /// The default model, on the default server.
    pub model: String,
    pub temperature: Option<f32>,
    pub top_p: Option<f32>,
    pub max_tokens: Option<u32>,
    pub context_length: Option<u32>,
    pub first_byte_timeout_secs: u32,
    pub idle_timeout_secs: u32,
    pub language: Language,
    pub theme: Theme,
    pub attachment_max_mb: u32,
    pub attachment_text_max_chars: u32,
    pub memory_mode: MemoryMode,
    pub prompt_budget_chars: u32,
    pub memory_budget_chars: u32,
    pub tool_output_inline_tokens: u32,
    pub tool_call_timeout_secs: u32,
}

impl From<&Settings> for SettingsView {
    fn from(s: &Settings) -> Self {
        SettingsView {
            custom_instructions: s.custom_instructions.clone(),
            endpoint_url: s.server.base_url.clone(),
            api_key_set: s.server.api_key.as_deref().is_some_and(|k| !k.is_empty()),
            model: s.model.clone(),
            temperature: s.temperature,
            top_p: s.top_p,
            max_tokens: s.max_tokens,
            context_length: s.context_length,
            first_byte_timeout_secs: s.first_byte_timeout_secs,
            idle_timeout_secs: s.idle_timeout_secs,
            language: s.language,
            theme: s.theme,
            attachment_max_mb: s.attachment_max_mb,
            attachment_text_max_chars: s.attachment_text_max_chars,
            memory_mode: s.memory_mode,
            prompt_budget_chars: s.prompt_budget_chars,
            memory_budget_chars: s.memory_budget_chars,
            tool_output_inline_tokens: s.tool_output_inline_tokens,
            tool_call_timeout_secs: s.tool_call_timeout_secs,
        }
    }
}

/// A partial update; a field set to `null` goes back to its default.
#[derive(Clone, Default, Deserialize, Serialize, utoipa::ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(deny_unknown_fields)]
pub struct SettingsPatch {
    #[serde(default, deserialize_with = "present")]
    pub custom_instructions: Option<Option<String>>,
    /// The default server's address; `null` goes back to the usual local one.
    #[serde(default, deserialize_with = "present")]
    pub endpoint_url: Option<Option<String>>,
    /// The default server's key: a string sets it; `null` or "" removes it.
    #[serde(default, deserialize_with = "present")]
    pub api_key: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub model: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub temperature: Option<Option<f32>>,
    #[serde(default, deserialize_with = "present")]
    pub top_p: Option<Option<f32>>,
    #[serde(default, deserialize_with = "present")]
    pub max_tokens: Option<Option<u32>>,
    #[serde(default, deserialize_with = "present")]
    pub context_length: Option<Option<u32>>,
    #[serde(default, deserialize_with = "present")]
    pub first_byte_timeout_secs: Option<Option<u32>>,
    #[serde(default, deserialize_with = "present")]
    pub idle_timeout_secs: Option<Option<u32>>,
    #[serde(default, deserialize_with = "present")]
    pub language: Option<Option<Language>>,
    #[serde(default, deserialize_with = "present")]
    pub theme: Option<Option<Theme>>,
    #[serde(default, deserialize_with = "present")]
    pub attachment_max_mb: Option<Option<u32>>,
    #[serde(default, deserialize_with = "present")]
    pub attachment_text_max_chars: Option<Option<u32>>,
    #[serde(default, deserialize_with = "present")]
    pub memory_mode: Option<Option<MemoryMode>>,
    #[serde(default, deserialize_with = "present")]
    pub prompt_budget_chars: Option<Option<u32>>,
    #[serde(default, deserialize_with = "present")]
    pub memory_budget_chars: Option<Option<u32>>,
    #[serde(default, deserialize_with = "present")]
    pub tool_output_inline_tokens: Option<Option<u32>>,
    #[serde(default, deserialize_with = "present")]
    pub tool_call_timeout_secs: Option<Option<u32>>,
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

/// Distinguishes a field that is absent (outer None) from one set to null (Some(None)).
pub(crate) fn present<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// The settings a chat's requests use: the global ones, with the chat's own server and model.
pub fn for_session(conn: &Connection, session_id: i64) -> Result<Settings> {
    load(conn)?.for_chat(conn, &super::sessions::get(conn, session_id)?)
}

impl Settings {
    /// These settings with the chat's own server and model, if it has them. On a server of its
    /// own without a model, a chat asks for the first one that server lists: the default model
    /// names a model of the default server.
    pub fn for_chat(mut self, conn: &Connection, session: &super::sessions::Session) -> Result<Settings> {
        if let Some(id) = session.connection_id.filter(|&id| id != self.server.id) {
            self.server = super::connections::get(conn, id)?;
            self.model = String::new();
        }
        if let Some(model) = &session.model {
            self.model = model.clone();
        }
        Ok(self)
    }
}

/// A chat on a server the user turned off is refused before anything is stored.
pub fn check_server_on(s: &Settings) -> Result<()> {
    if s.server.enabled {
        return Ok(());
    }
    let name = &s.server.name;
    Err(Error::conflict(
        Code::ConnectionOff,
        format!("this chat's server \"{name}\" is turned off; turn it on in settings, or choose another model"),
    )
    .with("name", name))
}

pub fn load(conn: &Connection) -> Result<Settings> {
    let mut stmt = conn.prepare_cached("SELECT key, value FROM settings")?;
    let mut map = serde_json::Map::new();
    for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))? {
        let (key, value) = row?;
        if let Ok(v) = serde_json::from_str(&value) {
            map.insert(key, v);
        }
    }
    // Unknown keys are ignored and a malformed value falls back to its default, field by field.
    let defaults = serde_json::to_value(Settings::default()).expect("settings serialise");
    let mut merged = defaults.as_object().cloned().unwrap_or_default();
    // Every turn reads the settings: try them all at once, and probe key by key only when one
    // of them does not parse.
    let mut all = merged.clone();
    all.extend(map.iter().filter(|(k, _)| merged.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone())));
    if let Ok(mut settings) = serde_json::from_value::<Settings>(serde_json::Value::Object(all)) {
        settings.server = super::connections::default(conn)?;
        return Ok(settings);
    }
    for (k, v) in map {
        if merged.contains_key(&k) {
            let mut probe = merged.clone();
            probe.insert(k.clone(), v.clone());
            if serde_json::from_value::<Settings>(serde_json::Value::Object(probe)).is_ok() {
                merged.insert(k, v);
            }
        }
    }
    let mut settings: Settings = serde_json::from_value(serde_json::Value::Object(merged)).map_err(anyhow::Error::from)?;
    settings.server = super::connections::default(conn)?;
    Ok(settings)
}

/// Validates the whole patch first, then writes it (in the caller's transaction: all or nothing).
pub fn update(conn: &Connection, patch: &SettingsPatch) -> Result<Settings> {
    if patch.endpoint_url.is_some() || patch.api_key.is_some() {
        let url = patch.endpoint_url.as_ref().map(|u| u.as_deref().unwrap_or(super::connections::DEFAULT_URL));
        super::connections::update_default(conn, url, patch.api_key.clone())?;
    }
    let mut s = load(conn)?;
    let d = Settings::default();
    macro_rules! apply {
        ($field:ident) => {
            if let Some(v) = &patch.$field {
                s.$field = v.clone().unwrap_or_else(|| d.$field.clone());
            }
        };
        ($field:ident, optional) => {
            if let Some(v) = &patch.$field {
                s.$field = v.clone();
            }
        };
    }
    apply!(custom_instructions);
    apply!(model);
    apply!(temperature, optional);
    apply!(top_p, optional);
    apply!(max_tokens, optional);
    apply!(context_length, optional);
    apply!(first_byte_timeout_secs);
    apply!(idle_timeout_secs);
    apply!(language);
    apply!(theme);
    apply!(attachment_max_mb);
    apply!(attachment_text_max_chars);
    apply!(memory_mode);
    apply!(prompt_budget_chars);
    apply!(memory_budget_chars);
    apply!(tool_output_inline_tokens);
    apply!(tool_call_timeout_secs);
    s.model = s.model.trim().to_string();
    validate(&s)?;

    let value = serde_json::to_value(&s).map_err(anyhow::Error::from)?;
    for (key, v) in value.as_object().into_iter().flatten() {
        conn.execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![key, v.to_string()],
        )?;
    }
    Ok(s)
}

fn validate(s: &Settings) -> Result<()> {
    let bad = |code: Code, msg: String| Err(Error::invalid(code, msg));
    let len = char_len(&s.custom_instructions);
    if len > CUSTOM_INSTRUCTIONS_MAX_CHARS {
        return bad(
            Code::InstructionsTooLong,
            format!("custom instructions can have at most {CUSTOM_INSTRUCTIONS_MAX_CHARS} characters (these have {len})"),
        );
    }
    let b = &BOUNDS;
    let outside = |code: Code, what: &str, bounds: &Bounds| {
        Err(Error::invalid(code, format!("{what} must be between {} and {}", bounds.min, bounds.max))
            .with("min", bounds.min)
            .with("max", bounds.max))
    };
    if s.temperature.is_some_and(|t| !b.temperature.holds(t)) {
        return outside(Code::InvalidTemperature, "temperature", &b.temperature);
    }
    if s.top_p.is_some_and(|p| !b.top_p.holds(p)) {
        return outside(Code::InvalidTopP, "top_p", &b.top_p);
    }
    if s.max_tokens.is_some_and(|n| !b.max_tokens.holds(n)) {
        return outside(Code::InvalidMaxTokens, "max_tokens (or null for the server's default)", &b.max_tokens);
    }
    if s.context_length.is_some_and(|c| !b.context_length.holds(c)) {
        return outside(Code::InvalidContextLength, "context_length, in tokens,", &b.context_length);
    }
    if !b.first_byte_timeout_secs.holds(s.first_byte_timeout_secs)
        || !b.idle_timeout_secs.holds(s.idle_timeout_secs)
        || !b.tool_call_timeout_secs.holds(s.tool_call_timeout_secs)
    {
        return outside(Code::InvalidTimeout, "timeouts, in seconds,", &b.idle_timeout_secs);
    }
    if !b.attachment_max_mb.holds(s.attachment_max_mb) {
        return outside(Code::InvalidAttachmentLimit, "the file size limit, in MB,", &b.attachment_max_mb);
    }
    if !b.attachment_text_max_chars.holds(s.attachment_text_max_chars) {
        return outside(Code::InvalidTextLimit, "the text indexed per file, in characters,", &b.attachment_text_max_chars);
    }
    if !b.prompt_budget_chars.holds(s.prompt_budget_chars) {
        return outside(Code::InvalidBudget, "the prompt budget, in characters,", &b.prompt_budget_chars);
    }
    if !b.memory_budget_chars.holds(s.memory_budget_chars) {
        return outside(Code::InvalidBudget, "the memory budget, in characters,", &b.memory_budget_chars);
    }
    if !b.tool_output_inline_tokens.holds(s.tool_output_inline_tokens) {
        return outside(
            Code::InvalidToolOutputLimit,
            "the size up to which a tool result is sent whole, in tokens,",
            &b.tool_output_inline_tokens,
        );
    }
    Ok(())
}
