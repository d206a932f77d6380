//! `rlmkg bench ingest`.

use super::{BenchArgs, BenchRow};

/// Run the ingest benchmarks.
pub fn run(_args: &BenchArgs) -> anyhow::Result<Vec<BenchRow>> {
    anyhow::bail!("the ingest benchmark is not built yet")
}
