//! `rlmkg verify`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {}

/// Run `rlmkg verify`.
pub fn run(_args: VerifyArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg verify` is not built yet")
}
