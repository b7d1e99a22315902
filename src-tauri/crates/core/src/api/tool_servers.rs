//! The user's MCP tool servers as the API shows them (never a secret's value: only the names of
//! their variables and headers), and the answers to calls waiting for approval.

use serde::{Deserialize, Serialize};
use tracing::{instrument, Level};

use crate::app::App;
use crate::error::{Code, Error, Reason, Result};
use crate::store::tool_servers::{self, NewToolServer, ToolServer, ToolServerPatch, Transport};
use crate::tools::approvals::Decision;
use crate::tools::command_line::{self, CommandLine};
use crate::tools::mcp_config::{self, ImportedServer};
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
    /// Why it failed to start or answer, in English as the system and the server said it.
    pub error: Option<String>,
    /// The same, for the UI to say in its language.
    pub why: Option<Reason>,
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
        error: shown.error_text(),
        why: shown.why(),
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
        Err(crate::tools::servers::Unavailable::Removed) => Err(Error::NotFound { what: "tool server", id }),
        Err(why) => Err(Error::conflict(Code::ToolServerFailed, format!("the tool server {} does not start: {why}", s.name))
            .with("name", &s.name)
            .with("detail", why.to_string())),
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

// ---- a pasted command line, and servers from an mcp.json

/// A command line as pasted into Command.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CommandLineText {
    pub line: String,
}

/// Splits a pasted command line into the program and its arguments by shell rules (the form
/// shows the split before it is saved): `invalid_command_line` when a quote is left open.
pub fn split_command_line(text: CommandLineText) -> Result<CommandLine> {
    command_line::split(&text.line)
}

/// An `mcp.json`'s text, as pasted or read from the file.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct McpConfigText {
    pub text: String,
}

/// What adding from an `mcp.json` would add.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ImportPreview {
    /// In the file's order.
    pub servers: Vec<ImportedServer>,
}

/// The servers of an `mcp.json` to add, by their names in the file.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct McpImport {
    pub text: String,
    pub chosen: Vec<String>,
}

/// Reads an `mcp.json` and says what adding from it would add, server by server (adds nothing).
#[instrument(skip(app, text), err(level = Level::WARN))]
pub async fn preview_import(app: &App, text: McpConfigText) -> Result<ImportPreview> {
    let servers = app.store.read(move |c| read_config(c, &text.text)).await?;
    Ok(ImportPreview { servers: servers.into_iter().map(|r| r.shown).collect() })
}

/// Adds the chosen servers of an `mcp.json` at once, with their variables and headers (kept as
/// typed ones are, never shown). All or nothing: a chosen server that cannot be added
/// (`mcp_server_unusable`, `mcp_server_not_in_file`) adds none.
#[instrument(skip(app, import), err(level = Level::WARN))]
pub async fn import_tool_servers(app: &App, import: McpImport) -> Result<Vec<ToolServerView>> {
    if import.chosen.is_empty() {
        return Err(Error::invalid(Code::McpConfigNothingChosen, "choose at least one server of the file to add"));
    }
    let added = app
        .store
        .write(move |tx| {
            let read = read_config(tx, &import.text)?;
            let mut added = vec![];
            for key in &import.chosen {
                let Some(server) = read.iter().find(|r| &r.shown.key == key) else {
                    return Err(
                        Error::invalid(Code::McpServerNotInFile, format!("the file has no server named \"{key}\"")).with("name", key)
                    );
                };
                if let Some(problem) = &server.shown.problem {
                    return Err(Error::invalid(Code::McpServerUnusable, format!("the server \"{key}\" cannot be added: {}", problem.code))
                        .with("name", key)
                        .with("why", problem.code));
                }
                added.push(tool_servers::create(tx, &server.new)?);
            }
            Ok(added)
        })
        .await?;
    Ok(added.into_iter().map(|s| view(app, s)).collect())
}

/// The file's servers, named against the user's, each checked as adding it would check it.
fn read_config(conn: &rusqlite::Connection, text: &str) -> Result<Vec<mcp_config::Read>> {
    let taken: Vec<String> = tool_servers::list(conn)?.into_iter().map(|s| s.name).collect();
    let mut read = mcp_config::read(text, &taken)?;
    for r in read.iter_mut().filter(|r| r.shown.problem.is_none()) {
        if let Err(e) = tool_servers::check_new(conn, &r.new) {
            r.shown.problem = Some(Reason::new(crate::error::ReasonCode::McpServerInvalid).with("detail", e.body().message));
        }
    }
    Ok(read)
}
