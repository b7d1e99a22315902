//! The demo model for a first run without a model server: llama.cpp's `llama-server` with
//! SmolLM2-135M-Instruct, the pair `make run` (and the tests) build and cache. Started when the
//! user asks, and again when a chat (or its model list) needs it after Maru restarted, on its
//! last port when that is free; stopped with Maru. It is one saved server ("Demo model"), whose
//! address follows the port it runs on.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::process::{Child, Command};
use tokio::sync::Mutex;

use super::App;
use crate::error::{Code, Error, Result, UpstreamCode};
use crate::store::connections::{self, ServerConnection};

/// The name the demo server answers to in `/v1/models`.
pub const DEMO_MODEL: &str = "SmolLM2-135M-demo";
/// Its context window: small, as the model is.
const CONTEXT: u32 = 4096;
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Whether the demo model can run here, and where it answers when it does.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct DemoModel {
    /// Both the server program and the model file are on this machine.
    pub available: bool,
    /// The OpenAI-compatible address while it runs (`http://127.0.0.1:<port>/v1`).
    pub base_url: Option<String>,
    pub model: String,
    /// It is being started (loading takes a few seconds): the UI says so.
    pub starting: bool,
    /// The saved server that asks it, once it was started once.
    pub connection_id: Option<i64>,
}

pub struct Demo {
    /// The server program and the model file.
    files: std::sync::Mutex<Option<(PathBuf, PathBuf)>>,
    running: Mutex<Option<(Child, String)>>,
    starting: AtomicBool,
}

impl Demo {
    /// `MARU_DEMO_SERVER` and `MARU_DEMO_MODEL`, else where `make run` caches them.
    pub fn find() -> Demo {
        let cache = std::env::var_os("MARU_CACHE_DIR").map(PathBuf::from).or_else(|| dirs::cache_dir().map(|d| d.join("maru")));
        let path = |var: &str, cached: &str| std::env::var_os(var).map(PathBuf::from).or_else(|| cache.as_ref().map(|c| c.join(cached)));
        let server = path("MARU_DEMO_SERVER", "llama/bin/llama-server");
        let model = path("MARU_DEMO_MODEL", "models/SmolLM2-135M-Instruct.Q4_1.gguf");
        let files = server.zip(model).filter(|(s, m)| s.is_file() && m.is_file());
        Demo { files: std::sync::Mutex::new(files), running: Mutex::default(), starting: AtomicBool::new(false) }
    }

    /// Runs this server program with this model instead (a package that ships its own, tests).
    pub fn use_files(&self, server: PathBuf, model: PathBuf) {
        *self.files.lock().expect("demo files") = Some((server, model));
    }

    fn files(&self) -> Option<(PathBuf, PathBuf)> {
        self.files.lock().expect("demo files").clone()
    }

    pub async fn status(&self) -> DemoModel {
        let starting = self.starting.load(Ordering::Acquire);
        let available = self.files().is_some();
        // While it starts its slot is held: it has no address yet.
        if starting {
            return DemoModel { available, base_url: None, model: DEMO_MODEL.into(), starting, connection_id: None };
        }
        let mut running = self.running.lock().await;
        // A server that died (killed, crashed) is no longer an address to offer.
        if let Some((child, _)) = running.as_mut() {
            if !matches!(child.try_wait(), Ok(None)) {
                *running = None;
            }
        }
        DemoModel {
            available,
            base_url: running.as_ref().map(|(_, url)| url.clone()),
            model: DEMO_MODEL.into(),
            starting,
            connection_id: None,
        }
    }

    /// It could run here and does not run now: a chat on it has to start it first.
    async fn asleep(&self) -> bool {
        self.files().is_some() && self.status().await.base_url.is_none()
    }

    /// Starts the server (once), on `port` when that is free, and waits until it answers.
    async fn start(&self, port: Option<u16>) -> Result<DemoModel> {
        let Some((server, model)) = self.files() else {
            return Err(Error::invalid(
                Code::DemoUnavailable,
                "the demo model is not on this machine: `make run` in Maru's source folder builds it, or connect your own model server in Settings",
            ));
        };
        let status = self.status().await;
        if status.base_url.is_some() {
            return Ok(status);
        }
        // Held while it starts: a second click waits for this server instead of starting another.
        let mut running = self.running.lock().await;
        if running.is_some() {
            drop(running);
            return Ok(self.status().await);
        }
        self.starting.store(true, Ordering::Release);
        let started = self.spawn(&mut running, &server, &model, port).await;
        self.starting.store(false, Ordering::Release);
        started?;
        drop(running);
        Ok(self.status().await)
    }

    async fn spawn(
        &self,
        running: &mut Option<(Child, String)>,
        server: &std::path::Path,
        model: &std::path::Path,
        port: Option<u16>,
    ) -> Result<()> {
        let port = free_port(port)?;
        let mut command = Command::new(server);
        command
            .args(["-m", &model.to_string_lossy(), "--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["-c", &CONTEXT.to_string(), "--jinja", "--alias", DEMO_MODEL])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true);
        #[cfg(target_os = "linux")]
        // SAFETY: prctl is async-signal-safe. It ends the server with Maru even when Maru is
        // killed and cannot stop it itself.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                Ok(())
            });
        }
        let mut child = command.spawn().map_err(|e| failed(format!("cannot run {}: {e}", server.display())))?;
        wait_until_healthy(&mut child, port).await?;
        tracing::info!(port, "the demo model is running");
        *running = Some((child, format!("http://127.0.0.1:{port}/v1")));
        Ok(())
    }
}

/// Waits for the server's `/health` to answer, or for it to exit, or `START_TIMEOUT`.
async fn wait_until_healthy(child: &mut Child, port: u16) -> Result<()> {
    let base = format!("http://127.0.0.1:{port}");
    let started = Instant::now();
    let http = reqwest::Client::new();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(failed(format!("the demo model server exited at start ({status})")));
        }
        let health = http.get(format!("{base}/health")).timeout(Duration::from_secs(2)).send().await;
        if health.is_ok_and(|r| r.status().is_success()) {
            return Ok(());
        }
        if started.elapsed() > START_TIMEOUT {
            return Err(failed(format!("the demo model server did not answer within {} s", START_TIMEOUT.as_secs())));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

impl App {
    /// Starts the demo model (its last port when free) and keeps its one saved server at the
    /// address it answers on.
    pub async fn start_demo(&self) -> Result<(DemoModel, ServerConnection)> {
        let saved = self.store.read(connections::demo).await?;
        let port = saved.as_ref().and_then(|c| port_of(&c.base_url));
        let mut status = self.demo.start(port).await?;
        let url = status.base_url.clone().ok_or_else(|| failed("the demo model server stopped as it started".into()))?;
        let server = self.store.write(move |tx| connections::save_demo(tx, &url, DEMO_MODEL)).await?;
        status.connection_id = Some(server.id);
        Ok((status, server))
    }

    /// The demo model's saved server, when there is one.
    pub async fn demo_status(&self) -> Result<DemoModel> {
        let mut status = self.demo.status().await;
        status.connection_id = self.store.read(connections::demo).await?.map(|c| c.id);
        Ok(status)
    }

    /// `server` as it answers now: the demo model's is started first when Maru has not started
    /// it since it opened (a chat on it after a restart), its address brought up to date.
    pub async fn wake(&self, server: ServerConnection) -> Result<ServerConnection> {
        connections::check_set_up(&server)?;
        if !server.demo || !self.demo.asleep().await {
            return Ok(server);
        }
        Ok(self.start_demo().await?.1)
    }

    /// Starts the demo model before a turn in a chat on it, when it does not run yet.
    pub async fn wake_chat(&self, session_id: i64) -> Result<()> {
        if !self.demo.asleep().await {
            return Ok(());
        }
        let server = self.store.read(move |c| Ok(crate::store::settings::for_session(c, session_id)?.server)).await?;
        if server.demo {
            self.start_demo().await?;
        }
        Ok(())
    }
}

/// The port of a loopback address Maru wrote (`http://127.0.0.1:<port>/v1`).
fn port_of(base_url: &str) -> Option<u16> {
    base_url.strip_prefix("http://127.0.0.1:")?.split('/').next()?.parse().ok()
}

fn failed(message: String) -> Error {
    Error::Upstream { code: UpstreamCode::DemoFailed, message }
}

/// `wanted` when it is free, else any free port.
fn free_port(wanted: Option<u16>) -> Result<u16> {
    if let Some(port) = wanted.filter(|&p| std::net::TcpListener::bind(("127.0.0.1", p)).is_ok()) {
        return Ok(port);
    }
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).map_err(|e| failed(format!("no free port for the demo model: {e}")))?;
    Ok(listener.local_addr().map_err(anyhow::Error::from)?.port())
}
