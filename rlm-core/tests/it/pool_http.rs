//! Sub-calls over several model servers (issue 31): a [`PoolModel`] over real
//! HTTP clients of scripted servers, driven by a scripted root through
//! `llm_query_batched`. The servers share the calls, a failing or killed
//! server loses none, and the trajectory names the server of each call.
//! (How much faster two servers are is measured by `rlmkg bench servers`, not
//! timed here.) The last test puts a real router from PyPI, `vllm-router`
//! (installed by `ci/router.sh`, found through `RLMKG_ROUTER_BIN`), in front
//! of two scripted servers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::MemHandle;
use rlm_core::testkit::{ChatServer, Reply, free_port, is_root_request, last_user, refused_url};
use rlm_core::trajectory::SubCallRecord;
use rlm_core::{LanguageModel, OpenAiConfig, OpenAiModel, PoolModel, Rlm, RlmConfig, Trajectory};
use serde_json::Value;

/// A script for a server of the pool: root turns (counted across servers in
/// `turns`) run one batch of `n` sub-calls, then `FINAL`; sub-calls answer
/// `re <prompt>` after `latency`.
fn script(
    turns: Arc<AtomicUsize>,
    n: usize,
    latency: Duration,
) -> impl Fn(&Value, usize) -> Reply + Send + Sync + 'static {
    move |req: &Value, _| {
        if is_root_request(req) {
            return Reply::Text(if turns.fetch_add(1, Ordering::SeqCst) == 0 {
                format!(
                    "```repl\nrs = llm_query_batched([f'p {{i}}' for i in range({n})])\nprint(len(rs), sum(r.startswith('re p ') for r in rs))\n```"
                )
            } else {
                "```repl\nFINAL('ok')\n```".into()
            });
        }
        Reply::Delay(
            latency,
            Box::new(Reply::Text(format!("re {}", last_user(req)))),
        )
    }
}

fn http(base_url: &str) -> Arc<dyn LanguageModel> {
    let mut cfg = OpenAiConfig::new(base_url, "scripted");
    cfg.timeout = Duration::from_secs(20);
    Arc::new(OpenAiModel::new(cfg).unwrap())
}

fn pool(urls: &[String]) -> Arc<dyn LanguageModel> {
    Arc::new(PoolModel::new(urls.iter().map(|u| http(u)).collect()).unwrap())
}

/// Run the batch with `root` and `sub`; the trajectory.
async fn run_batch(root: Arc<dyn LanguageModel>, sub: Arc<dyn LanguageModel>) -> Trajectory {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let cfg = RlmConfig {
        trace_path: Some(trace.clone()),
        ..RlmConfig::default()
    };
    let r = Rlm::new(cfg, root, sub, Arc::new(MemHandle::sample()));
    let (mut s, out) = r.run("q").await.unwrap();
    assert_eq!(out.answer.as_deref(), Some("ok"));
    s.finish(Value::Null).unwrap();
    Trajectory::read(&trace).unwrap()
}

/// The sub-calls of the batch, after checking that every one was answered.
fn answered(t: &Trajectory, n: usize) -> Vec<SubCallRecord> {
    let block = &t.iterations[0].blocks[0];
    assert_eq!(block.output, format!("{n} {n}\n"), "{:?}", block.error);
    let calls = t.iterations[0].sub_calls.clone();
    assert_eq!(calls.len(), n);
    for c in &calls {
        assert_eq!(c.error, None, "{c:?}");
        // Failed over inside the pool at once, not retried after a wait.
        assert_eq!(c.retries, 0, "{c:?}");
    }
    calls
}

fn answered_by(calls: &[SubCallRecord], url: &str) -> usize {
    calls
        .iter()
        .filter(|c| c.server.as_deref() == Some(url))
        .count()
}

fn sub_requests(server: &ChatServer) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| !is_root_request(r))
        .count()
}

/// Two servers of 8 slots each, 200 ms a call: both take a large share of 64
/// sub-calls, the root turns are spread too, and each call's server is named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_share_64_sub_calls_and_the_trajectory_names_them() {
    let turns = Arc::new(AtomicUsize::new(0));
    let latency = Duration::from_millis(200);
    let a = ChatServer::start_serving(8, script(turns.clone(), 64, latency)).unwrap();
    let b = ChatServer::start_serving(8, script(turns, 64, latency)).unwrap();
    let urls = [a.base_url(), b.base_url()];
    let m = pool(&urls);
    let t = run_batch(m.clone(), m).await;
    let calls = answered(&t, 64);
    let (on_a, on_b) = (answered_by(&calls, &urls[0]), answered_by(&calls, &urls[1]));
    assert_eq!(on_a + on_b, 64, "{calls:?}");
    assert!(on_a >= 16 && on_b >= 16, "shares {on_a} / {on_b}");
    assert_eq!((sub_requests(&a), sub_requests(&b)), (on_a, on_b));
    // The fan-out is both servers' slots.
    let c = t.header.as_ref().and_then(|h| h.concurrency).unwrap();
    assert_eq!(c.limit, 16, "{c:?}");
    // Root turns name their server too.
    for it in &t.iterations {
        assert!(urls.contains(it.server.as_ref().unwrap()), "{it:?}");
    }
}

/// One server answers 500 to everything and another refuses connections:
/// every call is answered by the third, the failing ones are skipped after
/// their first failures, and the trajectory says who answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_fail_every_call_are_skipped_and_no_call_fails() {
    let turns = Arc::new(AtomicUsize::new(0));
    let root = ChatServer::start(script(turns.clone(), 64, Duration::ZERO)).unwrap();
    let failing =
        ChatServer::start(|_: &Value, _| Reply::Status(500, None, "down".into())).unwrap();
    let refused = refused_url().unwrap();
    let good = ChatServer::start(script(turns, 64, Duration::from_millis(50))).unwrap();
    let urls = [failing.base_url(), refused, good.base_url()];
    let t = run_batch(http(&root.base_url()), pool(&urls)).await;
    let calls = answered(&t, 64);
    assert_eq!(answered_by(&calls, &urls[2]), 64, "{calls:?}");
    // Only the first wave of the fan-out (48 calls, a third each) met the
    // failing server; after its first 500 it cooled down.
    let tried = failing.requests().len();
    assert!(
        (1..=24).contains(&tried),
        "the failing server got {tried} calls"
    );
    assert_eq!(sub_requests(&good), 64);
}

/// A server killed while calls are in flight on it: the cut calls go to the
/// other server at once, and every call is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_run_loses_no_call() {
    let turns = Arc::new(AtomicUsize::new(0));
    let root = ChatServer::start(script(turns.clone(), 64, Duration::ZERO)).unwrap();
    let latency = Duration::from_millis(200);
    let a = Arc::new(ChatServer::start_serving(8, script(turns.clone(), 64, latency)).unwrap());
    let b = ChatServer::start_serving(8, script(turns, 64, latency)).unwrap();
    let urls = [a.base_url(), b.base_url()];
    let killer = {
        let a = a.clone();
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(20);
            while a.requests().len() < 4 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(2));
            }
            a.kill();
            a.requests().len()
        })
    };
    let t = run_batch(http(&root.base_url()), pool(&urls)).await;
    let in_flight_at_kill = killer.join().unwrap();
    let calls = answered(&t, 64);
    let (on_a, on_b) = (answered_by(&calls, &urls[0]), answered_by(&calls, &urls[1]));
    assert_eq!(on_a + on_b, 64, "{calls:?}");
    assert!(in_flight_at_kill >= 4, "{in_flight_at_kill}");
    // The calls cut on a were sent again to b.
    assert!(
        a.requests().len() > on_a,
        "{} sent, {on_a} answered",
        a.requests().len()
    );
    assert_eq!(sub_requests(&b), on_b);
}

/// The router process, killed when the test ends.
struct Router(Child);

impl Drop for Router {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start `vllm-router` on `port` in front of `workers` (their roots, without
/// `/v1`) and wait until it answers.
fn start_router(bin: &Path, port: u16, workers: &[String], log: &Path) -> Router {
    let mut cmd = Command::new(bin);
    cmd.args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .arg("--worker-urls")
        .args(workers)
        .args(["--policy", "round_robin"])
        .args(["--prometheus-host", "127.0.0.1"])
        .args(["--prometheus-port", &free_port().unwrap().to_string()])
        .args(["--worker-startup-timeout-secs", "60"])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(log).unwrap())
        .stderr(std::fs::File::create(log.with_extension("err")).unwrap());
    let router = Router(cmd.spawn().unwrap());
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if health_ok(port) {
            return router;
        }
        assert!(
            Instant::now() < deadline,
            "vllm-router did not come up on port {port}; see {}",
            log.display()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Whether `GET /health` on the router answers 200.
fn health_ok(port: u16) -> bool {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    if s.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut head = [0u8; 12];
    s.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.1 200")
}

/// A real router from PyPI (`vllm-router`, the vLLM project's) in front of two
/// scripted servers, as one endpoint of a pool whose other endpoint fails
/// every call: all 64 calls are answered through the router, which spreads
/// them over both servers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pool_through_vllm_router_in_front_of_two_servers() {
    let Some(bin) = std::env::var_os("RLMKG_ROUTER_BIN") else {
        eprintln!(
            "skipped: RLMKG_ROUTER_BIN is not set (run `eval \"$(ci/router.sh)\"` to install vllm-router)"
        );
        return;
    };
    let turns = Arc::new(AtomicUsize::new(0));
    let root = ChatServer::start(script(turns.clone(), 64, Duration::ZERO)).unwrap();
    let latency = Duration::from_millis(100);
    let a = ChatServer::start_serving(8, script(turns.clone(), 64, latency)).unwrap();
    let b = ChatServer::start_serving(8, script(turns, 64, latency)).unwrap();
    let failing =
        ChatServer::start(|_: &Value, _| Reply::Status(503, None, "busy".into())).unwrap();
    let workers: Vec<String> = [&a, &b]
        .iter()
        .map(|s| s.base_url().trim_end_matches("/v1").to_owned())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port().unwrap();
    let _router = start_router(
        Path::new(&bin),
        port,
        &workers,
        &dir.path().join("router.log"),
    );
    let router_url = format!("http://127.0.0.1:{port}/v1");
    let urls = [router_url.clone(), failing.base_url()];
    let t = run_batch(http(&root.base_url()), pool(&urls)).await;
    let calls = answered(&t, 64);
    assert_eq!(answered_by(&calls, &router_url), 64, "{calls:?}");
    let (on_a, on_b) = (sub_requests(&a), sub_requests(&b));
    assert!(
        on_a >= 16 && on_b >= 16 && on_a + on_b >= 64,
        "the router sent {on_a} / {on_b}"
    );
}
