//! The user's MCP tool servers as the API shows them (never a secret's value: only the names of
//! their variables and headers), and the answers to calls waiting for approval.

use serde::{Deserialize, Serialize};
use tracing::{instrument, Level};

use crate::app::App;
use crate::error::{Code, Error, Result};
use crate::store::tool_servers::{self, NewToolServer, ToolServer, ToolServerPatch, Transport};
use crate::tools::approvals::Decision;
use crate::tools::servers::{ServerStatus, ServerTool};

/// A tool server, its secrets left out.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ToolServerView {
    pub id: i64,
    pub name: String,
    pub transport: Transport,
    pub command: String,
    pub args: Vec<String>,
    /// The names of the variables set for it; their values are never shown.
    pub env_keys: Vec<String>,
    pub url: String,
    /// The names of the headers sent to it; their values are never shown.
    pub header_keys: Vec<String>,
    pub enabled: bool,
    /// Tools that run without asking.
    pub always_allowed: Vec<String>,
    /// Projects it is off in.
    pub off_in: Vec<i64>,
    pub status: ServerStatus,
    /// Why it failed to start or answer, as it said.
    pub error: Option<String>,
    /// Its tools, once it has started.
    pub tools: Vec<ServerTool>,
    pub created_at: i64,
    pub updated_at: i64,
}

fn view(app: &App, s: ToolServer) -> ToolServerView {
    let shown = app.tool_servers.shown(&s);
    ToolServerView {
        id: s.id,
        env_keys: s.env.keys().cloned().collect(),
        header_keys: s.headers.keys().cloned().collect(),
        tools: shown.listed(),
        status: shown.status,
        error: shown.error,
        name: s.name,
        transport: s.transport,
        command: s.command,
        args: s.args,
        url: s.url,
        enabled: s.enabled,
        always_allowed: s.always_allowed,
        off_in: s.off_in,
        created_at: s.created_at,
        updated_at: s.updated_at,
    }
}

pub async fn list_tool_servers(app: &App) -> Result<Vec<ToolServerView>> {
    let servers = app.store.read(tool_servers::list).await?;
    Ok(servers.into_iter().map(|s| view(app, s)).collect())
}

#[instrument(skip(app, new), fields(name = %new.name), err(level = Level::WARN))]
pub async fn create_tool_server(app: &App, new: NewToolServer) -> Result<ToolServerView> {
    let s = app.store.write(move |tx| tool_servers::create(tx, &new)).await?;
    Ok(view(app, s))
}

/// Edits a server; turned off, it stops; edited while running, it starts again as edited when
/// next needed.
#[instrument(skip(app, patch), err(level = Level::WARN))]
pub async fn update_tool_server(app: &App, id: i64, patch: ToolServerPatch) -> Result<ToolServerView> {
    let s = app.store.write(move |tx| tool_servers::update(tx, id, &patch)).await?;
    if !s.enabled {
        app.tool_servers.stop(id).await;
    }
    Ok(view(app, s))
}

#[instrument(skip(app), err(level = Level::WARN))]
pub async fn delete_tool_server(app: &App, id: i64) -> Result<()> {
    app.store.write(move |tx| tool_servers::delete(tx, id)).await?;
    // Its calls end now and it never starts again; its processes end in the background.
    app.tool_servers.remove(id);
    Ok(())
}

/// A server's tools, starting it when it is not running: `tool_server_failed` says why it
/// cannot be.
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn tool_server_tools(app: &App, id: i64) -> Result<Vec<ServerTool>> {
    let s = app.store.read(move |c| tool_servers::get(c, id)).await?;
    if !s.enabled {
        return Err(Error::conflict(Code::ToolServerOff, format!("the tool server {} is turned off", s.name)).with("name", &s.name));
    }
    match app.tool_servers.connection(&s).await {
        Ok(_) => Ok(app.tool_servers.shown(&s).listed()),
        // Removed while it started: as if it had been asked for after.
        Err(_) if app.tool_servers.is_removed(id) => Err(Error::NotFound { what: "tool server", id }),
        Err(why) => Err(Error::conflict(Code::ToolServerFailed, format!("the tool server {} does not start: {why}", s.name))
            .with("name", &s.name)
            .with("detail", why)),
    }
}

/// The answer to a call waiting for approval.
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Approve {
    /// Let this tool run without asking from now on.
    #[serde(default)]
    pub always: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Answered {
    pub approval: String,
    pub decision: Decision,
    /// The chat whose turn was waiting.
    pub session_id: i64,
}

#[instrument(skip(app), err(level = Level::WARN))]
pub async fn answer_tool_call(app: &App, approval: String, decision: Decision) -> Result<Answered> {
    let session_id = app.approvals.answer(&approval, decision)?;
    Ok(Answered { approval, decision, session_id })
}
