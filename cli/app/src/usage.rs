//! What this process has used so far, from `/proc` (Linux; `None` elsewhere).

/// Peak resident set size of this process, in MB (VmHWM).
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// CPU seconds (user + system, all threads) this process and its waited-for
/// children have used so far, from `/proc/self/stat` (clock ticks of 1/100 s).
pub fn cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which may hold spaces) in parentheses:
    // utime, stime, cutime, cstime from the 12th on.
    let rest = stat.rsplit_once(')')?.1;
    let ticks: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(4)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    (ticks.len() == 4).then(|| ticks.iter().sum::<f64>() / 100.0)
}
