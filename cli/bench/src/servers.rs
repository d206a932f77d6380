//! `rlmkg bench servers`: sub-calls spread over several model servers
//! (issue 31). One `llm_query_batched` of N = 64 prompts through the real
//! loop and HTTP client, against local chat-completions servers that work on
//! at most 8 requests at once (as a model server with 8 slots does, and says
//! at `GET /props`) and take L = 200 ms a call: one server, then a pool of
//! two ([`rlm_core::PoolModel`]), then two with one failing every call, then
//! two with one killed once calls are in flight. The fan-out is left to the
//! run (the servers' slots). The issue-31 target: two servers finish in about
//! half the time of one.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rlm_core::testkit::{ChatServer, Reply};
use rlm_core::{LanguageModel, PoolModel, RlmConfig};
use serde_json::Value;

use crate::batched::{client, run_batch};
use crate::{BenchOptions, BenchRow};

/// Slots of each server.
const SLOTS: usize = 8;

/// Sub-calls in the batch.
const N: usize = 64;

/// A sub-model server of `SLOTS` slots answering `ok` after `latency`.
fn sub_server(latency: Duration) -> anyhow::Result<ChatServer> {
    Ok(ChatServer::start_serving(SLOTS, move |_: &Value, _| {
        Reply::Delay(latency, Box::new(Reply::Text("ok".into())))
    })?)
}

/// The batch's wall time in ms with `sub` as the sub-model, after checking
/// that every call was answered; and the fan-out the run chose.
fn batch(
    rt: &tokio::runtime::Runtime,
    work: &std::path::Path,
    sub: Arc<dyn LanguageModel>,
) -> anyhow::Result<(f64, usize)> {
    let trace = work.join("servers-trace.jsonl");
    let (block, fan_out) = run_batch(rt, RlmConfig::default(), N, &trace, sub)?;
    Ok((block.elapsed_ms as f64, fan_out))
}

fn pool(urls: &[String]) -> anyhow::Result<Arc<dyn LanguageModel>> {
    let members = urls
        .iter()
        .map(|u| client(u))
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Arc::new(PoolModel::new(members)?))
}

/// Run the servers benchmarks.
pub fn run(args: &BenchOptions) -> anyhow::Result<Vec<BenchRow>> {
    let rt = crate::runtime()?;
    let latency_ms = args.latency_ms();
    let latency = Duration::from_millis(latency_ms);
    let work = &args.work_dir;
    let ideal_one = N.div_ceil(SLOTS) as f64 * latency_ms as f64;
    let row = |name: &str, ms: f64, target: Option<String>, note: String| BenchRow {
        area: "servers".into(),
        name: format!("N={N} L={latency_ms}ms {SLOTS} slots each: {name}"),
        value: ms,
        unit: "ms".into(),
        target,
        note,
    };
    let mut rows = Vec::new();

    let one = sub_server(latency)?;
    let (one_ms, fan) = batch(&rt, work, client(&one.base_url())?)?;
    rows.push(row(
        "1 server",
        one_ms,
        Some(format!("≈ {ideal_one:.0} ms (ideal)")),
        format!("fan-out {fan}"),
    ));

    let (a, b) = (sub_server(latency)?, sub_server(latency)?);
    let (two_ms, fan) = batch(&rt, work, pool(&[a.base_url(), b.base_url()])?)?;
    rows.push(row(
        "2 servers",
        two_ms,
        Some(format!("≈ {:.0} ms (half of 1 server)", one_ms / 2.0)),
        format!("{:.2}× the 1-server time, fan-out {fan}", two_ms / one_ms),
    ));

    let failing = ChatServer::start(|_: &Value, _| Reply::Status(500, None, "down".into()))?;
    let good = sub_server(latency)?;
    let (ms, _) = batch(&rt, work, pool(&[failing.base_url(), good.base_url()])?)?;
    rows.push(row(
        "2 servers, one failing every call",
        ms,
        Some(format!("≈ {one_ms:.0} ms (1 server), no call lost")),
        format!(
            "{:.2}× the 1-server time; the failing server got {} calls",
            ms / one_ms,
            failing.requests().len()
        ),
    ));

    let (a, b) = (Arc::new(sub_server(latency)?), sub_server(latency)?);
    let victim = Arc::clone(&a);
    let killer = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(30);
        while victim.requests().len() < SLOTS && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        victim.kill();
    });
    let (ms, _) = batch(&rt, work, pool(&[a.base_url(), b.base_url()])?)?;
    let _ = killer.join();
    rows.push(row(
        "2 servers, one killed mid-run",
        ms,
        Some(format!("≤ {one_ms:.0} ms (1 server), no call lost")),
        format!(
            "{:.2}× the 1-server time; {} calls were sent to the killed server",
            ms / one_ms,
            a.requests().len()
        ),
    ));
    Ok(rows)
}
