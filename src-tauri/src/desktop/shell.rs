//! What the window does beyond the page: the app menu, links opened in the system browser, files
//! the page saves (exports, backups, attachments) written to the Downloads folder, the native
//! folder picker (a project's folder), and a notification when a reply ends while the window is
//! in the background.
//!
//! The menu's words come from the page (`desktop_menu`), so that every label lives once, in the
//! UI's English and Korean dictionaries, and follows the language the user picked.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tauri::menu::{Menu, MenuBuilder, MenuEvent, MenuItemBuilder, PredefinedMenuItem, SubmenuBuilder};
use tauri::{AppHandle, Emitter, Manager, Runtime, Url};
use tauri_plugin_dialog::DialogExt;
use tauri_plugin_notification::NotificationExt;
use tauri_plugin_opener::OpenerExt;

/// The page's actions, by menu id, with their shortcuts. The page runs them on `maru://menu`.
const ACTIONS: [(&str, &str); 4] =
    [("new_chat", "CmdOrCtrl+Shift+O"), ("search", "CmdOrCtrl+K"), ("settings", "CmdOrCtrl+,"), ("shortcuts", "CmdOrCtrl+/")];

/// Builds (or rebuilds, when the language changes) the app menu with the page's labels.
#[tauri::command]
pub fn desktop_menu<R: Runtime>(app: AppHandle<R>, labels: HashMap<String, String>) -> Result<(), String> {
    let menu = build_menu(&app, &labels).map_err(|e| e.to_string())?;
    app.set_menu(menu).map_err(|e| e.to_string())?;
    Ok(())
}

fn build_menu<R: Runtime>(app: &AppHandle<R>, labels: &HashMap<String, String>) -> tauri::Result<Menu<R>> {
    let label = |id: &str| labels.get(id).map(String::as_str).unwrap_or(id).to_owned();
    let mut file = SubmenuBuilder::new(app, label("menu_file"));
    for (id, accelerator) in ACTIONS {
        file = file.item(&MenuItemBuilder::with_id(id, label(id)).accelerator(accelerator).build(app)?);
    }
    let file = file.separator().item(&MenuItemBuilder::with_id("quit", label("quit")).accelerator("CmdOrCtrl+Q").build(app)?).build()?;
    let edit = SubmenuBuilder::new(app, label("menu_edit"))
        .item(&PredefinedMenuItem::undo(app, Some(&label("undo")))?)
        .item(&PredefinedMenuItem::redo(app, Some(&label("redo")))?)
        .separator()
        .item(&PredefinedMenuItem::cut(app, Some(&label("cut")))?)
        .item(&PredefinedMenuItem::copy(app, Some(&label("copy")))?)
        .item(&PredefinedMenuItem::paste(app, Some(&label("paste")))?)
        .item(&PredefinedMenuItem::select_all(app, Some(&label("select_all")))?)
        .build()?;
    MenuBuilder::new(app).item(&file).item(&edit).build()
}

pub fn on_menu<R: Runtime>(app: &AppHandle<R>, event: MenuEvent) {
    let id = event.id().as_ref();
    if id == "quit" {
        app.exit(0);
    } else if ACTIONS.iter().any(|(action, _)| *action == id) {
        let _ = app.emit_to("main", "maru://menu", id);
    }
}

/// Shown only when the window is not focused; a system without a notification service just
/// shows nothing.
#[tauri::command]
pub fn notify<R: Runtime>(app: AppHandle<R>, title: String, body: String) {
    let focused = app.get_webview_window("main").and_then(|w| w.is_focused().ok()).unwrap_or(false);
    if !focused {
        if let Err(e) = app.notification().builder().title(title).body(body).show() {
            tracing::debug!("no notification shown: {e}");
        }
    }
}

/// Saves a file the page hands over (an export, a backup, an attachment) in the Downloads folder
/// under the name the page gave, never over an existing file; answers where it went. The web view
/// has no download manager of its own, so a browser's download becomes this. Bytes in the body,
/// the name percent-encoded in `x-maru-name`. Async, so a large backup never holds the main thread.
#[tauri::command]
pub async fn save_download(request: tauri::ipc::Request<'_>) -> Result<String, String> {
    let tauri::ipc::InvokeBody::Raw(bytes) = request.body() else { return Err("the file arrived without its bytes".into()) };
    let given = request.headers().get("x-maru-name").and_then(|v| v.to_str().ok()).unwrap_or_default();
    let given = percent_encoding::percent_decode_str(given).decode_utf8_lossy();
    // Only a name: whatever path the page put in it is dropped.
    let name = Path::new(given.as_ref()).file_name().and_then(|n| n.to_str()).filter(|n| !n.starts_with('.')).unwrap_or("maru-download");
    let dir = dirs::download_dir().or_else(dirs::home_dir).unwrap_or_else(std::env::temp_dir);
    tokio::fs::create_dir_all(&dir).await.map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = free_path(&dir, name);
    tokio::fs::write(&path, bytes).await.map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path.to_string_lossy().into_owned())
}

/// The system's folder picker, titled by the page (in the user's language): the folder chosen,
/// or nothing when the user cancels. A web page cannot learn a folder's path; the window can.
#[tauri::command]
pub async fn pick_folder<R: Runtime>(app: AppHandle<R>, title: String) -> Option<String> {
    let (chosen, picked) = tokio::sync::oneshot::channel();
    app.dialog().file().set_title(title).pick_folder(move |folder| {
        let _ = chosen.send(folder.and_then(|f| f.into_path().ok()).map(|p| p.to_string_lossy().into_owned()));
    });
    picked.await.ok().flatten()
}

/// `dir/name`, or `dir/name (2)` and so on when that exists.
fn free_path(dir: &Path, name: &str) -> PathBuf {
    let wanted = dir.join(name);
    if !wanted.exists() {
        return wanted;
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
        _ => (name, String::new()),
    };
    (2..).map(|n| dir.join(format!("{stem} ({n}){ext}"))).find(|p| !p.exists()).expect("a free name")
}

/// Whether a URL is the window's own page (everything else leaves for the system browser).
pub fn is_app_url(url: &Url) -> bool {
    matches!(url.scheme(), "tauri" | "asset") || url.host_str() == Some("tauri.localhost")
}

/// Opens a web or mail link in the system's handler; anything else (files, custom schemes) is
/// refused, since reply text comes from a model.
pub fn open_external<R: Runtime>(app: &AppHandle<R>, url: &Url) {
    if !matches!(url.scheme(), "http" | "https" | "mailto") {
        tracing::warn!("refused to open a {} link from the window", url.scheme());
        return;
    }
    if let Err(e) = app.opener().open_url(url.as_str(), None::<&str>) {
        tracing::warn!("cannot open {url} in the system browser: {e}");
    }
}
