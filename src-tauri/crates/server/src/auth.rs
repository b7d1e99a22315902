//! Who may talk to `maru serve`: requests must name a loopback host (so a web page on another
//! domain cannot reach us through DNS rebinding), and `/api` and `/mcp` requests must carry the
//! bearer token. `/mcp` also refuses a request a browser sent from another site (its `Origin`),
//! as the MCP specification asks of a local server: the token already keeps such a page out,
//! and this refuses it before it is read.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::error::{Code, Error, ErrorBody};

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
        allowed.iter().any(|a| a.eq_ignore_ascii_case(host(req)))
    }

    fn token_ok(&self, req: &Request) -> bool {
        let given = req.headers().get("authorization").and_then(|h| h.to_str().ok()).and_then(|h| h.strip_prefix("Bearer ")).unwrap_or("");
        // Constant time, so the token cannot be guessed byte by byte from response times.
        bool::from(given.as_bytes().ct_eq(self.token.as_bytes()))
    }
}

fn host(req: &Request) -> &str {
    req.headers().get("host").and_then(|h| h.to_str().ok()).unwrap_or("")
}

/// A request without `Origin` is not a browser's cross-site one (an MCP client sends none); one
/// with it must come from a page of this very server: `http://` and the Host it asked.
fn origin_ok(req: &Request) -> bool {
    let Some(origin) = req.headers().get("origin") else { return true };
    let origin = origin.to_str().unwrap_or("");
    let authority = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
    authority.is_some_and(|a| !a.is_empty() && a.eq_ignore_ascii_case(host(req)))
}

pub async fn check(State(guard): State<Guard>, req: Request, next: Next) -> Response {
    if !guard.host_ok(&req) {
        return Error::invalid(Code::BadHost, "this server only answers requests addressed to 127.0.0.1 or localhost").into_response();
    }
    let path = req.uri().path();
    let mcp = path == "/mcp" || path.starts_with("/mcp/");
    if mcp && !origin_ok(&req) {
        let body = ErrorBody::new(Code::BadOrigin, "this server only answers its own pages: a request another site's page sent is refused");
        return (StatusCode::FORBIDDEN, axum::Json(body)).into_response();
    }
    if (path.starts_with("/api/") || mcp) && !guard.token_ok(&req) {
        return Error::Unauthorized {
            message: "missing or wrong access token: send `Authorization: Bearer <token>` with the token `maru serve` printed at start"
                .into(),
        }
        .into_response();
    }
    next.run(req).await
}
