//! One module per subcommand. Each exposes `XArgs` (clap) and
//! `run(args, &GlobalArgs) -> anyhow::Result<u8>` returning the exit code.

pub mod ask;
pub mod bench;
pub mod config;
pub mod entity;
pub mod eval;
pub mod eval_wice;
pub mod export;
pub mod ingest;
pub mod model;
pub mod path;
pub mod rm;
pub mod search;
pub mod sparql;
pub mod stats;
pub mod trace;
pub(crate) mod usage;
pub mod verify;

use crate::cli::exit;

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
