//! The `rlmkg` command-line tool. Only this crate prints.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = rlmkg::cli::Cli::parse();
    rlmkg::cli::run(cli)
}
