//! `rlmkg bench model`.

use super::{BenchArgs, BenchRow};

/// Run the model benchmarks.
pub fn run(_args: &BenchArgs) -> anyhow::Result<Vec<BenchRow>> {
    anyhow::bail!("the model benchmark is not built yet")
}
