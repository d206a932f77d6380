//! The guards every request passes, outermost first: the `Host` check (on a
//! loopback bind, against DNS rebinding), the `Origin` check (a page of
//! another site may not use the server through its visitor's browser), the
//! API key (constant-time), the request time limit and the body size limit.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt as _;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::error::ApiError;

/// An API key. Kept only as its SHA-256 digest, compared in constant time;
/// it never appears in `Debug` output or in messages.
#[derive(Clone)]
pub struct ApiKey {
    digest: [u8; 32],
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(hidden)")
    }
}

/// An API key that cannot be one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the API key is empty or contains whitespace or control characters inside it")]
pub struct BadKey;

impl ApiKey {
    /// The key `secret` (surrounding whitespace, such as a key file's final
    /// newline, is dropped).
    pub fn new(secret: &str) -> Result<ApiKey, BadKey> {
        let s = secret.trim();
        if s.is_empty() || s.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(BadKey);
        }
        Ok(ApiKey {
            digest: Sha256::digest(s.as_bytes()).into(),
        })
    }

    /// Whether `given` is the key: the digests are compared in constant
    /// time, so neither the key's length nor its bytes leak through timing.
    pub fn matches(&self, given: &[u8]) -> bool {
        let d: [u8; 32] = Sha256::digest(given).into();
        bool::from(self.digest.ct_eq(&d))
    }
}

/// What the guards check.
#[derive(Debug, Clone)]
pub struct Guards {
    /// Accept only loopback `Host` names (the server is bound to loopback).
    pub loopback_hosts: bool,
    /// The key requests must carry, when one is set.
    pub key: Option<ApiKey>,
    /// The largest request body.
    pub max_body: usize,
    /// The longest a request may take before its response starts.
    pub timeout: Duration,
}

/// Paths served without a key: the page and its files, and the health check.
fn is_public(path: &str) -> bool {
    matches!(path, "/" | "/app.js" | "/style.css" | "/healthz")
}

/// The host of a `Host` header value, without its port.
fn host_name(value: &str) -> &str {
    if let Some(rest) = value.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match value.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => value,
    }
}

/// Whether a `Host` header names this machine's loopback.
fn is_loopback_host(value: &str) -> bool {
    let host = host_name(value.trim());
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether a request's `Origin` (when it has one) is this server itself: a
/// browser sends it with every cross-site request, so a page of another
/// site cannot make a browser run asks or reads here on its user's behalf.
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let authority = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, rest)| rest.trim_end_matches('/'));
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    matches!((authority, host), (Some(a), Some(h)) if a.eq_ignore_ascii_case(h.trim()))
}

/// The key a request carries: `Authorization: Bearer KEY` or `x-api-key: KEY`.
fn given_key(headers: &HeaderMap) -> Option<&[u8]> {
    if let Some(v) = headers.get(header::AUTHORIZATION) {
        let v = v.as_bytes();
        let scheme = b"bearer ";
        if v.len() > scheme.len() && v[..scheme.len()].eq_ignore_ascii_case(scheme) {
            return Some(v[scheme.len()..].trim_ascii());
        }
    }
    headers.get("x-api-key").map(|v| v.as_bytes().trim_ascii())
}

/// The Host check and the key check.
pub async fn check_access(
    State(guards): State<Arc<Guards>>,
    request: Request,
    next: Next,
) -> Response {
    if guards.loopback_hosts
        && let Some(host) = request.headers().get(header::HOST)
        && !host.to_str().is_ok_and(is_loopback_host)
    {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "this server is bound to loopback and answers only requests for localhost \
             (the Host header names another host)",
        )
        .into_response();
    }
    if !same_origin(request.headers()) {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "cross-origin requests are refused: the Origin header names another site",
        )
        .into_response();
    }
    if let Some(key) = &guards.key
        && !is_public(request.uri().path())
        && !given_key(request.headers()).is_some_and(|k| key.matches(k))
    {
        let mut response = ApiError::new(
            StatusCode::UNAUTHORIZED,
            "missing or wrong API key: send it as `Authorization: Bearer KEY` or `x-api-key: KEY`",
        )
        .into_response();
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return response;
    }
    next.run(request).await
}

/// The time limit: a request whose response has not started within it gets
/// 503 (a streamed response, once started, is bounded by its run's budget).
pub async fn limit_time(
    State(guards): State<Arc<Guards>>,
    request: Request,
    next: Next,
) -> Response {
    match tokio::time::timeout(guards.timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the request took longer than the server's limit of {} s",
                guards.timeout.as_secs_f64()
            ),
        )
        .into_response(),
    }
}

/// The most of an oversized body read and thrown away before answering 413,
/// so that a client still sending gets the answer rather than a reset.
const DRAIN_MAX: usize = 64 << 20;
/// The longest spent throwing an oversized body away.
const DRAIN_TIME: Duration = Duration::from_secs(10);

/// 413, closing the connection.
fn too_large(max: usize) -> Response {
    let mut response = ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body is larger than the server's limit of {max} bytes"),
    )
    .into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Read and drop what is left of a body, up to [`DRAIN_MAX`] bytes and
/// [`DRAIN_TIME`].
async fn drain(mut stream: impl futures::Stream<Item = Result<Bytes, axum::Error>> + Unpin) {
    let drained = async {
        let mut seen = 0usize;
        while let Some(Ok(chunk)) = stream.next().await {
            seen = seen.saturating_add(chunk.len());
            if seen > DRAIN_MAX {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_TIME, drained).await;
}

/// The size limit: the body is read whole (every route takes a small one)
/// up to `max_body`; a larger one is drained and answered with 413.
pub async fn limit_body(
    State(guards): State<Arc<Guards>>,
    request: Request,
    next: Next,
) -> Response {
    let max = guards.max_body;
    let (parts, body) = request.into_parts();
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let mut stream = body.into_data_stream();
    if declared.is_some_and(|n| n > max as u64) {
        let expects = parts.headers.contains_key(header::EXPECT);
        // A client waiting for `100 Continue` has sent nothing yet.
        if !expects && declared.is_some_and(|n| n <= DRAIN_MAX as u64) {
            drain(stream).await;
        }
        return too_large(max);
    }
    let mut buf: Vec<u8> = Vec::new();
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(c) if buf.len().saturating_add(c.len()) > max => {
                drain(stream).await;
                return too_large(max);
            }
            Ok(c) => buf.extend_from_slice(&c),
            Err(_) => {
                return ApiError::bad_request("the request body could not be read").into_response();
            }
        }
    }
    next.run(Request::from_parts(parts, Body::from(buf))).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_with_and_without_ports() {
        for ok in [
            "localhost",
            "LOCALHOST:8765",
            "127.0.0.1:80",
            "127.1.2.3",
            "[::1]:8765",
            "[::1]",
        ] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8765",
            "10.0.0.1:80",
            "localhost.evil.example",
            "[::2]:1",
            "",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn keys_match_only_themselves_and_never_show() {
        let key = ApiKey::new("s3cret-key\n").expect("a key");
        assert!(key.matches(b"s3cret-key"));
        assert!(!key.matches(b"s3cret-kex"));
        assert!(!key.matches(b"s3cret-key-longer"));
        assert!(!key.matches(b""));
        assert!(!format!("{key:?}").contains("s3cret"));
        assert_eq!(ApiKey::new("  \n").err(), Some(BadKey));
        assert_eq!(ApiKey::new("two words").err(), Some(BadKey));
    }

    #[test]
    fn only_the_servers_own_origin_or_none_is_let_through() {
        let with = |origin: Option<&'static str>, host: &'static str| {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, HeaderValue::from_static(host));
            if let Some(o) = origin {
                h.insert(header::ORIGIN, HeaderValue::from_static(o));
            }
            same_origin(&h)
        };
        assert!(with(None, "127.0.0.1:8765"));
        assert!(with(Some("http://127.0.0.1:8765"), "127.0.0.1:8765"));
        assert!(with(Some("http://LOCALHOST:8765"), "localhost:8765"));
        assert!(!with(Some("https://evil.example"), "127.0.0.1:8765"));
        assert!(!with(Some("http://127.0.0.1:9999"), "127.0.0.1:8765"));
        assert!(!with(Some("null"), "127.0.0.1:8765"));
    }

    #[test]
    fn keys_come_from_bearer_or_x_api_key() {
        let mut h = HeaderMap::new();
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer abc"),
        );
        assert_eq!(given_key(&h), Some(&b"abc"[..]));
        let mut h = HeaderMap::new();
        h.insert("x-api-key", HeaderValue::from_static("abc"));
        assert_eq!(given_key(&h), Some(&b"abc"[..]));
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(given_key(&h), None);
    }
}
