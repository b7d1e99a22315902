//! The `maru` command: the desktop window by default, `maru serve` for the browser and scripts.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use maru::app::relaunch::Swap;
use maru::app::App;
use maru::error::Code;
use maru::server::{self, ServeOptions};

#[derive(Parser)]
#[command(name = "maru", version, about = "A local chatbot for your own OpenAI-compatible model server")]
struct Cli {
    /// Where Maru keeps its database, files, prompt overrides and logs.
    #[arg(long, global = true, env = "MARU_DATA_DIR")]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the API and the web UI over HTTP (loopback only unless --allow-remote).
    Serve {
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        #[arg(long, default_value_t = 8765)]
        port: u16,
        /// Access token for /api; generated and printed when absent.
        #[arg(long, env = "MARU_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// Listen on a non-loopback address (others on the network could reach your chats).
        #[arg(long)]
        allow_remote: bool,
        /// Serve this built web UI instead of the one inside Maru (for UI development).
        #[arg(long, env = "MARU_UI_DIR")]
        ui_dir: Option<PathBuf>,
        /// Link a project to this folder: its AGENTS.md/CLAUDE.md join the project's
        /// instructions and its files become the project's (a project named after the folder is
        /// made when none follows it yet).
        #[arg(long)]
        folder: Option<PathBuf>,
    },
    /// Serve the tools you share with other apps (Settings → Share with other apps) over MCP on
    /// standard input and output, for Claude Desktop, Claude Code, editors: `claude mcp add maru
    /// -- maru mcp`. Runs beside an open Maru.
    Mcp,
    /// Print the system prompt the session's next request will carry, section by section.
    Prompt {
        #[arg(long)]
        session: i64,
        /// Print the inspector's JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Restore a backup (from the settings' Data tab) into an empty data folder.
    Restore {
        /// The backup file, `maru-backup-….zip`.
        backup: PathBuf,
    },
    /// Copy the bundled prompt templates into the data folder's prompts/ to edit them.
    ExportPrompts,
    /// Print a PDF's text per page as JSON (Maru runs this in a child process, so that a damaged
    /// file can only fail itself).
    #[command(hide = true)]
    ExtractPdf {
        path: PathBuf,
        /// At most this many characters in all.
        #[arg(long, default_value_t = maru::store::settings::TEXT_MAX_CHARS_DEFAULT as usize)]
        max_chars: usize,
    },
}

fn default_data_dir() -> PathBuf {
    dirs::data_dir().unwrap_or_else(|| PathBuf::from(".")).join("maru")
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(Command::ExtractPdf { path, max_chars }) = &cli.command {
        return extract_pdf(path, *max_chars);
    }
    // This program answers `extract-pdf`: PDFs are read in a child process running it.
    maru::attachments::extract::this_binary_reads_pdfs();
    if let Some(Command::Restore { backup }) = &cli.command {
        // Before logging starts: its logs/ would make the folder to restore into non-empty.
        let data_dir = cli.data_dir.clone().unwrap_or_else(default_data_dir);
        return restore(backup, &data_dir);
    }
    // Everything Maru writes (database, logs, files) is private to the user.
    #[cfg(unix)]
    unsafe {
        libc::umask(0o077);
    }
    let data_dir = cli.data_dir.unwrap_or_else(default_data_dir);
    let _log = maru::logging::init(&data_dir);
    let result = match cli.command {
        Some(Command::Serve { host, port, token, allow_remote, ui_dir, folder }) => {
            let opts = ServeOptions { host, port, token, allow_remote, ui_dir };
            serve(&data_dir, opts, folder)
        }
        Some(Command::Mcp) => serve_mcp(&data_dir).map(|()| None),
        Some(Command::Prompt { session, json }) => print_prompt(&data_dir, session, json).map(|()| None),
        Some(Command::ExportPrompts) => export_prompts(&data_dir).map(|()| None),
        Some(Command::ExtractPdf { .. } | Command::Restore { .. }) => unreachable!("handled before logging starts"),
        None => run_default(&data_dir),
    };
    match result {
        Ok(Some(reopen)) => relaunch(&data_dir, reopen),
        Ok(None) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("maru: {e}");
            ExitCode::FAILURE
        }
    }
}

fn extract_pdf(path: &std::path::Path, max_chars: usize) -> ExitCode {
    // A panic in the parser is an answer too: the file could not be read.
    std::panic::set_hook(Box::new(|_| {}));
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            println!("{}", serde_json::json!({ "error": format!("the stored file cannot be read: {e}") }));
            return ExitCode::SUCCESS;
        }
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match maru::attachments::extract::print_pdf_pages(&bytes, max_chars, &mut out).and_then(|_| std::io::Write::flush(&mut out)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

fn restore(backup: &std::path::Path, data_dir: &std::path::Path) -> ExitCode {
    #[cfg(unix)]
    unsafe {
        libc::umask(0o077);
    }
    match maru::backup::restore(backup, data_dir) {
        Ok(restored) => {
            println!("{restored}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("maru: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A restored backup to open in place of the data folder, and the token the pages have.
struct Reopen {
    swap: Swap,
    token: Option<String>,
}

/// Puts the restored folder in place of the data folder (keeping the old one) and starts Maru
/// again as it was started: the same window, or the same address and token.
fn relaunch(data_dir: &std::path::Path, reopen: Reopen) -> ExitCode {
    if let Err(e) = reopen.swap.apply(data_dir) {
        // Put back whatever moved: the data stays as it was, the restore waits where it is.
        if !data_dir.exists() {
            let _ = std::fs::rename(&reopen.swap.kept_as, data_dir);
        }
        eprintln!("maru: cannot put the restored backup in place ({e}); it is in {}", reopen.swap.restored.display());
        return ExitCode::FAILURE;
    }
    println!("Restored: the data that was in {} is kept in {}.", data_dir.display(), reopen.swap.kept_as.display());
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("maru: the backup is restored; start Maru again to open it ({e})");
            return ExitCode::SUCCESS;
        }
    };
    match start_again(exe, reopen.token.map(|token| ("MARU_TOKEN", token))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("maru: the backup is restored; start Maru again to open it ({e})");
            ExitCode::FAILURE
        }
    }
}

/// Starts `exe` with this process's arguments and `env` added: in this process on Unix (so a
/// service manager or terminal keeps it; its files close on exec), returning only when that
/// failed; elsewhere as a new process, returning once it runs.
fn start_again(exe: PathBuf, env: Option<(&str, String)>) -> std::io::Result<()> {
    let mut again = std::process::Command::new(exe);
    again.args(std::env::args_os().skip(1));
    if let Some((name, value)) = env {
        again.env(name, value);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        Err(again.exec())
    }
    #[cfg(not(unix))]
    again.spawn().map(drop)
}

fn serve(data_dir: &std::path::Path, opts: ServeOptions, folder: Option<PathBuf>) -> maru::error::Result<Option<Reopen>> {
    maru::runtime().expect("tokio runtime").block_on(async {
        let app = App::open(data_dir)?;
        if let Some(folder) = folder {
            let project = maru::api::follow_folder(&app, &folder.to_string_lossy()).await?;
            println!("The project “{}” follows {}.", project.name, project.folder.unwrap_or_default());
        }
        let bound = server::bind(app.clone(), &opts).await?;
        let token_note = if opts.token.is_some() { "the token you gave" } else { "a new token" };
        // Printed once, to the terminal only: the fragment never reaches a server log.
        println!("Maru is serving {} with {token_note}.", data_dir.display());
        println!("Open http://{}/#token={}", bound.addr, bound.token);
        let token = bound.token.clone();
        let (closing, closed) = tokio::sync::oneshot::channel::<()>();
        let mut server = tokio::spawn(bound.run_until(async move {
            let _ = closed.await;
        }));
        tokio::select! {
            served = &mut server => return served.map_err(|e| maru::error::Error::Internal(e.into()))?.map(|()| None),
            () = termination() => {}
            _ = app.relaunch.requested() => {}
        }
        // The same shutdown as the desktop window's: replies stop and keep their text.
        app.shutdown().await;
        let _ = closing.send(());
        let Some(swap) = app.relaunch.taken() else { return Ok(None) };
        // The restore's answer is on its way to the page; streams that never end are cut.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(3), server).await;
        Ok(Some(Reopen { swap, token: Some(token) }))
    })
}

/// SIGTERM (a service manager, `kill`) or Ctrl+C.
async fn termination() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            },
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// `maru mcp`: the app that started it talks to it on stdin and stdout (only MCP goes there;
/// the log goes to stderr and the data folder's logs/), until it closes them.
fn serve_mcp(data_dir: &std::path::Path) -> maru::error::Result<()> {
    maru::runtime().expect("tokio runtime").block_on(async {
        let shared = maru::sharing::Shared::open(data_dir)?;
        server::mcp::serve_stdio(shared).await
    })
}

fn print_prompt(data_dir: &std::path::Path, session: i64, json: bool) -> maru::error::Result<()> {
    maru::runtime().expect("tokio runtime").block_on(async {
        let app = App::open(data_dir)?;
        let view = maru::api::context::context(&app, session).await?;
        if json {
            println!("{}", serde_json::to_string_pretty(&view).map_err(anyhow::Error::from)?);
        } else {
            print!("{}", view.to_text());
        }
        Ok(())
    })
}

fn export_prompts(data_dir: &std::path::Path) -> maru::error::Result<()> {
    // A running Maru read its templates at start and would go on with the old ones while the
    // folder showed the new: refused, saying which process has the folder.
    maru::paths::create_private_dir(data_dir)?;
    let _lock = maru::paths::DataDirLock::acquire(data_dir).map_err(|e| match e.code().as_ref() {
        "data_dir_in_use" => maru::error::Error::startup(
            Code::DataDirInUse,
            format!("{e}. Quit Maru, export the prompts, then start it again: it reads its templates when it starts"),
        ),
        _ => e,
    })?;
    let written = maru::prompt::Templates::export(data_dir)?;
    for path in &written {
        println!("wrote {}", path.display());
    }
    println!("{} templates exported; edit them and restart Maru. Unedited ones are updated when Maru updates.", written.len());
    Ok(())
}

#[cfg(not(feature = "desktop"))]
fn run_default(data_dir: &std::path::Path) -> maru::error::Result<Option<Reopen>> {
    eprintln!("this build has no desktop window; serving over HTTP instead");
    serve(data_dir, ServeOptions { host: "127.0.0.1".into(), port: 8765, token: None, allow_remote: false, ui_dir: None }, None)
}

#[cfg(feature = "desktop")]
fn run_default(data_dir: &std::path::Path) -> maru::error::Result<Option<Reopen>> {
    use maru::desktop::Closed;
    match maru::desktop::run(data_dir)? {
        Closed::Done => Ok(None),
        Closed::Restored(swap) => Ok(Some(Reopen { swap, token: None })),
        Closed::Again => launch_again(),
    }
}

/// A quick relaunch can meet the last window still closing: it takes the handover and then
/// quits without answering. This launch starts over as a new process (the window system is set
/// up once per process) until that window has let go of the folder.
#[cfg(feature = "desktop")]
fn launch_again() -> maru::error::Result<Option<Reopen>> {
    const TRIES: u32 = 20;
    let tried: u32 = std::env::var("MARU_LAUNCH_TRY").ok().and_then(|n| n.parse().ok()).unwrap_or(0);
    if tried >= TRIES {
        return Err(maru::error::Error::Internal(anyhow::anyhow!(
            "the Maru window already open on this data folder does not answer; close it and start Maru again"
        )));
    }
    std::thread::sleep(std::time::Duration::from_millis(250));
    let started = std::env::current_exe().and_then(|exe| start_again(exe, Some(("MARU_LAUNCH_TRY", (tried + 1).to_string()))));
    started.map(|()| None).map_err(|e| maru::error::Error::Internal(e.into()))
}
