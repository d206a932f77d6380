//! `rlmkg config`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg config`.
#[derive(Debug, Args)]
pub struct ConfigArgs {}

/// Run `rlmkg config`.
pub fn run(_args: ConfigArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg config` is not built yet")
}
