//! Request extractors whose failures answer in Maru's `{code, message}` shape (an [`Error`] is a
//! response by `maru-error`'s `http` feature).

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;

use crate::error::{Code, Error};

/// A JSON body; malformed JSON or wrong fields answer 400 `invalid_json`.
pub struct Json<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Json<T> {
    type Rejection = Error;
    async fn from_request(req: Request, state: &S) -> Result<Self, Error> {
        axum::Json::<T>::from_request(req, state).await.map(|axum::Json(v)| Json(v)).map_err(|rej| match rej.status() {
            StatusCode::PAYLOAD_TOO_LARGE => Error::invalid(
                Code::BodyTooLarge,
                format!(
                    "the request body is larger than Maru accepts ({} MiB); attach long text as a file instead",
                    super::BODY_MAX_BYTES >> 20
                ),
            ),
            _ => Error::invalid(Code::InvalidJson, rej.body_text()),
        })
    }
}

/// Query parameters; bad ones answer 400 `invalid_query`.
pub struct Query<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Query<T> {
    type Rejection = Error;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Query(v)| Query(v))
            .map_err(|rej| Error::invalid(Code::InvalidQuery, rej.body_text()))
    }
}

/// A numeric id in the path; anything else answers 400 `invalid_id`.
#[derive(utoipa::IntoParams)]
#[into_params(names("id"), parameter_in = Path)]
pub struct Id(
    /// A whole number, as the object's `id` field gives it
    pub i64,
);

impl<S: Send + Sync> FromRequestParts<S> for Id {
    type Rejection = Error;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        axum::extract::Path::<i64>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path(id)| Id(id))
            .map_err(|_| Error::invalid(Code::InvalidId, "ids are whole numbers, like /api/sessions/12"))
    }
}

/// A `multipart/form-data` body; another content type or a malformed one answers 400
/// `invalid_upload` in Maru's shape (axum's own rejection is plain text).
pub struct Multipart(pub axum::extract::Multipart);

impl<S: Send + Sync> FromRequest<S> for Multipart {
    type Rejection = Error;
    async fn from_request(req: Request, state: &S) -> Result<Self, Error> {
        axum::extract::Multipart::from_request(req, state).await.map(Multipart).map_err(|rej| {
            Error::invalid(
                Code::InvalidUpload,
                format!("an upload is multipart/form-data with the file in a part named \"file\" ({})", rej.body_text()),
            )
        })
    }
}

/// The last guard of the `{code, message}` shape: an error that some layer answered as plain
/// text (a rejection Maru's extractors do not wrap) is wrapped here, its text as the message.
pub async fn json_errors(req: Request, next: axum::middleware::Next) -> Response {
    let res = next.run(req).await;
    let status = res.status();
    let is_json = res.headers().get(axum::http::header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return res;
    }
    let (parts, body) = res.into_parts();
    let text = match axum::body::to_bytes(body, 64 * 1024).await {
        Ok(b) => String::from_utf8_lossy(&b).trim().to_string(),
        Err(_) => String::new(),
    };
    let code = match status {
        // A body past a layer's own limit (`/mcp`'s, 4 MiB): the UI says so in its words.
        axum::http::StatusCode::PAYLOAD_TOO_LARGE => crate::error::Code::BodyTooLarge,
        s if s.is_server_error() => crate::error::Code::Internal,
        _ => crate::error::Code::InvalidRequest,
    };
    let message = if text.is_empty() { status.canonical_reason().unwrap_or("the request failed").to_lowercase() } else { text };
    let mut wrapped = (status, axum::Json(crate::error::ErrorBody::new(code, message))).into_response();
    for (name, value) in
        parts.headers.iter().filter(|(n, _)| *n != axum::http::header::CONTENT_TYPE && *n != axum::http::header::CONTENT_LENGTH)
    {
        wrapped.headers_mut().insert(name.clone(), value.clone());
    }
    wrapped
}
