//! The web UI that `maru serve` hands to browsers: `ui/dist` built into the binary, so Maru runs
//! from any folder with nothing beside it. Debug builds read the folder at run time instead, so a
//! rebuilt UI shows without recompiling. `--ui-dir` serves another folder (UI development).

use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

#[derive(rust_embed::RustEmbed)]
// Relative to the crate: the built web UI.
#[folder = "../../../ui/dist"]
// A build without the UI still serves the API.
#[allow_missing = true]
struct Ui;

/// Whether this binary carries a UI at all.
pub fn embedded() -> bool {
    Ui::get("index.html").is_some()
}

/// A file of the UI; unknown paths get `index.html`, so the UI's own routes survive a reload.
pub async fn serve(uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    let (path, file) = match Ui::get(path).filter(|_| !path.is_empty()) {
        Some(file) => (path, file),
        None => match Ui::get("index.html") {
            Some(file) => ("index.html", file),
            None => return StatusCode::NOT_FOUND.into_response(),
        },
    };
    // Vite names the files under assets/ by their content hash: they never change.
    let cache = if path.starts_with("assets/") { "public, max-age=31536000, immutable" } else { "no-cache" };
    let mime = HeaderValue::from_str(file.metadata.mimetype()).unwrap_or(HeaderValue::from_static("application/octet-stream"));
    ([(header::CONTENT_TYPE, mime), (header::CACHE_CONTROL, HeaderValue::from_static(cache))], file.data).into_response()
}
