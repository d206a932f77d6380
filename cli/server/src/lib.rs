//! rlmkg where people work: an MCP server (stdio and streamable HTTP), an
//! HTTP API and a web page over one store.
//!
//! - [`ops`]: the operations both protocols share (search, read, entity,
//!   neighbors, path, related, ask, verify, stats, ingest), typed in and
//!   out, over the library crate `rlmkg`;
//! - [`mcp`]: the MCP tools ([`mcp::McpServer`]) and transports;
//! - [`http`]: `rlmkg serve`'s HTTP API with the MCP service at `/mcp` and
//!   the web page at `/`, behind its guards (Host check on loopback, API
//!   key, body and time limits, bounded runs);
//! - one shared open store, reopened when a writer commits (`store.rs`),
//!   and the run gate (`gate.rs`).
//!
//! The crate knows nothing of clap, settings files or printing: the binary
//! builds an [`ops::OpsConfig`] and an [`http::HttpConfig`] and reports
//! what [`http::Bound`] says.
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod gate;
pub mod http;
pub mod mcp;
pub mod ops;
mod schema;
mod store;
mod text;
mod web;

pub use gate::{Busy, Gate, Ticket};
pub use store::SharedStore;
pub use text::snippet;
