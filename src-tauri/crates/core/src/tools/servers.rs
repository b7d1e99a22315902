//! The user's MCP tool servers while Maru runs: each is started (or reached) when a turn or the
//! settings first need it, not at launch; one that fails is tried again after a back-off that
//! doubles up to a minute; all stop with Maru. A server that fails or answers garbage shows its
//! error in the list and leaves the turn without its tools, never failing it.
//!
//! Its tools are offered as `server__tool` (Maru's own names have no `__`), and each call waits
//! for the user's approval unless the tool is always allowed (`Approvals`).
//!
//! Turning a server off or removing it ends at once what waits on it: its start, the calls
//! waiting for approval and the calls running (each server has a stop, `ToolServers::stopped`).
//! A removed server is never started again, not even by a call approved after the removal.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use maru_mcp::{ConnectError, ConnectFailure, Connection, Launch, ToolInfo};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::error::{Reason, ReasonCode};
use crate::llm::ToolSpec;
use crate::store::tool_servers::{ToolServer, Transport};
pub use maru_types::tool_servers::ToolHints;

/// How long a server may take to start and list its tools (`npx` may first download it).
const START_DEADLINE: Duration = Duration::from_secs(60);
/// How long a server may take to list its tools again after saying they changed.
const LIST_DEADLINE: Duration = Duration::from_secs(30);
/// How long a turn waits for its servers before it goes on without the ones not ready.
pub const TURN_WAIT: Duration = Duration::from_secs(15);
const BACKOFF_MAX: Duration = Duration::from_secs(60);
/// The model reads at most this much of a tool's description.
const DESCRIPTION_MAX_CHARS: usize = 1_000;
/// Names a request may carry (the OpenAI limit).
const NAME_MAX: usize = 64;

/// Where a server is, for the settings' list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServerStatus {
    /// Not started yet (it starts when first needed), or turned off.
    Stopped,
    Starting,
    Running,
    Failed,
}

/// A tool a server offers, as the settings list it.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ServerTool {
    pub name: String,
    pub description: String,
    /// What its server says it does.
    pub hints: ToolHints,
}

enum State {
    Stopped,
    Starting,
    Running(Arc<Connection>),
    Failed { error: ConnectError, at: Instant, attempts: u32 },
}

/// Why [`ToolServers::connection`] has no connection to give.
#[derive(Debug, Clone, PartialEq)]
pub enum Unavailable {
    /// Removed while Maru runs.
    Removed,
    /// Turned off (or Maru closing) while it started or was waited for.
    Stopped,
    /// It did not start or answer (or did not long ago, and its back-off is not over).
    Failed(ConnectError),
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unavailable::Removed => write!(f, "the tool server was removed"),
            Unavailable::Stopped => write!(f, "the tool server was turned off"),
            Unavailable::Failed(e) => write!(f, "{e}"),
        }
    }
}

/// Why a server failed, for the list to say in the user's language: the failure's kind and what
/// it names, and the server's last words on stderr (`said`) when it wrote any.
pub fn failure_reason(e: &ConnectError) -> Reason {
    let reason = match &e.failure {
        ConnectFailure::CannotRun { command, detail } => {
            Reason::new(ReasonCode::ToolServerCannotRun).with("command", command).with("detail", detail)
        }
        ConnectFailure::NoHandshake { detail } => Reason::new(ReasonCode::ToolServerNoHandshake).with("detail", detail),
        ConnectFailure::NoAnswer { url, detail } => Reason::new(ReasonCode::ToolServerNoAnswer).with("url", url).with("detail", detail),
        ConnectFailure::BadHeader { name } => Reason::new(ReasonCode::ToolServerBadHeader).with("name", name),
        ConnectFailure::NoToolList { detail } => Reason::new(ReasonCode::ToolServerNoToolList).with("detail", detail),
        ConnectFailure::TimedOut { seconds } => Reason::new(ReasonCode::ToolServerTimedOut).with("seconds", seconds),
    };
    if e.said.is_empty() {
        reason
    } else {
        reason.with("said", &e.said)
    }
}

struct Slot {
    launch: Launch,
    state: State,
}

/// A tool offered in a turn: its spec as the model sees it, and where it goes.
#[derive(Clone)]
pub struct Offered {
    pub spec: ToolSpec,
    pub server_id: i64,
    pub server: String,
    /// The tool's own name at its server.
    pub tool: String,
    /// What its server says it does: shown when the call asks, and what a project's policy of
    /// letting read-only tools run reads.
    pub hints: ToolHints,
}

/// A server's state as the list shows it.
#[derive(Clone)]
pub struct Shown {
    pub status: ServerStatus,
    pub error: Option<ConnectError>,
    pub tools: Vec<ToolInfo>,
}

impl Shown {
    fn stopped() -> Shown {
        Shown { status: ServerStatus::Stopped, error: None, tools: vec![] }
    }

    /// Why it failed, in English as the server and the system said it.
    pub fn error_text(&self) -> Option<String> {
        self.error.as_ref().map(ToString::to_string)
    }

    /// Why it failed, for the UI to say in its language.
    pub fn why(&self) -> Option<Reason> {
        self.error.as_ref().map(failure_reason)
    }

    pub fn listed(&self) -> Vec<ServerTool> {
        self.tools.iter().map(|t| ServerTool { name: t.name.clone(), description: t.description.clone(), hints: t.hints }).collect()
    }
}

#[derive(Default)]
pub struct ToolServers {
    slots: Mutex<HashMap<i64, Arc<tokio::sync::Mutex<Slot>>>>,
    /// What the list shows without waiting on a slot that is starting.
    shown: Mutex<HashMap<i64, Shown>>,
    /// Each server's stop, cancelled when it is turned off or removed (or Maru closes): what
    /// waits on it (its start, calls waiting for approval or running) ends then, not at its limit.
    stops: Mutex<HashMap<i64, CancellationToken>>,
    /// Servers removed while Maru runs (their ids are never used again): nothing starts them.
    removed: Mutex<HashSet<i64>>,
}

pub fn launch(s: &ToolServer) -> Launch {
    match s.transport {
        Transport::Stdio => Launch::Stdio {
            command: s.command.clone(),
            args: s.args.clone(),
            env: s.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        },
        Transport::Http => Launch::Http { url: s.url.clone(), headers: s.headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect() },
    }
}

impl ToolServers {
    /// The server's connection, started when it is not running (and its back-off allows).
    pub async fn connection(self: &Arc<Self>, server: &ToolServer) -> Result<Arc<Connection>, Unavailable> {
        let stop = self.stopped(server.id);
        let stopped = || if self.is_removed(server.id) { Unavailable::Removed } else { Unavailable::Stopped };
        if stop.is_cancelled() {
            return Err(stopped());
        }
        let slot = self.slot(server);
        // Another start of it may hold the slot; a stop ends that wait too.
        let mut slot = tokio::select! {
            slot = slot.lock() => slot,
            () = stop.cancelled() => return Err(stopped()),
        };
        if stop.is_cancelled() {
            return Err(stopped());
        }
        let wanted = launch(server);
        if slot.launch != wanted {
            // Edited: the old one goes, the new one starts fresh.
            if let State::Running(old) = std::mem::replace(&mut slot.state, State::Stopped) {
                close(old);
            }
            slot.launch = wanted;
        }
        match &slot.state {
            State::Running(c) if !c.is_closed() => return Ok(c.clone()),
            State::Running(c) => {
                tracing::warn!(server = %server.name, "the tool server has gone away; starting it again: {}", c.last_words());
            }
            State::Failed { error, at, attempts } if at.elapsed() < backoff(*attempts) => {
                return Err(Unavailable::Failed(error.clone()));
            }
            _ => {}
        }
        let attempts = match &slot.state {
            State::Failed { attempts, .. } => attempts + 1,
            _ => 0,
        };
        slot.state = State::Starting;
        self.show(server.id, ServerStatus::Starting, None, vec![]);
        // Stopped while it starts, the start is dropped, which kills what it had started.
        let started = tokio::select! {
            started = maru_mcp::connect(&server.name, &slot.launch, START_DEADLINE) => started,
            () = stop.cancelled() => {
                slot.state = State::Stopped;
                return Err(stopped());
            }
        };
        match started {
            Ok(c) => {
                tracing::info!(server = %server.name, tools = c.tools.len(), "tool server started");
                let c = Arc::new(c);
                self.show(server.id, ServerStatus::Running, None, c.tools.clone());
                slot.state = State::Running(c.clone());
                self.follow_tool_changes(server, &c);
                Ok(c)
            }
            Err(error) => {
                tracing::warn!(server = %server.name, "tool server failed: {error}");
                self.show(server.id, ServerStatus::Failed, Some(error.clone()), vec![]);
                slot.state = State::Failed { error: error.clone(), at: Instant::now(), attempts };
                Err(Unavailable::Failed(error))
            }
        }
    }

    /// The tools of `servers` (those on in the turn's project, read with its first round),
    /// waiting at most `TURN_WAIT` for them: a server not ready by then goes on starting, and
    /// its tools come with a later turn.
    pub async fn offered(self: &Arc<Self>, servers: Vec<ToolServer>) -> Vec<Offered> {
        let mut waiting = vec![];
        for server in servers {
            let me = self.clone();
            let s = server.clone();
            waiting.push((server, tokio::spawn(async move { me.connection(&s).await })));
        }
        let mut offered = vec![];
        let until = Instant::now() + TURN_WAIT;
        for (server, started) in waiting {
            let left = until.saturating_duration_since(Instant::now());
            if let Ok(Ok(Ok(_))) = tokio::time::timeout(left, started).await {
                // Its tools as last listed: they change when the server says so.
                offered.extend(offers(&server, &self.shown(&server).tools));
            }
        }
        offered
    }

    /// The tools the running servers on in `project_id` offer, without starting any (for the
    /// inspector).
    pub fn ready(&self, servers: &[ToolServer], project_id: i64) -> Vec<Offered> {
        servers.iter().filter(|s| s.on_in(project_id)).flat_map(|s| offers(s, &self.shown(s).tools)).collect()
    }

    /// What the list shows for a server: status, error, tools.
    pub fn shown(&self, server: &ToolServer) -> Shown {
        if !server.enabled {
            return Shown::stopped();
        }
        self.shown.lock().unwrap_or_else(|p| p.into_inner()).get(&server.id).cloned().unwrap_or_else(Shown::stopped)
    }

    /// The server's stop: cancelled when it is turned off or removed. Already cancelled for a
    /// removed one.
    pub fn stopped(&self, id: i64) -> CancellationToken {
        if self.is_removed(id) {
            let gone = CancellationToken::new();
            gone.cancel();
            return gone;
        }
        self.stops.lock().unwrap_or_else(|p| p.into_inner()).entry(id).or_default().clone()
    }

    /// The server was removed while Maru runs.
    pub fn is_removed(&self, id: i64) -> bool {
        self.removed.lock().unwrap_or_else(|p| p.into_inner()).contains(&id)
    }

    /// A server was removed: what waits on it ends now, and it is never started again; its
    /// processes end in the background, so the removal does not wait for them.
    pub fn remove(self: &Arc<Self>, id: i64) {
        self.removed.lock().unwrap_or_else(|p| p.into_inner()).insert(id);
        self.cancel(id);
        let me = self.clone();
        tokio::spawn(async move { me.stop(id).await });
    }

    fn cancel(&self, id: i64) {
        if let Some(stop) = self.stops.lock().unwrap_or_else(|p| p.into_inner()).remove(&id) {
            stop.cancel();
        }
    }

    /// Stops a server (turned off, removed): what waits on it ends, its connection closes, its
    /// processes end.
    pub async fn stop(&self, id: i64) {
        self.cancel(id);
        let slot = self.slots.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
        self.shown.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
        if let Some(slot) = slot {
            // A start in progress has given the slot up on the cancel above.
            if let State::Running(c) = std::mem::replace(&mut slot.lock().await.state, State::Stopped) {
                match Arc::try_unwrap(c) {
                    Ok(c) => c.close().await,
                    // Calls still hold it: they end as closed, the server stops all the same.
                    Err(shared) => shared.shut(),
                }
            }
        }
    }

    /// Stops every server (Maru is closing).
    pub async fn stop_all(&self) {
        let ids: Vec<i64> = self.slots.lock().unwrap_or_else(|p| p.into_inner()).keys().copied().collect();
        futures_util::future::join_all(ids.into_iter().map(|id| self.stop(id))).await;
    }

    fn slot(&self, server: &ToolServer) -> Arc<tokio::sync::Mutex<Slot>> {
        self.slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(server.id)
            .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(Slot { launch: launch(server), state: State::Stopped })))
            .clone()
    }

    /// Lists the server's tools again each time it says they changed
    /// (`notifications/tools/list_changed`), for the list and the next turn, for as long as `c`
    /// is the server's connection (not stopped, edited or started again since).
    fn follow_tool_changes(self: &Arc<Self>, server: &ToolServer, c: &Arc<Connection>) {
        let Some(mut changes) = c.tool_changes() else { return };
        let (me, connection, id, name) = (Arc::downgrade(self), Arc::downgrade(c), server.id, server.name.clone());
        tokio::spawn(async move {
            while changes.recv().await.is_some() {
                let (Some(me), Some(c)) = (me.upgrade(), connection.upgrade()) else { return };
                let tools = match c.list_tools(LIST_DEADLINE).await {
                    Ok(tools) => tools,
                    Err(e) => {
                        tracing::warn!(server = %name, "the tool server said its tools changed, then did not list them: {e}");
                        continue;
                    }
                };
                let Some(slot) = me.slots.lock().unwrap_or_else(|p| p.into_inner()).get(&id).cloned() else { return };
                let slot = slot.lock().await;
                if matches!(&slot.state, State::Running(now) if Arc::ptr_eq(now, &c)) {
                    tracing::info!(server = %name, tools = tools.len(), "the tool server's tools changed");
                    me.show(id, ServerStatus::Running, None, tools);
                }
            }
        });
    }

    fn show(&self, id: i64, status: ServerStatus, error: Option<ConnectError>, tools: Vec<ToolInfo>) {
        self.shown.lock().unwrap_or_else(|p| p.into_inner()).insert(id, Shown { status, error, tools });
    }
}

/// Closes a connection no turn holds any more, in the background.
fn close(c: Arc<Connection>) {
    if let Ok(c) = Arc::try_unwrap(c) {
        tokio::spawn(c.close());
    }
}

fn backoff(attempts: u32) -> Duration {
    Duration::from_secs(1u64 << attempts.min(6)).min(BACKOFF_MAX)
}

/// A server's tools as a request offers them, each under a name of its own.
fn offers(server: &ToolServer, tools: &[ToolInfo]) -> Vec<Offered> {
    let names = offered_names(&server.name, tools);
    let mut offered = vec![];
    for (tool, name) in tools.iter().zip(names) {
        let Some(name) = name else {
            tracing::warn!(server = %server.name, tool = %tool.name, "a tool whose name cannot be offered is left out");
            continue;
        };
        let description: String = tool.description.chars().take(DESCRIPTION_MAX_CHARS).collect();
        let mut parameters = tool.input_schema.clone();
        if !parameters.is_object() {
            parameters = serde_json::json!({ "type": "object" });
        }
        offered.push(Offered {
            spec: ToolSpec { name, description: format!("[{}] {description}", server.name), parameters },
            server_id: server.id,
            server: server.name.clone(),
            tool: tool.name.clone(),
            hints: tool.hints,
        });
    }
    offered
}

/// `server__tool`, with what a request cannot carry in a name made `_`; `None` when too long.
pub fn offered_name(server: &str, tool: &str) -> Option<String> {
    let clean: String = tool.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    let name = format!("{server}__{clean}");
    (name.len() <= NAME_MAX && !clean.is_empty()).then_some(name)
}

/// The names `tools` are offered under, in their order: [`offered_name`], except where two
/// would be one (`x y` and `x_y` both make `x_y`). Then a tool whose name needed no change keeps
/// it, and each other one takes a suffix from its own name (`x_y_3f2a9c`): the same names
/// whatever order the server lists them in, so each call reaches the tool it names.
fn offered_names(server: &str, tools: &[ToolInfo]) -> Vec<Option<String>> {
    let plain: Vec<Option<String>> = tools.iter().map(|t| offered_name(server, &t.name)).collect();
    let unchanged = |i: usize| plain[i].as_deref().is_some_and(|n| n == format!("{server}__{}", tools[i].name));
    let mut taken: HashSet<String> = (0..tools.len()).filter(|&i| unchanged(i)).filter_map(|i| plain[i].clone()).collect();
    (0..tools.len())
        .map(|i| {
            let name = plain[i].as_ref()?;
            let clashes = plain.iter().enumerate().any(|(j, other)| j != i && other.as_ref() == Some(name));
            if unchanged(i) || !clashes {
                return Some(name.clone());
            }
            let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(tools[i].name.as_bytes()));
            // Six hex digits tell apart any names a server really has; more only if they do not.
            // Names are ASCII (the server's name too), so cutting one to fit is cutting bytes.
            let suffixed = (6..=digest.len())
                .map(|n| {
                    let suffix = format!("_{}", &digest[..n]);
                    format!("{}{suffix}", &name[..name.len().min(NAME_MAX.saturating_sub(suffix.len()))])
                })
                .find(|s| s.len() <= NAME_MAX && !taken.contains(s) && !plain.iter().any(|p| p.as_ref() == Some(s)))?;
            taken.insert(suffixed.clone());
            Some(suffixed)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_tools_are_named_so_they_cannot_clash_with_maru_s_own() {
        assert_eq!(offered_name("everything", "get-sum").as_deref(), Some("everything__get-sum"));
        assert_eq!(
            offered_name("fs", "read.file v2").as_deref(),
            Some("fs__read_file_v2"),
            "a request's names take letters, digits, - and _"
        );
        assert_eq!(offered_name("fs", &"x".repeat(80)), None, "a name past 64 characters would be refused by the model server");
    }

    fn tool(name: &str) -> ToolInfo {
        ToolInfo {
            name: name.into(),
            description: String::new(),
            input_schema: serde_json::json!({ "type": "object" }),
            hints: Default::default(),
        }
    }

    #[test]
    fn tools_whose_names_become_one_are_offered_under_names_of_their_own_in_any_order() {
        let tools = [tool("x y"), tool("x_y"), tool("x.y"), tool("other")];
        let names = offered_names("srv", &tools);
        let names: Vec<&str> = names.iter().map(|n| n.as_deref().expect("every tool here can be offered")).collect();
        assert_eq!(names[1], "srv__x_y", "the tool whose name needed no change keeps it");
        assert_eq!(names[3], "srv__other", "a tool that clashes with none is named as before");
        let distinct: HashSet<&str> = names.iter().copied().collect();
        assert_eq!(distinct.len(), 4, "no two tools may share a name, or a call reaches the wrong one: {names:?}");
        assert!(names[0].starts_with("srv__x_y_") && names[2].starts_with("srv__x_y_"), "the changed ones say what they are: {names:?}");
        let reversed: Vec<ToolInfo> = tools.iter().rev().cloned().collect();
        let again = offered_names("srv", &reversed);
        let again: Vec<&str> = again.iter().rev().map(|n| n.as_deref().unwrap()).collect();
        assert_eq!(again, names, "each tool keeps its name whatever order the server lists them in");
    }

    #[test]
    fn a_long_name_that_clashes_is_cut_to_fit_its_suffix() {
        let long = "t".repeat(NAME_MAX - "srv__".len());
        let tools = [tool(&long), tool(&format!("{}.", &long[1..]))];
        let names = offered_names("srv", &tools);
        let second = names[1].as_deref().expect("a clashing tool at the length limit is still offered");
        assert!(second.len() <= NAME_MAX && second != names[0].as_deref().unwrap(), "{names:?}");
    }

    #[tokio::test]
    async fn a_removed_server_is_never_started_again_whoever_asks() {
        let dir = tempfile::tempdir().unwrap();
        let started = dir.path().join("started");
        let server = ToolServer {
            id: 7,
            name: "gone".into(),
            transport: Transport::Stdio,
            command: "sh".into(),
            args: vec!["-c".into(), format!("touch '{}'", started.display())],
            env: Default::default(),
            url: String::new(),
            headers: Default::default(),
            enabled: true,
            always_allowed: vec![],
            off_in: vec![],
            created_at: 0,
            updated_at: 0,
        };
        let servers = Arc::new(ToolServers::default());
        let stop = servers.stopped(server.id);
        servers.remove(server.id);
        assert!(stop.is_cancelled(), "what waited on it (a call, its approval) was told at once");
        // A call approved just before the removal still holds the row it read.
        let refused = servers.connection(&server).await.err();
        assert_eq!(refused, Some(Unavailable::Removed), "a call approved too late is told the server was removed");
        assert!(servers.offered(vec![server.clone()]).await.is_empty(), "a turn that read it before the removal offers none of it");
        assert!(!started.exists(), "no process was started for a server that no longer exists");
    }

    #[test]
    fn a_failing_server_is_tried_again_ever_less_often_up_to_a_minute() {
        assert_eq!(backoff(0), Duration::from_secs(1));
        assert_eq!(backoff(3), Duration::from_secs(8));
        assert_eq!(backoff(30), BACKOFF_MAX);
    }
}
