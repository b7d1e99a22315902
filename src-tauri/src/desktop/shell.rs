//! What the window does beyond the page: the app menu, links opened in the system browser, and a
//! notification when a reply ends while the window is in the background.
//!
//! The menu's words come from the page (`desktop_menu`), so that every label lives once, in the
//! UI's English and Korean dictionaries, and follows the language the user picked.

use std::collections::HashMap;

use tauri::menu::{Menu, MenuBuilder, MenuEvent, MenuItemBuilder, PredefinedMenuItem, SubmenuBuilder};
use tauri::{AppHandle, Emitter, Manager, Runtime, Url};
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
