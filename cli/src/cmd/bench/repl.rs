//! `rlmkg bench repl`.

use super::{BenchArgs, BenchRow};

/// Run the repl benchmarks.
pub fn run(_args: &BenchArgs) -> anyhow::Result<Vec<BenchRow>> {
    anyhow::bail!("the repl benchmark is not built yet")
}
