//! The desktop app (feature `desktop`): one Tauri window showing the web UI built into the binary.
//!
//! The page talks to the core over Tauri IPC only ([`ipc`]): the desktop opens no listening socket.
//! One Maru per data folder: a second launch on the same folder focuses the first window (over
//! D-Bus; without a session bus, the data folder's lock still refuses the second process).
//! Closing the window ends the process; a reply being written then ends as "stopped".

mod ipc;
mod shell;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tauri::webview::NewWindowResponse;
use tauri::{Manager, WebviewUrl, WebviewWindowBuilder};

use crate::app::relaunch::Swap;
use crate::app::App;
use crate::error::{Error, Result};
use crate::server::local::Local;

/// How the window ended.
pub enum Closed {
    /// The user closed it, or this launch handed over to the window already open.
    Done,
    /// A restored backup is to be opened in place of the data folder.
    Restored(Swap),
    /// The window already open on this folder took the launch but quit before answering: it
    /// was closing. This launch is the one to open, once the old window has let go.
    Again,
}

/// Opens the data folder and shows it in a window until the window is closed, or until a
/// restored backup is to be opened in its place.
pub fn run(data_dir: &Path) -> Result<Closed> {
    let runtime = crate::runtime().map_err(anyhow::Error::from)?;
    // Commands and plugins run on Maru's runtime, beside the turns they start.
    tauri::async_runtime::set(runtime.handle().clone());
    // Set in `setup`, after the single-instance check: a second launch never opens the database.
    let opened: Arc<Mutex<Option<Result<Arc<App>>>>> = Arc::default();
    let exit_handle: Arc<Mutex<Option<tauri::AppHandle>>> = Arc::default();

    let data_dir = data_dir.to_path_buf();
    let handle = runtime.handle().clone();
    let slot = opened.clone();
    let exit_slot = exit_handle.clone();
    let desktop = tauri::Builder::default()
        .plugin(
            tauri_plugin_single_instance::Builder::new().dbus_id(instance_id(&data_dir)).callback(|app, _argv, _cwd| focus(app)).build(),
        )
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .plugin(tauri_plugin_opener::init())
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_dialog::init())
        .invoke_handler(tauri::generate_handler![
            ipc::api,
            ipc::api_stream,
            shell::desktop_menu,
            shell::notify,
            shell::save_download,
            shell::pick_folder
        ])
        .on_menu_event(shell::on_menu)
        .setup(move |tauri_app| {
            // Inside the runtime: opening may start background work (files left unindexed).
            let app = handle.block_on(async { App::open(&data_dir) });
            let app = match app {
                Ok(app) => app,
                Err(e) => {
                    *slot.lock().expect("open slot") = Some(Err(e));
                    tauri_app.handle().exit(1);
                    return Ok(());
                }
            };
            tauri_app.manage(Local::new(app.clone()));
            // A restore closes the window once its answer has reached the page; `main` opens
            // the restored folder. The task only borrows the handle: it is taken back (and
            // dropped) on this thread when the window closes, never on a runtime thread.
            *exit_slot.lock().expect("exit handle") = Some(tauri_app.handle().clone());
            let (restored, exit) = (app.clone(), exit_slot.clone());
            tauri::async_runtime::spawn(async move {
                restored.relaunch.requested().await;
                tokio::time::sleep(Duration::from_millis(500)).await;
                if let Some(handle) = exit.lock().expect("exit handle").as_ref() {
                    handle.exit(0);
                }
            });
            *slot.lock().expect("open slot") = Some(Ok(app));
            open_window(tauri_app)?;
            Ok(())
        })
        .build(tauri::generate_context!());
    let desktop = match desktop {
        Ok(desktop) => desktop,
        Err(e) if handover_lost(&e) => return Ok(Closed::Again),
        Err(e) => return Err(Error::Internal(anyhow::anyhow!("cannot open the window: {e}"))),
    };
    desktop.run_return(|_, _| {});
    drop(exit_handle.lock().expect("exit handle").take());

    let opened = opened.lock().expect("open slot").take();
    let result = match opened {
        Some(Ok(app)) => {
            // The one shutdown `maru serve` also runs; then nothing may keep the process alive.
            runtime.block_on(app.shutdown());
            Ok(app.relaunch.taken().map_or(Closed::Done, Closed::Restored))
        }
        Some(Err(e)) => Err(e),
        // The single-instance check handed this launch to the running window.
        None => Ok(Closed::Done),
    };
    runtime.shutdown_timeout(Duration::from_secs(1));
    result
}

fn open_window(tauri_app: &mut tauri::App) -> tauri::Result<()> {
    let handle = tauri_app.handle().clone();
    let opener = handle.clone();
    let window = WebviewWindowBuilder::new(tauri_app, "main", WebviewUrl::App("index.html".into()))
        .title("Maru")
        .inner_size(1200.0, 800.0)
        .min_inner_size(480.0, 360.0)
        // Files dropped from the file manager reach the page as a normal HTML drop, which the
        // composer already handles (Tauri's own drop events would hide them from it).
        .disable_drag_drop_handler()
        // Links in replies (`target=_blank`) and any navigation away from the app leave for the
        // system browser; the window only ever shows Maru.
        .on_new_window(move |url, _| {
            shell::open_external(&opener, &url);
            NewWindowResponse::Deny
        })
        .on_navigation(move |url| {
            let inside = shell::is_app_url(url);
            if !inside {
                shell::open_external(&handle, url);
            }
            inside
        })
        .build()?;
    #[cfg(target_os = "linux")]
    window.with_webview(|webview| lean_webkit(&webview.inner()))?;
    remember_place(&window);
    Ok(())
}

/// The window-state plugin writes the size and place when Maru quits cleanly; a session that ends
/// by logging out (or a kill) would lose them. So they are also written half a second after the
/// last move or resize.
fn remember_place(window: &tauri::WebviewWindow) {
    use std::sync::atomic::{AtomicU64, Ordering};
    use tauri_plugin_window_state::{AppHandleExt, StateFlags};
    let changes = Arc::new(AtomicU64::new(0));
    let handle = window.app_handle().clone();
    window.on_window_event(move |event| {
        if !matches!(event, tauri::WindowEvent::Moved(_) | tauri::WindowEvent::Resized(_)) {
            return;
        }
        let this = changes.fetch_add(1, Ordering::SeqCst) + 1;
        let (changes, handle) = (changes.clone(), handle.clone());
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            if changes.load(Ordering::SeqCst) == this {
                if let Err(e) = handle.save_window_state(StateFlags::all()) {
                    tracing::debug!("the window's place was not saved: {e}");
                }
            }
        });
    });
}

/// WebKitGTK's defaults suit a browser: large memory caches, a back-forward page cache and GPU
/// compositing, each worth tens of megabytes. One page of text and a small UI needs none of them
/// (the figures are in the README).
#[cfg(target_os = "linux")]
fn lean_webkit(view: &webkit2gtk::WebView) {
    use webkit2gtk::{CacheModel, HardwareAccelerationPolicy, SettingsExt, WebContextExt, WebViewExt};
    if let Some(context) = view.context() {
        context.set_cache_model(CacheModel::DocumentViewer);
    }
    if let Some(settings) = WebViewExt::settings(view) {
        settings.set_enable_page_cache(false);
        settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
    }
}

fn focus(app: &tauri::AppHandle) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// The D-Bus name that makes launches on the same data folder one app (another folder is
/// another Maru).
fn instance_id(data_dir: &Path) -> String {
    use sha2::Digest;
    let folder = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    let digest = sha2::Sha256::digest(folder.to_string_lossy().as_bytes());
    format!("app.maru.desktop.d{}", hex::encode(&digest[..8]))
}

/// The single-instance plugin tells a handover the running window never answered only by the
/// text of its error.
fn handover_lost(e: &tauri::Error) -> bool {
    e.to_string().contains("failed to forward arguments to the running instance")
}
