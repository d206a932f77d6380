//! `rlmkg export`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg export`.
#[derive(Debug, Args)]
pub struct ExportArgs {}

/// Run `rlmkg export`.
pub fn run(_args: ExportArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg export` is not built yet")
}
