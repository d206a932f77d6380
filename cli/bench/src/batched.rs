//! `rlmkg bench batched`: `llm_query_batched` wall time against the ideal
//! ⌈N / concurrency⌉ · L (SPEC §10), using a local chat-completions server on
//! 127.0.0.1 with a fixed latency L per call and the real HTTP client and loop.
//! Rows with `concurrency=default` leave the fan-out to the run (the server says
//! nothing, so the backend kind's default applies); the issue-15 target is
//! 64 × 200 ms at defaults ≤ 1 s.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rlm_core::testkit::{ChatServer, Reply, is_root_request};
use rlm_core::trajectory::TraceBlock;
use rlm_core::{
    ContextHandle, CorpusMetadata, HandleError, HandleFunction, HandleReply, LanguageModel,
    OpenAiConfig, OpenAiModel, Rlm, RlmConfig,
};
use serde_json::{Map, Value};

use crate::{BenchOptions, BenchRow};

/// A corpus with nothing in it: the benchmark only exercises sub-calls.
pub(crate) struct EmptyHandle;

impl ContextHandle for EmptyHandle {
    fn functions(&self) -> Vec<HandleFunction> {
        Vec::new()
    }
    fn call(
        &self,
        name: &str,
        _: &[Value],
        _: &Map<String, Value>,
    ) -> Result<HandleReply, HandleError> {
        Err(HandleError::UnknownFunction(name.to_string()))
    }
    fn metadata(&self) -> CorpusMetadata {
        CorpusMetadata::default()
    }
    fn corpus_text(&self, _: usize) -> Option<String> {
        None
    }
    fn scoped(&self, _: &[String]) -> Result<Arc<dyn ContextHandle>, HandleError> {
        Ok(Arc::new(EmptyHandle))
    }
}

/// Run the batched benchmarks.
pub fn run(args: &BenchOptions) -> anyhow::Result<Vec<BenchRow>> {
    let rt = crate::runtime()?;
    let latency_ms = args.latency_ms();
    let settings: &[(usize, Option<usize>)] = if args.quick {
        &[(32, Some(8)), (64, None)]
    } else {
        &[
            (32, Some(8)),
            (64, Some(8)),
            (64, Some(16)),
            (100, Some(10)),
            (64, None),
        ]
    };
    let mut rows = Vec::new();
    let latency = Duration::from_millis(latency_ms);
    for &(n, concurrency) in settings {
        let sub = ChatServer::start(move |_: &Value, _| {
            Reply::Delay(latency, Box::new(Reply::Text("ok".into())))
        })?;
        let dir = std::env::temp_dir().join(format!("rlmkg-bench-batched-{}", std::process::id()));
        let cfg = RlmConfig {
            concurrency,
            ..RlmConfig::default()
        };
        let run = run_batch(
            &rt,
            cfg,
            n,
            &dir.join("trace.jsonl"),
            client(&sub.base_url())?,
        );
        let _ = std::fs::remove_dir_all(&dir);
        let (block, used) = run?;
        let ideal = n.div_ceil(used) as f64 * latency_ms as f64;
        let wall = block.elapsed_ms as f64;
        let (label, target) = match concurrency {
            Some(c) => (c.to_string(), format!("≈ {ideal:.0} ms (ideal)")),
            None if n == 64 && latency_ms == 200 => (
                "default".to_string(),
                format!("≤ 1000 ms (issue 15); ideal at {used}: {ideal:.0} ms"),
            ),
            None => (
                "default".to_string(),
                format!("≈ {ideal:.0} ms (ideal at {used})"),
            ),
        };
        rows.push(BenchRow {
            area: "batched".into(),
            name: format!("N={n} concurrency={label} L={latency_ms}ms wall"),
            value: wall,
            unit: "ms".into(),
            target: Some(target),
            note: format!("{:.2}× ideal, fan-out {used}", wall / ideal),
        });
    }
    Ok(rows)
}

/// A client of the chat-completions server at `base_url`.
pub(crate) fn client(base_url: &str) -> anyhow::Result<Arc<dyn LanguageModel>> {
    Ok(Arc::new(OpenAiModel::new(OpenAiConfig::new(
        base_url, "bench",
    ))?))
}

/// A root model's server: one block of `n` batched sub-calls that prints how
/// many were answered `ok`, then `FINAL`.
fn root_server(n: usize) -> anyhow::Result<ChatServer> {
    let done = AtomicBool::new(false);
    let code = format!(
        "```repl\nrs = llm_query_batched([f'prompt {{i}}' for i in range({n})])\nprint(sum(r == 'ok' for r in rs))\n```"
    );
    Ok(ChatServer::start(move |req: &Value, _| {
        if is_root_request(req) && !done.swap(true, Ordering::SeqCst) {
            return Reply::Text(code.clone());
        }
        Reply::Text("```repl\nFINAL('done')\n```".into())
    })?)
}

/// One run whose root writes one block of `n` batched sub-calls answered by
/// `sub` (which answers `ok`), traced to `trace` (removed after): the block
/// as the trajectory records it (its wall time, output and error), once
/// every call was answered, and the fan-out the run chose (the trajectory
/// header's limit; 1 when it names none).
pub(crate) fn run_batch(
    rt: &tokio::runtime::Runtime,
    cfg: RlmConfig,
    n: usize,
    trace: &Path,
    sub: Arc<dyn LanguageModel>,
) -> anyhow::Result<(TraceBlock, usize)> {
    let server = root_server(n)?;
    let root = client(&server.base_url())?;
    let cfg = RlmConfig {
        trace_path: Some(trace.to_path_buf()),
        ..cfg
    };
    let rlm = Rlm::new(cfg, root, sub, Arc::new(EmptyHandle));
    let (mut session, _) = rt.block_on(rlm.run("bench"))?;
    session.finish(Value::Null)?;
    let t = rlm_core::Trajectory::read(trace)?;
    let _ = std::fs::remove_file(trace);
    let fan_out = t
        .header
        .as_ref()
        .and_then(|h| h.concurrency)
        .map_or(1, |c| c.limit);
    let block = t
        .iterations
        .into_iter()
        .next()
        .and_then(|i| i.blocks.into_iter().next())
        .ok_or_else(|| anyhow::anyhow!("the batched block did not run"))?;
    anyhow::ensure!(
        block.error.is_none() && block.output.trim() == n.to_string(),
        "not every call was answered: {:?} {:?}",
        block.output,
        block.error
    );
    Ok((block, fan_out))
}
