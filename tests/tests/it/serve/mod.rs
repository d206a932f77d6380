//! `rlmkg serve` and `rlmkg mcp` end to end (issue 29): the real binary over a
//! store ingested from the sample corpus, driven by real clients — an HTTP
//! client, the official Python MCP SDK over stdio and streamable HTTP,
//! headless Chromium on the web page — and under load while an ingest
//! commits. Tests that need the Python venv or Chromium skip with a message
//! when they are absent (`ci/serve-clients.sh` installs both; `.ci/run` runs it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod browser;
mod http;
mod load;
mod mcp;
mod support;
