//! The end-to-end tests of the `rlmkg` binary, one test binary (linking
//! tantivy, candle and oxigraph once is what dominates their build): each
//! module is one concern, named as its file, and `serve` is a folder of its
//! own. The helpers they share are the package's library (`tests/src/lib.rs`).
//!
//! Tests that need something outside the repository (a llama.cpp server, a
//! GGUF model, Virtuoso, the serve tests' Python clients and Chromium) skip
//! with a printed reason when it is absent. Run one module with
//! `cargo test -p rlmkg-tests --test it -- llama_ask::`.

mod answer_check;
mod ask_e2e;
mod citation_planted;
mod citation_verify;
mod cli_snapshots;
mod closed_pipe;
mod dense;
mod embedded_cli;
mod embedded_model;
mod encoder;
mod endpoint_e2e;
mod eval_cli;
mod eval_wice;
mod graph_facts;
mod heuristic_cases;
mod hostile_cli;
mod ingest_tokenizer;
mod llama_ask;
mod map_e2e;
mod model_facts;
mod qwen_compose;
mod qwen_rlm;
mod qwen_verdicts;
mod rlm_config;
mod serve;
mod servers_e2e;
mod store_faults;
mod store_invariants;
mod types_sample;
