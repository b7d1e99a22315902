//! Request extractors whose failures answer in Maru's `{code, message}` shape, and the
//! conversion of [`Error`] into an HTTP response.

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;

use crate::error::Error;

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        if let Error::Internal(e) = &self {
            tracing::error!(error = format!("{e:#}"), "internal error");
        }
        let status = StatusCode::from_u16(self.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut res = (status, axum::Json(self.body())).into_response();
        if status == StatusCode::UNAUTHORIZED {
            res.headers_mut().insert("www-authenticate", "Bearer".parse().expect("static header"));
        }
        res
    }
}

/// A JSON body; malformed JSON or wrong fields answer 400 `invalid_json`.
pub struct Json<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Json<T> {
    type Rejection = Error;
    async fn from_request(req: Request, state: &S) -> Result<Self, Error> {
        axum::Json::<T>::from_request(req, state).await.map(|axum::Json(v)| Json(v)).map_err(|rej| match rej.status() {
            StatusCode::PAYLOAD_TOO_LARGE => Error::invalid(
                "body_too_large",
                format!(
                    "the request body is larger than Maru accepts ({} MiB); attach long text as a file instead",
                    super::BODY_MAX_BYTES >> 20
                ),
            ),
            _ => Error::invalid("invalid_json", rej.body_text()),
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
            .map_err(|rej| Error::invalid("invalid_query", rej.body_text()))
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
            .map_err(|_| Error::invalid("invalid_id", "ids are whole numbers, like /api/sessions/12"))
    }
}
