//! `rlmkg bench batched`.

use super::{BenchArgs, BenchRow};

/// Run the batched benchmarks.
pub fn run(_args: &BenchArgs) -> anyhow::Result<Vec<BenchRow>> {
    anyhow::bail!("the batched benchmark is not built yet")
}
