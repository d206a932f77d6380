//! One module per subcommand. Each exposes `XArgs` (clap) and
//! `run(args, &GlobalArgs) -> anyhow::Result<u8>` returning the exit code.

pub mod ask;
pub mod bench;
pub mod config;
pub mod entity;
pub mod eval;
pub mod eval_wice;
pub mod export;
pub mod generate;
pub mod graph_check;
pub mod ingest;
pub mod mcp;
pub mod model;
pub mod path;
pub mod rm;
pub mod search;
pub mod serve;
pub mod sparql;
pub mod stats;
pub mod trace;
pub mod verify;

use std::path::Path;

use rlmkg_settings::{ModelArgs, Settings};

use crate::cli::exit;

/// Resolve a command's settings ([`rlmkg_settings::resolve`]), warning about
/// each key of the store's own config that the trust rule set aside.
pub fn settings(args: &ModelArgs, store: &Path) -> anyhow::Result<Settings> {
    let s = rlmkg_settings::resolve(args, store)?;
    for (key, file) in s.ignored() {
        eprintln!(
            "warning: ignoring {key} from {} (a store's own config may not choose endpoints, keys \
             or files; pass --trust-store-config or set RLMKG_TRUST_STORE_CONFIG=1 to allow it)",
            file.display()
        );
    }
    Ok(s)
}

/// An error that carries its own exit code (SPEC §8); anything else maps to 2.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ExitError {
    /// The exit code.
    pub code: u8,
    /// What to print.
    pub message: String,
}

impl ExitError {
    /// A model or backend failure (exit 3).
    pub fn backend(message: impl Into<String>) -> anyhow::Error {
        Self {
            code: exit::BACKEND,
            message: message.into(),
        }
        .into()
    }
}

/// The exit code for an error: its own if it carries one, else 2 (usage or input).
pub fn classify_error(err: &anyhow::Error) -> u8 {
    err.chain()
        .find_map(|e| e.downcast_ref::<ExitError>().map(|x| x.code))
        .unwrap_or(exit::USAGE)
}
