//! `rlmkg eval`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {}

/// Run `rlmkg eval`.
pub fn run(_args: EvalArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg eval` is not built yet")
}
