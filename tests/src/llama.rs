//! A real model server for tests and benchmarks: llama.cpp's `llama-server` with SmolLM2-135M,
//! built and cached by `tests/real-server/setup.sh`, which prints the two paths read here.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct LlamaServer {
    child: Child,
    pub base_url: String,
}

impl LlamaServer {
    /// Starts llama-server on a free port; `None` when `LLAMA_SERVER`/`SMOLLM_GGUF` are not set.
    pub async fn start() -> Option<LlamaServer> {
        Self::start_with_context(4096).await
    }

    /// The same with a context window of `n_ctx` tokens.
    pub async fn start_with_context(n_ctx: u32) -> Option<LlamaServer> {
        Self::start_with(n_ctx, &[]).await
    }

    /// The same with more of llama-server's arguments (`-np 1`: one slot).
    pub async fn start_with(n_ctx: u32, extra: &[&str]) -> Option<LlamaServer> {
        let bin = std::env::var("LLAMA_SERVER").ok()?;
        let gguf = std::env::var("SMOLLM_GGUF").ok()?;
        let port = std::net::TcpListener::bind("127.0.0.1:0").ok()?.local_addr().ok()?.port();
        let child = Command::new(bin)
            .args(["-m", &gguf, "--host", "127.0.0.1", "--port", &port.to_string(), "-c", &n_ctx.to_string(), "--jinja"])
            .args(extra)
            .stdout(Stdio::null())
            // MARU_LLAMA_LOG=<file> keeps the server's log, to see why it failed.
            .stderr(std::env::var("MARU_LLAMA_LOG").ok().and_then(|p| std::fs::File::create(p).ok()).map_or(Stdio::null(), Stdio::from))
            .spawn()
            .expect("llama-server starts");
        let server = LlamaServer { child, base_url: format!("http://127.0.0.1:{port}/v1") };
        // /health answers 503 while the model loads, 200 once ready.
        let deadline = Instant::now() + Duration::from_secs(90);
        let http = reqwest::Client::new();
        while Instant::now() < deadline {
            if let Ok(r) = http.get(format!("http://127.0.0.1:{port}/health")).send().await {
                if r.status().is_success() {
                    return Some(server);
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        panic!("llama-server did not become healthy within 90 s");
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
