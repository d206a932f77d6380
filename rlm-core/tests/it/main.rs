//! rlm-core's integration tests, one binary (linking once is what dominates
//! their build): each module is one concern, named as its file; `common` holds
//! the shared scripted-server and in-memory corpus support.
//!
//! Tests that need something outside the repository (a llama.cpp server, the
//! `vllm-router` binary, llama-cpp-python) skip with a printed reason when it is
//! absent. Run one module with `cargo test -p rlm-core --test it -- pool_http::`.

mod batched_http;
mod common;
mod embedded_qwen2;
mod faults_http;
mod hostile_code;
mod hostile_runs;
mod hostile_servers;
mod llama_server;
mod loop_fences;
mod loop_http;
mod pool_http;
mod protocols;
mod repl_sandbox;
mod uncounted;
