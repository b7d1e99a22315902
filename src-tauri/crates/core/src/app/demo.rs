//! The demo model for a first run without a model server: llama.cpp's `llama-server` with
//! SmolLM2-135M-Instruct, the pair `make run` (and the tests) build and cache. Started only when
//! the user asks, on a free loopback port, and stopped with Maru.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::process::{Child, Command};
use tokio::sync::Mutex;

use crate::error::{Code, Error, Result, UpstreamCode};

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
}

pub struct Demo {
    /// The server program and the model file.
    files: std::sync::Mutex<Option<(PathBuf, PathBuf)>>,
    running: Mutex<Option<(Child, String)>>,
}

impl Demo {
    /// `MARU_DEMO_SERVER` and `MARU_DEMO_MODEL`, else where `make run` caches them.
    pub fn find() -> Demo {
        let cache = std::env::var_os("MARU_CACHE_DIR").map(PathBuf::from).or_else(|| dirs::cache_dir().map(|d| d.join("maru")));
        let path = |var: &str, cached: &str| std::env::var_os(var).map(PathBuf::from).or_else(|| cache.as_ref().map(|c| c.join(cached)));
        let server = path("MARU_DEMO_SERVER", "llama/bin/llama-server");
        let model = path("MARU_DEMO_MODEL", "models/SmolLM2-135M-Instruct.Q4_1.gguf");
        let files = server.zip(model).filter(|(s, m)| s.is_file() && m.is_file());
        Demo { files: std::sync::Mutex::new(files), running: Mutex::default() }
    }

    /// Runs this server program with this model instead (a package that ships its own, tests).
    pub fn use_files(&self, server: PathBuf, model: PathBuf) {
        *self.files.lock().expect("demo files") = Some((server, model));
    }

    fn files(&self) -> Option<(PathBuf, PathBuf)> {
        self.files.lock().expect("demo files").clone()
    }

    pub async fn status(&self) -> DemoModel {
        let mut running = self.running.lock().await;
        // A server that died (killed, crashed) is no longer an address to offer.
        if let Some((child, _)) = running.as_mut() {
            if !matches!(child.try_wait(), Ok(None)) {
                *running = None;
            }
        }
        DemoModel { available: self.files().is_some(), base_url: running.as_ref().map(|(_, url)| url.clone()), model: DEMO_MODEL.into() }
    }

    /// Starts the server (once) and waits until it answers.
    pub async fn start(&self) -> Result<DemoModel> {
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
        let port = free_port()?;
        let mut command = Command::new(&server);
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
        let base = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        let http = reqwest::Client::new();
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(failed(format!("the demo model server exited at start ({status})")));
            }
            let health = http.get(format!("{base}/health")).timeout(Duration::from_secs(2)).send().await;
            if health.is_ok_and(|r| r.status().is_success()) {
                break;
            }
            if started.elapsed() > START_TIMEOUT {
                return Err(failed(format!("the demo model server did not answer within {} s", START_TIMEOUT.as_secs())));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        tracing::info!(port, "the demo model is running");
        *running = Some((child, format!("{base}/v1")));
        drop(running);
        Ok(self.status().await)
    }
}

fn failed(message: String) -> Error {
    Error::Upstream { code: UpstreamCode::DemoFailed, message }
}

fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).map_err(|e| failed(format!("no free port for the demo model: {e}")))?;
    Ok(listener.local_addr().map_err(anyhow::Error::from)?.port())
}
