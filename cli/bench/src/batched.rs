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
    for &(n, concurrency) in settings {
        let done = Arc::new(AtomicBool::new(false));
        let d2 = done.clone();
        let code = format!(
            "```repl\nrs = llm_query_batched([f'prompt {{i}}' for i in range({n})])\nprint(len(rs))\n```"
        );
        let server = ChatServer::start(move |req: &Value, _| {
            if is_root_request(req) {
                if d2.swap(true, Ordering::SeqCst) {
                    return Reply::Text("```repl\nFINAL('done')\n```".into());
                }
                return Reply::Text(code.clone());
            }
            Reply::Delay(
                Duration::from_millis(latency_ms),
                Box::new(Reply::Text("ok".into())),
            )
        })?;
        let dir = std::env::temp_dir().join(format!("rlmkg-bench-batched-{}", std::process::id()));
        let trace = dir.join("trace.jsonl");
        let model = Arc::new(OpenAiModel::new(OpenAiConfig::new(
            server.base_url(),
            "bench",
        ))?);
        let cfg = RlmConfig {
            concurrency,
            ..RlmConfig::default()
        };
        let run = run_block(&rt, cfg, &trace, model.clone(), model);
        let _ = std::fs::remove_dir_all(&dir);
        let (block, used) = run?;
        anyhow::ensure!(
            block.error.is_none(),
            "batched block failed: {:?}",
            block.error
        );
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

/// One run whose root writes one block of batched sub-calls (answered by
/// `sub`), traced to `trace` (removed after): the block as the trajectory
/// records it (its wall time, output and error) and the fan-out the run chose
/// (the trajectory header's limit; 1 when it names none).
pub(crate) fn run_block(
    rt: &tokio::runtime::Runtime,
    cfg: RlmConfig,
    trace: &Path,
    root: Arc<dyn LanguageModel>,
    sub: Arc<dyn LanguageModel>,
) -> anyhow::Result<(TraceBlock, usize)> {
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
    Ok((block, fan_out))
}
