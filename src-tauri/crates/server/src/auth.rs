//! Who may talk to `maru serve`: requests must name a loopback host (so a web page on another
//! domain cannot reach us through DNS rebinding) and `/api` requests must carry the bearer token.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::error::{Code, Error};

#[derive(Clone)]
pub struct Guard {
    token: Arc<str>,
    /// `None` when remote access was allowed: any Host is accepted.
    allowed_hosts: Option<Arc<[String]>>,
}

impl Guard {
    pub fn new(token: &str, port: u16, allow_remote: bool) -> Guard {
        let allowed_hosts = (!allow_remote).then(|| {
            ["127.0.0.1", "localhost", "[::1]"].iter().flat_map(|h| [format!("{h}:{port}"), h.to_string()]).collect::<Vec<_>>().into()
        });
        Guard { token: token.into(), allowed_hosts }
    }

    fn host_ok(&self, req: &Request) -> bool {
        let Some(allowed) = &self.allowed_hosts else { return true };
        let host = req.headers().get("host").and_then(|h| h.to_str().ok()).unwrap_or("");
        allowed.iter().any(|a| a.eq_ignore_ascii_case(host))
    }

    fn token_ok(&self, req: &Request) -> bool {
        let given = req.headers().get("authorization").and_then(|h| h.to_str().ok()).and_then(|h| h.strip_prefix("Bearer ")).unwrap_or("");
        // Constant time, so the token cannot be guessed byte by byte from response times.
        bool::from(given.as_bytes().ct_eq(self.token.as_bytes()))
    }
}

pub async fn check(State(guard): State<Guard>, req: Request, next: Next) -> Response {
    if !guard.host_ok(&req) {
        return Error::invalid(Code::BadHost, "this server only answers requests addressed to 127.0.0.1 or localhost").into_response();
    }
    if req.uri().path().starts_with("/api/") && !guard.token_ok(&req) {
        return Error::Unauthorized {
            message: "missing or wrong access token: send `Authorization: Bearer <token>` with the token `maru serve` printed at start"
                .into(),
        }
        .into_response();
    }
    next.run(req).await
}
