//! Requests too large to be meant: a URL or a header block past these limits answers 414 or 431
//! with Maru's `{code, message}`, like every other refusal. They sit well below the HTTP layer's
//! own hard limits (a 64 KiB URL, about 400 KiB of headers), past which it answers the bare
//! status line itself before any of Maru's code runs.

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::{Code, ErrorBody};

pub const URL_MAX_BYTES: usize = 16 * 1024;
pub const HEADERS_MAX_BYTES: usize = 64 * 1024;

pub async fn check(req: Request, next: Next) -> Response {
    let url = req.uri().path().len() + req.uri().query().map_or(0, |q| q.len() + 1);
    if url > URL_MAX_BYTES {
        return refuse(StatusCode::URI_TOO_LONG, Code::UrlTooLong, format!("the URL has {url} bytes; Maru accepts up to {URL_MAX_BYTES}"));
    }
    let headers: usize = req.headers().iter().map(|(k, v)| k.as_str().len() + v.len() + 4).sum();
    if headers > HEADERS_MAX_BYTES {
        return refuse(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            Code::HeadersTooLong,
            format!("the request headers have {headers} bytes; Maru accepts up to {HEADERS_MAX_BYTES}"),
        );
    }
    next.run(req).await
}

fn refuse(status: StatusCode, code: Code, message: String) -> Response {
    (status, axum::Json(ErrorBody::new(code, message))).into_response()
}
