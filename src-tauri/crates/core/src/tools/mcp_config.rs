//! An `mcp.json` as the apps people copy MCP servers from write it: Claude Desktop's
//! `claude_desktop_config.json`, Cursor's `.cursor/mcp.json`, LM Studio's `mcp.json` and Claude
//! Code's `.mcp.json` (`{"mcpServers": {name: server}}`), and VS Code's `.vscode/mcp.json`
//! (`{"servers": {name: server}}`). A server is a program (`command`, `args`, `env`) or an
//! address (`url`, `headers`, and a `type` of `http`, `streamable-http` or `sse`).
//!
//! Reading one adds nothing: it says, per server, what would be added under which name, which
//! names are yours already, and which values look like secrets. The values themselves never
//! leave this module but into the store, where a server's variables and headers are kept and
//! never shown, as when the user types them.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::command_line;
use crate::error::{Code, Error, Reason, Result};
use crate::store::tool_servers::{NewToolServer, Transport, NAME_MAX_CHARS};

/// Larger than any such file (a few kilobytes): what is larger is not one.
pub const TEXT_MAX_BYTES: usize = 1024 * 1024;
/// Servers one file may add at once.
pub const SERVERS_MAX: usize = 100;

/// A server of the file as it would be added, its values left out.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ImportedServer {
    /// Its name in the file: what choosing it names.
    pub key: String,
    /// The name it gets: the file's, with what Maru's names do not allow replaced by `-`, and a
    /// number after it where one of your servers (or one before it in the file) has it.
    pub name: String,
    pub transport: Transport,
    pub command: String,
    pub args: Vec<String>,
    pub url: String,
    /// Its variables by name, and what each looks like; their values are never shown.
    pub env: Vec<ImportedValue>,
    /// Its headers by name, the same way.
    pub headers: Vec<ImportedValue>,
    /// One of your servers has the file's name for it already (it may be this one, added before):
    /// it is added under `name` only if chosen.
    pub clash: bool,
    /// The file turns it off (`"disabled": true`): it is added turned off.
    pub enabled: bool,
    /// Why it cannot be added (`mcp_server_incomplete`: neither a command nor an address;
    /// `mcp_server_bad_field` with the `field`; `mcp_server_invalid` with Maru's `detail`).
    pub problem: Option<Reason>,
    /// What to know before adding it: `command_split` (the command was a whole command line),
    /// `sse_transport` (the older SSE transport: Maru speaks Streamable HTTP, which most such
    /// servers answer too), `ignored_fields` (`fields` Maru has no use for).
    pub notes: Vec<Reason>,
}

/// A variable or header, by name: whether its value looks like a secret (it is kept as the
/// others are, never shown), or like a placeholder to fill in after adding (`<YOUR_TOKEN>`).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ImportedValue {
    pub name: String,
    pub secret: bool,
    pub placeholder: bool,
}

/// A server read from the file: what the store is given, and what the preview shows of it.
pub struct Read {
    pub shown: ImportedServer,
    pub new: NewToolServer,
}

/// Reads the servers of an `mcp.json`, naming each so that it clashes neither with `taken` (your
/// servers' names) nor with another of the file. Refuses text that is not such a file.
pub fn read(text: &str, taken: &[String]) -> Result<Vec<Read>> {
    if text.len() > TEXT_MAX_BYTES {
        return Err(Error::invalid(
            Code::McpConfigTooLarge,
            format!("the file has {} bytes; an mcp.json is a few kilobytes, and Maru reads up to {TEXT_MAX_BYTES}", text.len()),
        )
        .with("bytes", text.len())
        .with("max", TEXT_MAX_BYTES));
    }
    let root: Value = serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|e| {
        Error::invalid(Code::McpConfigNotJson, format!("the text is not JSON: {e}")).with("line", e.line()).with("column", e.column())
    })?;
    if servers_of(&root).is_none() {
        return Err(Error::invalid(
            Code::McpConfigNoServers,
            "the text has no \"mcpServers\" object (Claude Desktop, Cursor, LM Studio) nor a \"servers\" object (VS Code)",
        ));
    }
    // In the file's order (a map of JSON keeps them sorted): the preview lists them as written.
    let servers = in_order(text);
    if servers.len() > SERVERS_MAX {
        return Err(Error::invalid(
            Code::McpConfigTooMany,
            format!("the file has {} servers; Maru adds up to {SERVERS_MAX} at once", servers.len()),
        )
        .with("count", servers.len())
        .with("max", SERVERS_MAX));
    }
    let mut used: BTreeSet<String> = taken.iter().map(|n| n.to_lowercase()).collect();
    let mut out = vec![];
    for (key, value) in &servers {
        let mut read = server(key, value);
        let wanted = maru_name(key);
        read.shown.clash = taken.iter().any(|t| t.eq_ignore_ascii_case(&wanted));
        let name = free_name(&wanted, &used);
        used.insert(name.to_lowercase());
        read.shown.name.clone_from(&name);
        read.new.name = name;
        out.push(read);
    }
    Ok(out)
}

/// `mcpServers` (most apps), `servers` (VS Code's mcp.json) or `mcp.servers` (VS Code's settings).
fn servers_of(root: &Value) -> Option<&Map<String, Value>> {
    root.get("mcpServers").or_else(|| root.get("servers")).or_else(|| root.pointer("/mcp/servers"))?.as_object()
}

/// The servers of [`servers_of`] in the order the file has them.
fn in_order(text: &str) -> Vec<(String, Value)> {
    #[derive(Deserialize)]
    struct File {
        #[serde(rename = "mcpServers", default)]
        mcp_servers: Ordered,
        #[serde(default)]
        servers: Ordered,
        #[serde(default)]
        mcp: Option<Settings>,
    }
    #[derive(Deserialize)]
    struct Settings {
        #[serde(default)]
        servers: Ordered,
    }
    let file: Option<File> = serde_json::from_str(text.trim_start_matches('\u{feff}')).ok();
    file.and_then(|f| f.mcp_servers.0.or(f.servers.0).or(f.mcp.and_then(|m| m.servers.0))).unwrap_or_default()
}

/// A JSON object's entries as written (`None`: not an object).
#[derive(Default)]
struct Ordered(Option<Vec<(String, Value)>>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Ordered, A::Error> {
                let mut entries = vec![];
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    entries.push(entry);
                }
                Ok(Ordered(Some(entries)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Ordered, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Ordered(None))
            }
            fn visit_str<E>(self, _: &str) -> std::result::Result<Ordered, E> {
                Ok(Ordered(None))
            }
            fn visit_bool<E>(self, _: bool) -> std::result::Result<Ordered, E> {
                Ok(Ordered(None))
            }
            fn visit_i64<E>(self, _: i64) -> std::result::Result<Ordered, E> {
                Ok(Ordered(None))
            }
            fn visit_u64<E>(self, _: u64) -> std::result::Result<Ordered, E> {
                Ok(Ordered(None))
            }
            fn visit_f64<E>(self, _: f64) -> std::result::Result<Ordered, E> {
                Ok(Ordered(None))
            }
            fn visit_unit<E>(self) -> std::result::Result<Ordered, E> {
                Ok(Ordered(None))
            }
        }
        d.deserialize_any(Entries)
    }
}

/// One server of the file, named as in the file until [`read`] names it.
fn server(key: &str, value: &Value) -> Read {
    let mut shown = ImportedServer {
        key: key.to_string(),
        name: String::new(),
        transport: Transport::Stdio,
        command: String::new(),
        args: vec![],
        url: String::new(),
        env: vec![],
        headers: vec![],
        clash: false,
        enabled: true,
        problem: None,
        notes: vec![],
    };
    let mut new = NewToolServer::default();
    let Some(fields) = value.as_object() else {
        shown.problem = Some(Reason::new(crate::error::ReasonCode::McpServerBadField).with("field", key));
        return Read { shown, new };
    };
    let bad = |field: &str| Some(Reason::new(crate::error::ReasonCode::McpServerBadField).with("field", field));
    let kind = fields.get("type").and_then(Value::as_str).unwrap_or_default().to_ascii_lowercase();
    let url = fields.get("url").or_else(|| fields.get("serverUrl"));
    let command = fields.get("command");
    if let Some(url) = url.filter(|_| command.is_none() || kind != "stdio") {
        shown.transport = Transport::Http;
        match url.as_str() {
            Some(u) => shown.url = u.trim().to_string(),
            None => shown.problem = bad("url"),
        }
        if kind == "sse" || shown.url.trim_end_matches('/').ends_with("/sse") {
            shown.notes.push(Reason::new(crate::error::ReasonCode::SseTransport));
        }
        match strings(fields.get("headers")) {
            Some(h) => new.headers = Some(h),
            None => shown.problem = shown.problem.take().or(bad("headers")),
        }
    } else if let Some(command) = command {
        match command.as_str() {
            Some(c) => shown.command = c.trim().to_string(),
            None => shown.problem = bad("command"),
        }
        match fields.get("args").map(list) {
            None => {}
            Some(Some(args)) => shown.args = args,
            Some(None) => shown.problem = shown.problem.take().or(bad("args")),
        }
        // A whole command line in `command`, as people write it: split as the form splits it.
        if shown.args.is_empty() && command_line::has_arguments(&shown.command) {
            if let Ok(line) = command_line::split(&shown.command) {
                (shown.command, shown.args) = (line.command, line.args);
                shown.notes.push(Reason::new(crate::error::ReasonCode::CommandSplit));
            }
        }
        match strings(fields.get("env")) {
            Some(e) => new.env = Some(e),
            None => shown.problem = shown.problem.take().or(bad("env")),
        }
    } else {
        shown.problem = Some(Reason::new(crate::error::ReasonCode::McpServerIncomplete));
    }
    if fields.get("disabled").and_then(Value::as_bool) == Some(true) || fields.get("enabled").and_then(Value::as_bool) == Some(false) {
        shown.enabled = false;
    }
    const KNOWN: [&str; 10] = ["type", "command", "args", "env", "url", "serverUrl", "headers", "disabled", "enabled", "description"];
    let ignored: Vec<&str> = fields.keys().map(String::as_str).filter(|k| !KNOWN.contains(k)).collect();
    if !ignored.is_empty() {
        shown.notes.push(Reason::new(crate::error::ReasonCode::IgnoredFields).with("fields", ignored.join(", ")));
    }
    shown.env = values(new.env.as_ref());
    shown.headers = values(new.headers.as_ref());
    new.transport = shown.transport;
    new.enabled = Some(shown.enabled);
    match shown.transport {
        Transport::Stdio => (new.command, new.args) = (Some(shown.command.clone()), Some(shown.args.clone())),
        Transport::Http => new.url = Some(shown.url.clone()),
    }
    Read { shown, new }
}

/// A list of arguments: strings, and numbers or booleans as written (`["--port", 8080]`).
fn list(v: &Value) -> Option<Vec<String>> {
    v.as_array()?.iter().map(scalar).collect()
}

/// A map of names to values, the same way; absent is empty.
fn strings(v: Option<&Value>) -> Option<BTreeMap<String, String>> {
    let Some(v) = v.filter(|v| !v.is_null()) else { return Some(BTreeMap::new()) };
    v.as_object()?.iter().map(|(k, v)| Some((k.clone(), scalar(v)?))).collect()
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn values(map: Option<&BTreeMap<String, String>>) -> Vec<ImportedValue> {
    map.into_iter()
        .flatten()
        .map(|(name, value)| ImportedValue { secret: looks_secret(name, value), placeholder: looks_placeholder(value), name: name.clone() })
        .collect()
}

/// A variable or header that holds a credential: by its name (`GITHUB_TOKEN`, `OPENAI_API_KEY`,
/// `Authorization`) or by its value (a key's known shape).
pub fn looks_secret(name: &str, value: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    let words: Vec<&str> = upper.split(['_', '-', '.']).collect();
    const SECRET_WORDS: [&str; 11] =
        ["KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "PAT", "AUTHORIZATION", "CREDENTIALS", "COOKIE"];
    words.iter().any(|w| SECRET_WORDS.contains(w)) || crate::secrets::find(value).is_some()
}

/// A value left for the user to fill in, as configuration examples write them.
fn looks_placeholder(value: &str) -> bool {
    let v = value.trim();
    let lower = v.to_ascii_lowercase();
    v.is_empty()
        || (v.contains('<') && v.contains('>'))
        || v.contains("${")
        || lower.contains("your_")
        || lower.contains("your-")
        || lower.contains("xxxx")
        || v.ends_with("...")
        || v.ends_with('…')
}

/// The file's name as a Maru name: letters, digits, `-` and `_`, at most [`NAME_MAX_CHARS`].
fn maru_name(key: &str) -> String {
    let mut name = String::new();
    for c in key.trim().chars() {
        let c = if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '-' };
        // No runs of separators, and never `__`, which splits a tool's name from its server's.
        if (c == '-' || c == '_') && name.ends_with(['-', '_']) {
            continue;
        }
        name.push(c);
    }
    let name: String = name.trim_matches(['-', '_']).chars().take(NAME_MAX_CHARS).collect();
    let name = name.trim_end_matches(['-', '_']).to_string();
    if name.is_empty() {
        "server".into()
    } else {
        name
    }
}

/// `name`, or `name-2`, `name-3`… (cut to fit), the first not in `used` (lowercased).
fn free_name(name: &str, used: &BTreeSet<String>) -> String {
    if !used.contains(&name.to_lowercase()) {
        return name.to_string();
    }
    (2..)
        .map(|n| {
            let suffix = format!("-{n}");
            let head: String = name.chars().take(NAME_MAX_CHARS - suffix.len()).collect();
            format!("{}{suffix}", head.trim_end_matches(['-', '_']))
        })
        .find(|n| !used.contains(&n.to_lowercase()))
        .expect("a free name")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str, taken: &[&str]) -> Vec<ImportedServer> {
        let taken: Vec<String> = taken.iter().map(|s| s.to_string()).collect();
        read(text, &taken).unwrap().into_iter().map(|r| r.shown).collect()
    }

    #[test]
    fn names_become_maru_names_without_clashing() {
        let text = r#"{"mcpServers": {"GitHub MCP": {"command": "npx"}, "github-mcp": {"command": "npx"}, "hf.co/mcp": {"url": "https://huggingface.co/mcp"}, "한글": {"command": "x"}}}"#;
        let s = shown(text, &["github-mcp"]);
        let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["GitHub-MCP-2", "github-mcp-3", "hf-co-mcp", "server"], "a name a tool can carry, never one taken");
        assert!(s[0].clash && s[1].clash && !s[2].clash, "the two named like one of yours say so: {s:?}");
        assert_eq!(maru_name(&"a".repeat(40)).len(), NAME_MAX_CHARS);
        assert_eq!(maru_name("my__server"), "my_server", "never __, which separates a server's name from its tools'");
    }

    #[test]
    fn secrets_and_placeholders_are_recognised_by_name_or_value() {
        assert!(looks_secret("GITHUB_PERSONAL_ACCESS_TOKEN", "x") && looks_secret("Authorization", "Bearer x"));
        assert!(looks_secret("BRAVE_API_KEY", "") && looks_secret("CONFIG", "sk-proj-abcdefghijklmnop1234"));
        assert!(!looks_secret("LOG_LEVEL", "debug") && !looks_secret("KEYBOARD_LAYOUT", "us"));
        assert!(looks_placeholder("<YOUR_TOKEN>") && looks_placeholder("${env:GITHUB_TOKEN}") && looks_placeholder(""));
        assert!(!looks_placeholder("ghp_abcdefghijklmnopqrstuvwxyz123456"));
    }
}
