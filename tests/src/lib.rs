#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // test support: failing loudly is the point
//! Helpers for the end-to-end tests: locate the real `rlmkg` binary and run it
//! in a temporary directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Path of the `rlmkg` binary built next to the test executable.
///
/// `cargo test --workspace` builds it; the tests fail with a clear message when it
/// is missing rather than testing something else.
pub fn bin() -> PathBuf {
    if let Some(p) = std::env::var_os("RLMKG_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    // target/<profile>/deps/<test-exe> -> target/<profile>/rlmkg
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let path = dir.join(format!("rlmkg{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "rlmkg binary not found at {}; run the tests with `cargo test --workspace`",
        path.display()
    );
    path
}

/// Root of the repository (for `examples/` and `tests/fixtures/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// A fixture path under `tests/fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    repo_root().join("tests").join("fixtures").join(rel)
}

/// `../shared/data/<name>` when present (development data, absent for users).
pub fn shared_data(name: &str) -> Option<PathBuf> {
    let p = repo_root()
        .join("..")
        .join("shared")
        .join("data")
        .join(name);
    p.exists().then_some(p)
}

/// A command for the real binary, run in `cwd`, with no model configuration leaking
/// in from the environment.
pub fn rlmkg(cwd: &Path) -> Command {
    let mut cmd = Command::new(bin());
    cmd.current_dir(cwd);
    for var in [
        "RLMKG_API_KEY",
        "OPENAI_API_KEY",
        "RLMKG_BASE_URL",
        "RLMKG_MODEL",
        "RLMKG_STORE",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("NO_COLOR", "1");
    cmd
}

/// Run `rlmkg args…` in `cwd` and return its output.
pub fn run(cwd: &Path, args: &[&str]) -> Output {
    match rlmkg(cwd).args(args).output() {
        Ok(out) => out,
        Err(e) => panic!("could not run rlmkg: {e}"),
    }
}

/// Stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
