//! `rlmkg serve`: the HTTP API, the MCP streamable-HTTP service at `/mcp`
//! and the web page at `/`, behind the guards of `guard.rs`.
//!
//! | route | what |
//! |---|---|
//! | `GET /` | the web page (no key needed) |
//! | `GET /healthz` | `{"status": "ok"}` (no key needed) |
//! | `POST /v1/ask` | `{"question", "strategy"?, "strict"?, "max_iterations"?, "max_seconds"?, "max_sub_calls"?, "stream"?}` → the answer of `ask --json`, or NDJSON events (`ask.rs`) |
//! | `POST /v1/verify` | `{"answer"}` → the checker's report |
//! | `GET /v1/search?q=&k=` | BM25 hits |
//! | `GET /v1/read/{id}` | a chunk, sentence or range with its sentences |
//! | `GET /v1/entity/{name}?k=&relation=` | an entity, neighbors, chunks |
//! | `GET /v1/neighbors/{entity}`, `/v1/facts/{entity}`, `/v1/path?from=&to=`, `/v1/related?q=`, `/v1/stats` | the other reads |
//! | `/mcp` | MCP over streamable HTTP |
//!
//! Errors are JSON, `{"error": {"status", "message"}}`: 400 malformed, 401
//! no or wrong key, 403 a foreign `Host` on a loopback bind or a foreign
//! `Origin`, 404 unknown id, name or route, 413 body too large, 503 busy or
//! too slow (with `Retry-After`).

mod ask;
mod error;
mod guard;
mod routes;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};

pub use error::ApiError;
pub use guard::{ApiKey, BadKey};

use crate::ops::Ops;

/// How `rlmkg serve` listens.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The address to bind.
    pub bind: IpAddr,
    /// The port (0: any free port).
    pub port: u16,
    /// The API key requests must carry (required off loopback).
    pub api_key: Option<ApiKey>,
    /// The largest request body, in bytes.
    pub max_body: usize,
    /// The longest a request may take before its response starts.
    pub request_timeout: Duration,
}

/// Errors of starting or running the server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A bind beyond loopback without an API key.
    #[error(
        "refusing to serve on {0} without an API key: anyone who can reach this address could \
         read the store and run models. Give a key with --api-key-file FILE or the \
         RLMKG_SERVE_API_KEY environment variable, or bind to 127.0.0.1"
    )]
    KeyRequired(IpAddr),
    /// The address could not be bound.
    #[error("binding {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The server stopped on an I/O error.
    #[error("serving: {0}")]
    Io(#[from] std::io::Error),
}

/// A server bound to its address, ready to run.
#[derive(Debug)]
pub struct Bound {
    listener: tokio::net::TcpListener,
    router: Router,
    addr: SocketAddr,
}

/// The routes over `ops`, behind `guards`.
fn router(ops: Arc<Ops>, guards: Arc<guard::Guards>) -> Router {
    let api = Router::new()
        .route("/healthz", get(routes::healthz))
        .route("/v1/ask", post(ask::ask))
        .route("/v1/verify", post(routes::verify))
        .route("/v1/search", get(routes::search))
        .route("/v1/read/{id}", get(routes::read))
        .route("/v1/entity/{name}", get(routes::entity))
        .route("/v1/neighbors/{entity}", get(routes::neighbors))
        .route("/v1/facts/{entity}", get(routes::facts))
        .route("/v1/path", get(routes::path))
        .route("/v1/related", get(routes::related))
        .route("/v1/stats", get(routes::stats))
        .with_state(Arc::clone(&ops));
    let mcp = crate::mcp::http_service(ops, guards.max_body);
    Router::new()
        .merge(crate::web::routes())
        .merge(api)
        .nest_service("/mcp", mcp)
        .fallback(routes::not_found)
        // Layers run outside in, the last added first.
        .layer(from_fn_with_state(Arc::clone(&guards), guard::limit_body))
        .layer(from_fn_with_state(Arc::clone(&guards), guard::limit_time))
        .layer(from_fn_with_state(guards, guard::check_access))
}

impl Bound {
    /// Bind the server over `ops` as `config` says. A bind beyond loopback
    /// without an API key is refused ([`ServeError::KeyRequired`]).
    pub async fn bind(ops: Arc<Ops>, config: HttpConfig) -> Result<Bound, ServeError> {
        let loopback = config.bind.is_loopback();
        if !loopback && config.api_key.is_none() {
            return Err(ServeError::KeyRequired(config.bind));
        }
        let addr = SocketAddr::new(config.bind, config.port);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        let addr = listener.local_addr()?;
        let guards = Arc::new(guard::Guards {
            loopback_hosts: loopback,
            key: config.api_key,
            max_body: config.max_body,
            timeout: config.request_timeout,
        });
        Ok(Bound {
            listener,
            router: router(ops, guards),
            addr,
        })
    }

    /// The address bound (with the port chosen when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serve until `shutdown` completes.
    pub async fn run(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(shutdown)
            .await?;
        Ok(())
    }
}
