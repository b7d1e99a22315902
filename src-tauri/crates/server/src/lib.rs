//! `maru serve`: the API over HTTP (JSON, and Server-Sent Events for chat turns) plus the web UI,
//! on loopback by default. Every handler is a thin wrapper over a function in [`crate::api`].

// The core, by the names the modules use.
use maru_core::{api, app, chat, error, imports, llm, store, tools};

mod assets;
mod auth;
mod extract;
mod limits;
pub mod local;
pub mod mcp;
mod openapi;
mod routes;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::handler::HandlerWithoutStateExt;
use axum::response::IntoResponse;
use axum::serve::ListenerExt;
use axum::Router;
use tower_http::services::{ServeDir, ServeFile};

use crate::app::App;
use crate::error::{Code, Error, Result};

pub use auth::Guard;

#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub host: String,
    pub port: u16,
    /// Generated when absent.
    pub token: Option<String>,
    pub allow_remote: bool,
    /// A built web UI to serve instead of the one inside the binary (UI development).
    pub ui_dir: Option<PathBuf>,
}

/// A server that is listening; `run` serves until the process ends.
pub struct Bound {
    pub listener: tokio::net::TcpListener,
    pub router: Router,
    pub addr: SocketAddr,
    pub token: String,
}

/// Binds the port and builds the router; the caller prints the address and then runs it.
pub async fn bind(app: Arc<App>, opts: &ServeOptions) -> Result<Bound> {
    let ip: std::net::IpAddr = opts
        .host
        .parse()
        .map_err(|_| Error::invalid(Code::InvalidHost, format!("--host must be an IP address, like 127.0.0.1 (got {:?})", opts.host)))?;
    if !ip.is_loopback() && !opts.allow_remote {
        return Err(Error::invalid(
            Code::RemoteRefused,
            format!("refusing to listen on {ip}: other machines could reach your chats. Use --allow-remote if you mean it"),
        ));
    }
    let listener = tokio::net::TcpListener::bind((ip, opts.port))
        .await
        .map_err(|e| Error::startup(Code::BindFailed, format!("cannot listen on {ip}:{}: {e}", opts.port)))?;
    let addr = listener.local_addr().map_err(anyhow::Error::from)?;
    let token = opts.token.clone().filter(|t| !t.is_empty()).unwrap_or_else(generate_token);
    let guard = Guard::new(&token, addr.port(), opts.allow_remote);
    let ui = match &opts.ui_dir {
        Some(dir) => Ui::Dir(dir.clone()),
        None => Ui::Embedded,
    };
    let router = router(app, guard, ui);
    Ok(Bound { listener, router, addr, token })
}

impl Bound {
    pub async fn run(self) -> Result<()> {
        self.run_until(std::future::pending()).await
    }

    /// Serves until `shutdown` completes, then lets the requests in progress finish.
    pub async fn run_until(self, shutdown: impl std::future::Future<Output = ()> + Send + 'static) -> Result<()> {
        // No Nagle delay: a reply's first token is a small write right after the stream's
        // headers, and would otherwise wait up to 40 ms for the client's delayed ACK of them.
        let listener = self.listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!("cannot set TCP_NODELAY: {e}");
            }
        });
        axum::serve(listener, self.router).with_graceful_shutdown(shutdown).await.map_err(|e| Error::Internal(e.into()))
    }
}

/// The largest request body: a message at its character limit fits with room to spare.
pub const BODY_MAX_BYTES: usize = 16 * 1024 * 1024;

/// Where the web UI comes from.
pub enum Ui {
    /// None: the API only (the desktop window's in-process calls).
    None,
    /// The UI built into the binary, when it has one.
    Embedded,
    Dir(PathBuf),
}

pub fn router(app: Arc<App>, guard: Guard, ui: Ui) -> Router {
    let mcp = mcp::http(app.shared());
    let mut router = routes::api().with_state(app).layer(DefaultBodyLimit::max(BODY_MAX_BYTES)).route_service("/mcp", mcp);
    match ui {
        // Unknown paths fall back to index.html so the UI's own routes survive a reload.
        Ui::Dir(dir) if dir.join("index.html").is_file() => {
            let index = dir.join("index.html");
            router = router.fallback_service(ServeDir::new(dir).fallback(ServeFile::new(index)));
        }
        // A service, as for the folder: it replaces the API's JSON fallback (`fallback` would not).
        Ui::Embedded if assets::embedded() => router = router.fallback_service(assets::serve.into_service()),
        _ => {}
    }
    // Outermost first: size limits, then who may ask at all (`routes` puts each request on its
    // own task).
    router
        .layer(axum::middleware::from_fn(extract::json_errors))
        .layer(axum::middleware::from_fn_with_state(guard, auth::check))
        .layer(axum::middleware::from_fn(limits::check))
}

/// Runs the handler on its own task: a client that hangs up once its request was read cannot
/// cut an operation halfway (a file stored but never indexed, a chat deleted but its files not
/// released). Only what is streamed back afterwards stops with the connection.
pub(crate) async fn detach(req: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    match tokio::spawn(next.run(req)).await {
        Ok(res) => res,
        Err(e) => Error::Internal(anyhow::anyhow!("the request's task failed: {e}")).into_response(),
    }
}

fn generate_token() -> String {
    let bytes: [u8; 24] = rand::random();
    hex::encode(bytes)
}
