//! The desktop shell (feature `desktop`): one Tauri window over the same HTTP server `maru serve` runs.
//!
//! The server listens on a free loopback port with a fresh token; the window loads
//! `http://127.0.0.1:<port>/#token=<token>`, so the web UI works exactly as in a browser.
//! Closing the window ends the process.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tauri::{WebviewUrl, WebviewWindowBuilder};

use crate::app::App;
use crate::error::{Error, Result};
use crate::server::{self, ServeOptions};

/// Serves the data folder on loopback and shows it in a window until the window is closed.
pub fn run(data_dir: &Path) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(anyhow::Error::from)?;
    let opts = ServeOptions {
        host: "127.0.0.1".into(),
        port: 0,
        // Tests pass a known token to reach /api; otherwise a fresh one per start.
        token: std::env::var("MARU_TOKEN").ok().filter(|t| !t.is_empty()),
        allow_remote: false,
        ui_dir: Some(ui_dir()),
    };
    // Inside the runtime: opening may start background work (files left unindexed).
    let app = runtime.block_on(async { App::open(data_dir) })?;
    let bound = runtime.block_on(server::bind(app.clone(), &opts))?;
    let origin = format!("http://{}", bound.addr);
    let url: tauri::Url = format!("{origin}/#token={}", bound.token).parse().map_err(anyhow::Error::from)?;
    // The server runs on the runtime's worker threads while this thread runs the window.
    runtime.spawn(async {
        if let Err(e) = bound.run().await {
            tracing::error!("the desktop window's server stopped: {e}");
        }
    });
    // The token stays out of the output: it only travels in the window's URL fragment.
    println!("Maru window serving {origin}");

    let window = tauri::Builder::default()
        .setup(move |app| {
            WebviewWindowBuilder::new(app, "main", WebviewUrl::External(url.clone()))
                .title("Maru")
                .inner_size(1200.0, 800.0)
                .min_inner_size(480.0, 360.0)
                .build()?;
            Ok(())
        })
        .build(tauri::generate_context!())
        .map_err(|e| Error::Internal(anyhow::anyhow!("cannot open the window: {e}")))?;
    window.run_return(|_, _| {});
    // A reply still being written ends as "stopped" with its text, as if the user pressed stop;
    // then nothing may keep the process alive.
    runtime.block_on(app.runs.stop_all(Duration::from_secs(2)));
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}

/// The built web UI: `MARU_UI_DIR`, else `ui/dist` next to the sources.
fn ui_dir() -> PathBuf {
    std::env::var_os("MARU_UI_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../ui/dist")))
}
