//! The API without a socket: the desktop window's requests go through the very router `maru serve`
//! runs, in-process. Every route therefore exists on both sides by construction (one definition:
//! the handler and its `#[utoipa::path]`), with the same limits, errors and event streams, and the
//! window needs no listening port. The token stays inside the process.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, Method, Request};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tower::ServiceExt;

use super::{generate_token, router, Guard, Ui};
use crate::app::App;
use crate::error::{Code, Error, Result};

/// One request, as the page describes it.
pub struct LocalRequest {
    pub method: String,
    /// `/api/...`, with its query string.
    pub path: String,
    pub content_type: Option<String>,
    pub accept: Option<String>,
    pub body: Vec<u8>,
}

#[derive(Clone)]
pub struct Local {
    router: Router,
    token: Arc<str>,
}

impl Local {
    pub fn new(app: Arc<App>) -> Local {
        let token = generate_token();
        let guard = Guard::new(&token, 0, false);
        Local { router: router(app, guard, Ui::None), token: token.into() }
    }

    /// Answers as the HTTP server would; a status other than 2xx carries the usual `{code, message}`.
    pub async fn call(&self, req: LocalRequest) -> Response {
        match self.request(req) {
            // The router's error type is Infallible: every failure is already a response.
            Ok(request) => self.router.clone().oneshot(request).await.unwrap_or_else(|never| match never {}),
            Err(e) => e.into_response(),
        }
    }

    fn request(&self, req: LocalRequest) -> Result<Request<Body>> {
        // Only the API: the window's own assets come from the binary, not from here.
        if !req.path.starts_with("/api/") {
            return Err(Error::invalid(Code::NoSuchRoute, format!("{} is not an API path", req.path)));
        }
        let method = Method::from_bytes(req.method.as_bytes())
            .map_err(|_| Error::invalid(Code::BadMethod, format!("{:?} is not an HTTP method", req.method)))?;
        let mut builder = Request::builder()
            .method(method)
            .uri(&req.path)
            .header(header::HOST, "127.0.0.1")
            .header(header::AUTHORIZATION, format!("Bearer {}", self.token));
        if let Some(ct) = req.content_type.filter(|c| !c.is_empty()) {
            builder = builder.header(header::CONTENT_TYPE, ct);
        }
        if let Some(accept) = req.accept.filter(|a| !a.is_empty()) {
            builder = builder.header(header::ACCEPT, accept);
        }
        builder.body(Body::from(req.body)).map_err(|e| Error::invalid(Code::BadRequest, format!("the request cannot be built: {e}")))
    }
}
