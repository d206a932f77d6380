//! `rlmkg bench repl`: REPL overhead per block (SPEC §10, target < 1 ms).
//!
//! Measures the wall time of trivial blocks in a warm session (the fixed cost of
//! feeding a block: compile, run on the blocking pool, collect output), a block that
//! makes one host call (one suspension and resume), and a small realistic block.

use std::time::Instant;

use rlm_core::testkit::FnHost;
use rlm_core::{NoHost, Repl, ReplLimits};
use serde_json::Value;

use crate::{BenchOptions, BenchRow};

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Run the repl benchmarks.
pub fn run(args: &BenchOptions) -> anyhow::Result<Vec<BenchRow>> {
    let rt = crate::runtime()?;
    let n = if args.quick { 200 } else { 2000 };
    let cases: [(&str, &str, bool); 3] = [
        ("trivial block (x = 1)", "x = 1", false),
        ("block with one host call", "y = echo(41) + 1", true),
        (
            "small realistic block",
            "hits = [{'id': f'c{i}', 'text': 'w ' * 20} for i in range(10)]\nprint([h['id'] for h in hits if 'w' in h['text']][:3])",
            false,
        ),
    ];
    let mut rows = Vec::new();
    rt.block_on(async {
        for (name, code, host) in cases {
            let mut repl = Repl::new(ReplLimits::default());
            let echo = FnHost::new("echo", |args| {
                args.into_iter().next().unwrap_or(Value::Null)
            });
            let mut times = Vec::with_capacity(n);
            for i in 0..n + 20 {
                let t = Instant::now();
                let r = if host {
                    repl.run(code, &echo).await
                } else {
                    repl.run(code, &NoHost).await
                };
                let us = t.elapsed().as_secs_f64() * 1e6;
                if let Some(e) = r.error {
                    anyhow::bail!("bench block failed: {e}");
                }
                if i >= 20 {
                    times.push(us);
                }
            }
            let mean = times.iter().sum::<f64>() / times.len() as f64;
            rows.push(BenchRow {
                area: "repl".into(),
                name: format!("{name}, median"),
                value: median(times) / 1000.0,
                unit: "ms".into(),
                target: Some("< 1 ms per block".into()),
                note: format!("{n} blocks in a warm session; mean {:.3} ms", mean / 1000.0),
            });
        }
        Ok(())
    })?;
    Ok(rows)
}
