//! A running `rlmkg serve` and the clients' whereabouts.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use rlmkg_tests::without_models;

/// The two-hop question of the sample corpus (q2 of `examples/QUESTIONS.md`).
pub const SKARVIK: &str =
    "In which city is the institute that organised the Skarvik Expedition located?";

/// A `rlmkg serve` process, killed when dropped.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Where its standard error goes.
    pub stderr: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// `rlmkg --store STORE serve --port 0 EXTRA…` in `dir` with no model
    /// installed and `env` set; waits until it says where it listens.
    pub fn start(dir: &Path, store: &Path, extra: &[&str], env: &[(&str, &str)]) -> Server {
        let stderr = dir.join(format!("serve-{}.err", std::process::id()));
        let mut cmd = without_models(dir);
        cmd.env_remove("RLMKG_SERVE_API_KEY");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .args(["--store", store.to_str().unwrap(), "serve", "--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let Some(url) = line.trim().strip_prefix("listening on ") else {
            let _ = child.kill();
            panic!(
                "rlmkg serve did not start: {line:?}\n{}",
                std::fs::read_to_string(&stderr).unwrap_or_default()
            );
        };
        Server {
            base: url.to_string(),
            child,
            stderr,
        }
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// What the server wrote to standard error so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

/// A blocking HTTP client with a generous timeout.
pub fn client() -> reqwest::blocking::Client {
    // reqwest is built without a bundled TLS provider (rlm-core's choice).
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

/// The python of the serve venv (`ci/serve-clients.sh`), or `None` with a
/// message saying why the test skips.
pub fn python() -> Option<PathBuf> {
    let p = std::env::var_os("RLMKG_SERVE_PYTHON")
        .map(PathBuf::from)
        .or_else(|| {
            let home = std::env::var_os("HOME")?;
            let cache = std::env::var_os("RLMKG_CI_CACHE")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(home).join(".cache").join("rlmkg-ci"));
            Some(cache.join("serve-venv").join("bin").join("python"))
        })?;
    if p.exists() {
        Some(p)
    } else {
        eprintln!(
            "skipping: no Python venv with the mcp SDK at {} (run ci/serve-clients.sh)",
            p.display()
        );
        None
    }
}

/// Headless Chromium, or `None` with a message saying why the test skips.
pub fn chromium() -> Option<PathBuf> {
    let p = std::env::var_os("RLMKG_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    if p.exists() {
        Some(p)
    } else {
        eprintln!(
            "skipping: no Chromium at {} (run ci/serve-clients.sh, or apt-get install chromium)",
            p.display()
        );
        None
    }
}

/// Where tests keep what they make for people to look at (screenshots):
/// `test-artifacts/` beside the binary under test.
pub fn artifacts() -> PathBuf {
    let dir = rlmkg_tests::bin()
        .parent()
        .map(|p| p.join("test-artifacts"))
        .unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
