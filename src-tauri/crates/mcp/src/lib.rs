//! A client of one of the user's MCP tool servers, over the official SDK (`rmcp`): started as a
//! child process speaking stdio, or reached over Streamable HTTP. It lists the server's tools
//! and calls them with a deadline; what a server writes to stderr goes to Maru's log, and its
//! last lines explain a server that fails to start.
//!
//! A stdio server gets a clean environment (PATH, HOME and the language, then its own
//! variables): Maru's environment may hold keys that are none of its business. It runs as the
//! leader of its own process group, so closing the connection stops everything it started.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use maru_types::tool_servers::ToolHints;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ContentBlock, Implementation, ProtocolVersion,
    ResourceContents,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;

/// How to reach a server.
#[derive(Debug, Clone, PartialEq)]
pub enum Launch {
    Stdio { command: String, args: Vec<String>, env: Vec<(String, String)> },
    Http { url: String, headers: Vec<(String, String)> },
}

/// A tool as the server describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    /// The JSON Schema of its arguments.
    pub input_schema: Value,
    /// What the server says it does (read-only, destructive, reaching outside).
    pub hints: ToolHints,
}

/// What a call gave: its content as text, and whether the server says it failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub text: String,
    pub is_error: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// No answer within the deadline; the server was told to stop.
    Timeout,
    /// The connection is gone (the server exited or was killed).
    Closed(String),
    /// The server refused the request itself.
    Refused(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Timeout => write!(f, "no answer in time"),
            CallError::Closed(why) => write!(f, "the connection to the server is gone ({why})"),
            CallError::Refused(why) => write!(f, "the server refused the call: {why}"),
        }
    }
}

/// Variables a server's command needs to be found and run at all.
const KEPT_ENV: [&str; 5] = ["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR"];
/// How many of a server's last stderr lines are kept to say why it failed.
const STDERR_KEPT: usize = 20;

/// An open connection to one server.
pub struct Connection {
    service: RunningService<RoleClient, Handler>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Its tools as it listed them at the start ([`Connection::list_tools`] asks again).
    pub tools: Vec<ToolInfo>,
    /// A message each time the server says its tools changed; taken by whoever follows them.
    changes: Mutex<Option<mpsc::UnboundedReceiver<()>>>,
}

/// Maru's side of a connection: what it tells the server of itself, and the server's
/// `notifications/tools/list_changed`, passed on. The sender goes with the connection's task, so
/// the receiver ends when the connection does.
struct Handler {
    config: ClientConfig,
    changed: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) -> impl std::future::Future<Output = ()> + Send + '_ {
        let _ = self.changed.send(());
        std::future::ready(())
    }
}

/// Why a server could not be started or reached. Each kind is one sentence the settings' list
/// says in the user's language; `detail` is what the system or the server said, as it said it.
#[derive(Debug, Clone, PartialEq)]
pub enum ConnectFailure {
    /// The program could not be run (not found, not executable).
    CannotRun { command: String, detail: String },
    /// It ran, but did not complete the MCP handshake (it exited, or wrote something else).
    NoHandshake { detail: String },
    /// The address did not answer as an MCP server.
    NoAnswer { url: String, detail: String },
    /// A header the user set has a name or a value HTTP does not allow.
    BadHeader { name: String },
    /// The handshake worked, but listing its tools did not.
    NoToolList { detail: String },
    /// Nothing of the above finished within the deadline.
    TimedOut { seconds: u64 },
}

/// A failed [`connect`]: why, and the server's last lines on stderr (empty when it wrote none).
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectError {
    pub failure: ConnectFailure,
    pub said: String,
}

impl std::fmt::Display for ConnectFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectFailure::CannotRun { command, detail } => write!(f, "cannot start {command:?}: {detail}"),
            ConnectFailure::NoHandshake { detail } => write!(f, "the server did not start: {detail}"),
            ConnectFailure::NoAnswer { url, detail } => write!(f, "the server at {url} did not answer: {detail}"),
            ConnectFailure::BadHeader { name } => write!(f, "the header {name:?} is not a valid header"),
            ConnectFailure::NoToolList { detail } => write!(f, "the server did not list its tools: {detail}"),
            ConnectFailure::TimedOut { seconds } => write!(f, "no answer within {seconds} s"),
        }
    }
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.said.is_empty() {
            write!(f, "{}", self.failure)
        } else {
            write!(f, "{}; it said: {}", self.failure, self.said)
        }
    }
}

/// Starts (or reaches) the server `name`, does the handshake and lists its tools, all within
/// `deadline`. The error says why, with the server's last words on stderr when it has any.
pub async fn connect(name: &str, launch: &Launch, deadline: Duration) -> Result<Connection, ConnectError> {
    let stderr = Arc::new(Mutex::new(VecDeque::new()));
    let config = ClientConfig::new(ClientCapabilities::default(), Implementation::new("maru", env!("CARGO_PKG_VERSION")))
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE);
    let (changed, changes) = mpsc::unbounded_channel();
    let handler = Handler { config, changed };
    let started = async {
        let service = match launch {
            Launch::Stdio { command, args, env } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args).env_clear();
                for key in KEPT_ENV {
                    if let Ok(v) = std::env::var(key) {
                        cmd.env(key, v);
                    }
                }
                cmd.envs(env.iter().cloned());
                let mut cmd = process_wrap::tokio::CommandWrap::from(cmd);
                #[cfg(unix)]
                cmd.wrap(process_wrap::tokio::ProcessGroup::leader());
                let (transport, err) = TokioChildProcess::builder(cmd)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| ConnectFailure::CannotRun { command: command.clone(), detail: e.to_string() })?;
                if let Some(err) = err {
                    tokio::spawn(drain(name.to_string(), err, stderr.clone()));
                }
                handler.serve(transport).await.map_err(|e| ConnectFailure::NoHandshake { detail: e.to_string() })?
            }
            Launch::Http { url, headers } => {
                let mut custom = std::collections::HashMap::new();
                for (k, v) in headers {
                    let bad = || ConnectFailure::BadHeader { name: k.clone() };
                    let key = http::HeaderName::from_bytes(k.as_bytes()).map_err(|_| bad())?;
                    let mut value = http::HeaderValue::from_str(v).map_err(|_| bad())?;
                    value.set_sensitive(true);
                    custom.insert(key, value);
                }
                let transport = StreamableHttpClientTransport::from_config(
                    StreamableHttpClientTransportConfig::with_uri(url.clone()).custom_headers(custom),
                );
                handler.serve(transport).await.map_err(|e| ConnectFailure::NoAnswer { url: url.clone(), detail: e.to_string() })?
            }
        };
        let tools = service.peer().list_all_tools().await.map_err(|e| ConnectFailure::NoToolList { detail: e.to_string() })?;
        Ok::<_, ConnectFailure>((service, tools))
    };
    let outcome =
        tokio::time::timeout(deadline, started).await.unwrap_or_else(|_| Err(ConnectFailure::TimedOut { seconds: deadline.as_secs() }));
    match outcome {
        Ok((service, tools)) => {
            let tools = tools.into_iter().map(tool_info).collect();
            Ok(Connection { service, stderr, tools, changes: Mutex::new(Some(changes)) })
        }
        Err(failure) => {
            // The child's last words, once its pipe has been read to the end.
            tokio::time::sleep(Duration::from_millis(100)).await;
            Err(ConnectError { failure, said: last_words(&stderr) })
        }
    }
}

/// Logs a server's stderr line by line, keeping the last few lines.
async fn drain(name: String, err: tokio::process::ChildStderr, kept: Arc<Mutex<VecDeque<String>>>) {
    let mut reader = BufReader::new(err);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let text = String::from_utf8_lossy(&line).trim_end().to_string();
                tracing::info!(target: "tool_server", server = %name, "{text}");
                let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
                if kept.len() == STDERR_KEPT {
                    kept.pop_front();
                }
                kept.push_back(text);
            }
        }
    }
}

fn tool_info(t: rmcp::model::Tool) -> ToolInfo {
    let hints = t.annotations.as_ref().map(|a| ToolHints {
        read_only: a.read_only_hint,
        destructive: a.destructive_hint,
        open_world: a.open_world_hint,
    });
    ToolInfo {
        name: t.name.to_string(),
        description: t.description.as_deref().unwrap_or_default().to_string(),
        input_schema: t.schema_as_json_value(),
        hints: hints.unwrap_or_default(),
    }
}

fn last_words(kept: &Mutex<VecDeque<String>>) -> String {
    let kept = kept.lock().unwrap_or_else(|p| p.into_inner());
    kept.iter().filter(|l| !l.trim().is_empty()).cloned().collect::<Vec<_>>().join(" / ")
}

impl Connection {
    /// Calls `tool`; a call past `deadline` is cancelled at the server.
    pub async fn call(&self, tool: &str, arguments: Value, deadline: Duration) -> Result<Outcome, CallError> {
        let arguments = match arguments {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        // Dropping the call on the deadline sends the server `notifications/cancelled`.
        match tokio::time::timeout(deadline, self.service.peer().call_tool(params)).await {
            Err(_) => Err(CallError::Timeout),
            Ok(Ok(result)) => Ok(outcome(&result)),
            Ok(Err(e)) if self.is_closed() => Err(CallError::Closed(e.to_string())),
            Ok(Err(rmcp::ServiceError::TransportClosed)) => Err(CallError::Closed("closed".into())),
            Ok(Err(e)) => Err(CallError::Refused(e.to_string())),
        }
    }

    /// Its tools as the server lists them now, within `deadline`.
    pub async fn list_tools(&self, deadline: Duration) -> Result<Vec<ToolInfo>, CallError> {
        match tokio::time::timeout(deadline, self.service.peer().list_all_tools()).await {
            Err(_) => Err(CallError::Timeout),
            Ok(Ok(tools)) => Ok(tools.into_iter().map(tool_info).collect()),
            Ok(Err(e)) if self.is_closed() => Err(CallError::Closed(e.to_string())),
            Ok(Err(e)) => Err(CallError::Refused(e.to_string())),
        }
    }

    /// A message each time the server says its tools changed (`notifications/tools/list_changed`),
    /// ending with the connection; `None` once taken.
    pub fn tool_changes(&self) -> Option<mpsc::UnboundedReceiver<()>> {
        self.changes.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// The server has gone away (a stdio server that exited, a closed stream).
    pub fn is_closed(&self) -> bool {
        self.service.peer().is_transport_closed()
    }

    /// What the server last wrote to stderr.
    pub fn last_words(&self) -> String {
        last_words(&self.stderr)
    }

    /// Closes the connection while calls still hold it (the server was removed): those calls
    /// end as closed, and the server is stopped as by [`Connection::close`], in the background.
    pub fn shut(&self) {
        self.service.cancellation_token().cancel();
    }

    /// Closes the connection: a stdio server gets end of input, then SIGTERM, then SIGKILL, to
    /// its whole process group.
    pub async fn close(self) {
        let mut service = self.service;
        let _ = service.close_with_timeout(Duration::from_secs(8)).await;
    }
}

/// A call's content as the model reads it: text as it is, other content named by kind and size.
fn outcome(r: &CallToolResult) -> Outcome {
    let mut parts: Vec<String> = vec![];
    for block in &r.content {
        parts.push(match block {
            ContentBlock::Text(t) => t.text.clone(),
            ContentBlock::Image(i) => format!("[image {} ({} base64 characters)]", i.mime_type, i.data.len()),
            ContentBlock::Audio(a) => format!("[audio {} ({} base64 characters)]", a.mime_type, a.data.len()),
            ContentBlock::Resource(res) => match &res.resource {
                ResourceContents::TextResourceContents { uri, text, .. } => format!("[resource {uri}]\n{text}"),
                ResourceContents::BlobResourceContents { uri, mime_type, blob, .. } => format!(
                    "[binary resource {uri} {} ({} base64 characters)]",
                    mime_type.as_deref().unwrap_or("application/octet-stream"),
                    blob.len()
                ),
                _ => "[resource]".to_string(),
            },
            ContentBlock::ResourceLink(l) => format!("[resource link {} <{}>]", l.name, l.uri),
            _ => "[content of a kind Maru does not read]".to_string(),
        });
    }
    if parts.is_empty() {
        if let Some(v) = &r.structured_content {
            parts.push(v.to_string());
        }
    }
    Outcome { text: parts.join("\n"), is_error: r.is_error.unwrap_or(false) }
}
