//! `rlmkg path`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg path`.
#[derive(Debug, Args)]
pub struct PathArgs {}

/// Run `rlmkg path`.
pub fn run(_args: PathArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg path` is not built yet")
}
