//! `rlmkg model`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg model`.
#[derive(Debug, Args)]
pub struct ModelArgs {}

/// Run `rlmkg model`.
pub fn run(_args: ModelArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg model` is not built yet")
}
