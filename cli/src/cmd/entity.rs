//! `rlmkg entity`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg entity`.
#[derive(Debug, Args)]
pub struct EntityArgs {}

/// Run `rlmkg entity`.
pub fn run(_args: EntityArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg entity` is not built yet")
}
