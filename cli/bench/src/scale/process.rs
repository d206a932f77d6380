//! One measured run of the `rlmkg` binary in a new process: its wall time,
//! its output and its peak resident set size.
//!
//! The peak is the child's `VmHWM` (`/proc/<pid>/status`), sampled every
//! [`SAMPLE`] while it runs: a process's memory is gone from `/proc` once it
//! has exited, and the per-child `wait4` rusage needs `unsafe` (which the
//! workspace denies). `VmHWM` is the kernel's own high-water mark, so a
//! sample misses only what the child grows in its last [`SAMPLE`].

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;

/// How often the child's high-water mark is read.
pub const SAMPLE: Duration = Duration::from_millis(5);

/// What a measured run gave.
#[derive(Debug)]
pub struct Measured {
    /// Wall seconds from spawn to exit.
    pub secs: f64,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Peak resident set size in MB, if `/proc` showed it.
    pub peak_rss_mb: Option<f64>,
}

/// `VmHWM` of process `pid`, in MB.
fn hwm_mb(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Run `exe ARGS…` with no embedded model installed (the figures are the
/// store's, not a model's) and measure it, its memory only when `sample`
/// (a short run is timed without the sampling's 5 ms steps); an exit other
/// than success is an error carrying its standard error.
pub fn measure(
    exe: &Path,
    args: &[&str],
    no_models: &Path,
    sample: bool,
) -> anyhow::Result<Measured> {
    let what = || format!("rlmkg {}", args.join(" "));
    std::fs::create_dir_all(no_models)
        .with_context(|| format!("creating {}", no_models.display()))?;
    let mut cmd = Command::new(exe);
    cmd.env("RLMKG_MODEL_DIR", no_models)
        .args(args)
        .stdin(Stdio::null());
    let t = Instant::now();
    if !sample {
        let out = cmd
            .output()
            .with_context(|| format!("running {}", what()))?;
        let secs = t.elapsed().as_secs_f64();
        anyhow::ensure!(
            out.status.success(),
            "{} failed ({}): {}",
            what(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
        return Ok(Measured {
            secs,
            stdout: out.stdout,
            peak_rss_mb: None,
        });
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("running {}", what()))?;
    let pid = child.id();
    // The pipes are drained on threads of their own, so a child that writes
    // much never waits on a full pipe while it is being sampled.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let mut peak: Option<f64> = None;
    let status = loop {
        if let Some(mb) = hwm_mb(pid) {
            peak = Some(peak.map_or(mb, |p| p.max(mb)));
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => std::thread::sleep(SAMPLE),
            Err(e) => return Err(e).with_context(|| format!("waiting for {}", what())),
        }
    };
    let secs = t.elapsed().as_secs_f64();
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    anyhow::ensure!(
        status.success(),
        "{} failed ({status}): {}",
        what(),
        String::from_utf8_lossy(&stderr).trim()
    );
    Ok(Measured {
        secs,
        stdout,
        peak_rss_mb: peak,
    })
}
