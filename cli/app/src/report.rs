//! Reports the library hands back whole, shaped for `--json`.

use serde::{Deserialize, Serialize};

/// What `rlmkg --json ingest` prints (`S`: the summary, owned or borrowed):
/// the summary and the process's peak memory. `bench ingest` reads it back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IngestReport<S> {
    /// The ingest summary, its fields at the top level.
    #[serde(flatten)]
    pub summary: S,
    /// Peak resident set size in MB (Linux; null elsewhere).
    pub peak_rss_mb: Option<f64>,
}
