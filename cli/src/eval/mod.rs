//! Evaluation on multi-hop QA datasets (SPEC §9): dataset converters, answer and
//! retrieval metrics, per-question scoring, and answer runs through the `ask`
//! engine, and the citation checker's agreement with WiCE labels. `cmd::eval`
//! drives it.

pub mod dataset;
pub mod metrics;
pub mod runner;
pub mod score;
pub mod seeds;
pub mod store;
pub mod wice;
