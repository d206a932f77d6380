//! Agreement of the citation checker with WiCE human labels.
//!
//! `cargo run --release -p rlmkg-citation --example wice -- /work/shared/data/wice_dev.jsonl`

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: wice WICE.jsonl");
        return ExitCode::from(2);
    };
    let started = std::time::Instant::now();
    match rlmkg_citation::wice::evaluate(&path) {
        Ok(report) => {
            println!("{report}");
            println!("({:.2} s)", started.elapsed().as_secs_f64());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
