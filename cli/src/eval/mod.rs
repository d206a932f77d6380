//! Evaluation on multi-hop QA datasets (SPEC §9): dataset converters, answer and
//! retrieval metrics, per-question scoring, and answer runs through the `ask`
//! engine. The `rlmkg eval` command drives it (and scores WiCE files itself).

pub mod dataset;
pub mod metrics;
pub mod runner;
pub mod score;
pub mod seeds;
pub mod store;
