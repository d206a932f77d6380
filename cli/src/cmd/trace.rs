//! `rlmkg trace`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg trace`.
#[derive(Debug, Args)]
pub struct TraceArgs {}

/// Run `rlmkg trace`.
pub fn run(_args: TraceArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg trace` is not built yet")
}
