//! Maru as an MCP server, for other apps (Claude Desktop, Claude Code, editors): the tools of
//! [`Shared`] over the official Rust SDK (`rmcp`, which Maru's own tool-server client uses too),
//! on two transports: stdio for `maru mcp`, and Streamable HTTP at `/mcp` on `maru serve`, behind
//! the same token and Host checks as `/api` (`auth`), and an Origin check besides.
//!
//! When nothing is shared the server still answers `initialize` and `ping`, and lists no tools.
//! An empty list is what clients handle best: Claude Desktop and Claude Code show such a server as
//! connected with no tools, where an error at `initialize` shows it as failed, and some retry it
//! in a loop. `initialize`'s instructions say where to share, and a call of a tool not shared is
//! a failed call that says so.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, InitializeResult, JsonObject, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::error::{Error, Result};
use maru_core::sharing::Shared;

/// How often a connected app's tools are compared with what the user shares now: a change in
/// Settings (made in this process or in another, for `maru mcp`) reaches the app this soon.
const WATCH_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// One MCP server over the shared tools; a copy per session.
#[derive(Clone)]
pub struct McpServer {
    shared: Shared,
    /// The tools' names as the app was first told them (at `initialize`): a change from then on
    /// is told, even one made before the watch below begins.
    first_shown: Arc<std::sync::Mutex<Option<Vec<String>>>>,
}

impl McpServer {
    pub fn new(shared: Shared) -> McpServer {
        McpServer { shared, first_shown: Arc::default() }
    }

    async fn shown_now(&self) -> Option<Vec<String>> {
        self.shared.list().await.ok().map(|tools| tools.into_iter().map(|t| t.name).collect())
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build())
            .with_server_info(Implementation::new("maru", env!("CARGO_PKG_VERSION")).with_title("Maru"))
            .with_instructions(self.shared.instructions())
    }

    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<InitializeResult, ErrorData> {
        *self.first_shown.lock().unwrap_or_else(|e| e.into_inner()) = self.shown_now().await;
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    /// Tells the app when the user changes what is shared, so it lists the tools again without
    /// being restarted (`notifications/tools/list_changed`), until it disconnects.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let (me, peer) = (self.clone(), context.peer);
        tokio::spawn(async move {
            let first = me.first_shown.lock().unwrap_or_else(|e| e.into_inner()).take();
            let mut shown = match first {
                Some(shown) => shown,
                None => me.shown_now().await.unwrap_or_default(),
            };
            loop {
                tokio::time::sleep(WATCH_EVERY).await;
                if peer.is_transport_closed() {
                    return;
                }
                let Some(now) = me.shown_now().await else { continue };
                if now != shown {
                    shown = now;
                    if peer.notify_tool_list_changed().await.is_err() {
                        return;
                    }
                }
            }
        });
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        let tools = self.shared.list().await.map_err(internal)?;
        let tools = tools
            .into_iter()
            .map(|t| {
                let schema: JsonObject = match t.input_schema {
                    serde_json::Value::Object(o) => o,
                    _ => JsonObject::new(),
                };
                let hints = ToolAnnotations::new().read_only(t.read_only).destructive(!t.read_only).open_world(false);
                Tool::new(t.name, t.description, Arc::new(schema)).annotate(hints)
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        // An app that gave no name is recorded without one, and the list says so in the UI's language.
        let client = context.client_info().map(|i| i.name).unwrap_or_default();
        let reply = self.shared.call(&client, &request.name, request.arguments).await.map_err(internal)?;
        let content = vec![ContentBlock::text(reply.text)];
        Ok(match reply.failed {
            true => CallToolResult::error(content),
            false => CallToolResult::success(content),
        }
        .into())
    }
}

/// The store failed: the client is told so, the details stay in Maru's log.
fn internal(e: Error) -> ErrorData {
    tracing::warn!("a shared tool failed: {e}");
    ErrorData::internal_error(e.body().message, None)
}

/// `maru mcp`: serves the shared tools on standard input and output until the client closes them.
pub async fn serve_stdio(shared: Shared) -> Result<()> {
    let running = McpServer::new(shared)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| Error::Internal(anyhow::anyhow!("the MCP client did not complete the handshake: {e}")))?;
    running.waiting().await.map_err(|e| Error::Internal(anyhow::anyhow!("the MCP connection failed: {e}")))?;
    Ok(())
}

/// `/mcp`: Streamable HTTP, with a session per client so its name from `initialize` goes with
/// each call it makes. The Host and Origin are checked before this, by `auth`, as for every
/// request: the SDK's own Host check would refuse `--allow-remote`'s hosts, so it is left off.
pub fn http(shared: Shared) -> StreamableHttpService<McpServer, LocalSessionManager> {
    let config = StreamableHttpServerConfig::default().disable_allowed_hosts();
    StreamableHttpService::new(move || Ok(McpServer::new(shared.clone())), Arc::new(LocalSessionManager::default()), config)
}
