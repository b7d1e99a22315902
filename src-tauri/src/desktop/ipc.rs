//! The window's only way into the core: two commands that hand a request to the in-process API
//! ([`crate::server::local`]), so the page reaches exactly the routes `maru serve` documents and
//! nothing else. A turn's events come back over a `tauri::ipc::Channel`.

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tauri::ipc::{Channel, InvokeBody, InvokeResponseBody, Request, Response};

use crate::server::local::{Local, LocalRequest};

/// A refused request, as the page's `fetch` stand-in rebuilds it: the HTTP status and the
/// `{code, message}` body.
#[derive(Serialize)]
pub struct Failed {
    status: u16,
    body: String,
}

/// One API call: method, path and content type in `x-maru-*` headers (Tauri reads `content-type`
/// itself), the body raw (JSON or a multipart upload).
/// Answers the response body; a status other than 2xx rejects with [`Failed`].
#[tauri::command]
pub async fn api(local: tauri::State<'_, Local>, request: Request<'_>) -> Result<Response, Failed> {
    let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let body = match request.body() {
        InvokeBody::Raw(bytes) => bytes.clone(),
        InvokeBody::Json(serde_json::Value::Null) => Vec::new(),
        InvokeBody::Json(value) => value.to_string().into_bytes(),
    };
    let req = LocalRequest {
        method: header("x-maru-method").unwrap_or_else(|| "GET".into()),
        path: header("x-maru-path").unwrap_or_default(),
        content_type: header("x-maru-content-type"),
        accept: header("accept"),
        body,
    };
    let res = local.call(req).await;
    let status = res.status();
    let bytes = axum::body::to_bytes(res.into_body(), usize::MAX).await.map_err(|e| Failed { status: 500, body: read_failed(&e) })?;
    if status.is_success() {
        Ok(Response::new(bytes.to_vec()))
    } else {
        Err(Failed { status: status.as_u16(), body: String::from_utf8_lossy(&bytes).into_owned() })
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamCall {
    method: String,
    path: String,
    /// JSON, when the route takes a body.
    body: Option<String>,
}

/// A call answered with Server-Sent Events (a turn, or following one). Resolves once the stream
/// began; its bytes then arrive on `on_event` as they are written, and a final `null` ends it. The
/// turn itself never waits for the page: a closed window only ends this forwarding.
#[tauri::command]
pub async fn api_stream(local: tauri::State<'_, Local>, call: StreamCall, on_event: Channel<InvokeResponseBody>) -> Result<(), Failed> {
    let body = call.body.unwrap_or_default().into_bytes();
    let content_type = (!body.is_empty()).then(|| "application/json".to_owned());
    let req = LocalRequest { method: call.method, path: call.path, content_type, accept: Some("text/event-stream".into()), body };
    let res = local.call(req).await;
    let status = res.status();
    if !status.is_success() {
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX).await.unwrap_or_default();
        return Err(Failed { status: status.as_u16(), body: String::from_utf8_lossy(&bytes).into_owned() });
    }
    let mut frames = res.into_body().into_data_stream();
    tauri::async_runtime::spawn(async move {
        while let Some(frame) = frames.next().await {
            let Ok(bytes) = frame else { break };
            if on_event.send(InvokeResponseBody::Raw(bytes.to_vec())).is_err() {
                return;
            }
        }
        let _ = on_event.send(InvokeResponseBody::Json("null".into()));
    });
    Ok(())
}

fn read_failed(e: &axum::Error) -> String {
    serde_json::json!({"code": "internal", "message": format!("the answer could not be read: {e}")}).to_string()
}
