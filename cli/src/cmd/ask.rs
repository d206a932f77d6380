//! `rlmkg ask`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg ask`.
#[derive(Debug, Args)]
pub struct AskArgs {}

/// Run `rlmkg ask`.
pub fn run(_args: AskArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg ask` is not built yet")
}
