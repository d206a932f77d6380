//! `rlmkg search`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg search`.
#[derive(Debug, Args)]
pub struct SearchArgs {}

/// Run `rlmkg search`.
pub fn run(_args: SearchArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg search` is not built yet")
}
