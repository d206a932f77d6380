//! `rlmkg bench graph`.

use super::{BenchArgs, BenchRow};

/// Run the graph benchmarks.
pub fn run(_args: &BenchArgs) -> anyhow::Result<Vec<BenchRow>> {
    anyhow::bail!("the graph benchmark is not built yet")
}
