//! `rlmkg stats`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {}

/// Run `rlmkg stats`.
pub fn run(_args: StatsArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg stats` is not built yet")
}
