//! The user's MCP tool servers while Maru runs: each is started (or reached) when a turn or the
//! settings first need it, not at launch; one that fails is tried again after a back-off that
//! doubles up to a minute; all stop with Maru. A server that fails or answers garbage shows its
//! error in the list and leaves the turn without its tools, never failing it.
//!
//! Its tools are offered as `server__tool` (Maru's own names have no `__`), and each call waits
//! for the user's approval unless the tool is always allowed (`Approvals`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use maru_mcp::{Connection, Launch, ToolInfo};
use serde::{Deserialize, Serialize};

use crate::llm::ToolSpec;
use crate::store::tool_servers::{ToolServer, Transport};

/// How long a server may take to start and list its tools (`npx` may first download it).
const START_DEADLINE: Duration = Duration::from_secs(60);
/// How long a turn waits for its servers before it goes on without the ones not ready.
pub const TURN_WAIT: Duration = Duration::from_secs(15);
const BACKOFF_MAX: Duration = Duration::from_secs(60);
/// The model reads at most this much of a tool's description.
const DESCRIPTION_MAX_CHARS: usize = 1_000;
/// Names a request may carry (the OpenAI limit).
const NAME_MAX: usize = 64;

/// Where a server is, for the settings' list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[cfg_attr(test, derive(ts_rs::TS))]
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
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ServerTool {
    pub name: String,
    pub description: String,
}

enum State {
    Stopped,
    Starting,
    Running(Arc<Connection>),
    Failed { error: String, at: Instant, attempts: u32 },
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
}

/// A server's state as the list shows it.
#[derive(Clone)]
pub struct Shown {
    pub status: ServerStatus,
    pub error: Option<String>,
    pub tools: Vec<ToolInfo>,
}

impl Shown {
    fn stopped() -> Shown {
        Shown { status: ServerStatus::Stopped, error: None, tools: vec![] }
    }

    pub fn listed(&self) -> Vec<ServerTool> {
        self.tools.iter().map(|t| ServerTool { name: t.name.clone(), description: t.description.clone() }).collect()
    }
}

#[derive(Default)]
pub struct ToolServers {
    slots: Mutex<HashMap<i64, Arc<tokio::sync::Mutex<Slot>>>>,
    /// What the list shows without waiting on a slot that is starting.
    shown: Mutex<HashMap<i64, Shown>>,
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
    pub async fn connection(self: &Arc<Self>, server: &ToolServer) -> Result<Arc<Connection>, String> {
        let slot = self.slot(server);
        let mut slot = slot.lock().await;
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
            State::Failed { error, at, attempts } if at.elapsed() < backoff(*attempts) => return Err(error.clone()),
            _ => {}
        }
        let attempts = match &slot.state {
            State::Failed { attempts, .. } => attempts + 1,
            _ => 0,
        };
        slot.state = State::Starting;
        self.show(server.id, ServerStatus::Starting, None, vec![]);
        match maru_mcp::connect(&server.name, &slot.launch, START_DEADLINE).await {
            Ok(c) => {
                tracing::info!(server = %server.name, tools = c.tools.len(), "tool server started");
                let c = Arc::new(c);
                self.show(server.id, ServerStatus::Running, None, c.tools.clone());
                slot.state = State::Running(c.clone());
                Ok(c)
            }
            Err(error) => {
                tracing::warn!(server = %server.name, "tool server failed: {error}");
                self.show(server.id, ServerStatus::Failed, Some(error.clone()), vec![]);
                slot.state = State::Failed { error: error.clone(), at: Instant::now(), attempts };
                Err(error)
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
            if let Ok(Ok(Ok(c))) = tokio::time::timeout(left, started).await {
                offered.extend(offers(&server, &c.tools));
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

    /// Stops a server (turned off, removed): its connection closes, its processes end.
    pub async fn stop(&self, id: i64) {
        let slot = self.slots.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
        self.shown.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
        if let Some(slot) = slot {
            if let State::Running(c) = std::mem::replace(&mut slot.lock().await.state, State::Stopped) {
                if let Ok(c) = Arc::try_unwrap(c) {
                    c.close().await;
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

    fn show(&self, id: i64, status: ServerStatus, error: Option<String>, tools: Vec<ToolInfo>) {
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

/// A server's tools as a request offers them.
fn offers(server: &ToolServer, tools: &[ToolInfo]) -> Vec<Offered> {
    let mut offered = vec![];
    for tool in tools {
        let Some(name) = offered_name(&server.name, &tool.name) else {
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

    #[test]
    fn a_failing_server_is_tried_again_ever_less_often_up_to_a_minute() {
        assert_eq!(backoff(0), Duration::from_secs(1));
        assert_eq!(backoff(3), Duration::from_secs(8));
        assert_eq!(backoff(30), BACKOFF_MAX);
    }
}
