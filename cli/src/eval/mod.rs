//! Evaluation on multi-hop QA datasets (SPEC §9): dataset converters, answer and
//! retrieval metrics, and per-question scoring. `cmd::eval` drives it.

pub mod dataset;
pub mod metrics;
pub mod score;
pub mod seeds;
pub mod store;
