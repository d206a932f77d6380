//! `rlmkg rm`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg rm`.
#[derive(Debug, Args)]
pub struct RmArgs {}

/// Run `rlmkg rm`.
pub fn run(_args: RmArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg rm` is not built yet")
}
