//! `rlmkg bench serve`: one `rlmkg serve` process under load (issue 29):
//! first 50 concurrent `GET /v1/search` loops alone, then 50 search loops
//! and 8 concurrent heuristic `POST /v1/ask` loops while `rlmkg ingest`
//! commits new documents into the served store, batch after batch. Reports
//! p50/p99 latencies. Any answer but 200 or 503 (busy) fails the benchmark,
//! and so does a read that does not see a whole commit: every chunk id a
//! search returned must read back, and the document count a loop sees never
//! goes down.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde_json::Value;

use crate::{BenchOptions, BenchRow};

/// Concurrent search loops.
const SEARCHERS: usize = 50;
/// Concurrent ask loops.
const ASKERS: usize = 8;

/// Questions of the sample corpus (`examples/questions.jsonl`).
const QUESTIONS: &[&str] = &[
    "Which institute did the author of The Salt Atlas join in 2019?",
    "In which city is the institute that organised the Skarvik Expedition located?",
    "In which city was the research vessel used on the Skarvik Expedition built?",
];

/// Search queries, cycled.
const QUERIES: &[&str] = &[
    "Skarvik Expedition",
    "Kestrel Institute",
    "research vessel built",
    "Salt Atlas author",
    "station founded",
    "Tromsø",
];

/// The sample corpus of the repository.
fn sample_corpus() -> anyhow::Result<PathBuf> {
    let candidates = [
        std::env::current_dir()?.join("examples").join("corpus"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/corpus"),
    ];
    candidates
        .into_iter()
        .find(|p| p.is_dir())
        .context("the sample corpus examples/corpus was not found: run from the repository")
}

/// Write `docs` generated documents for ingest batch `batch` under `dir`.
fn write_batch(dir: &Path, batch: usize, docs: usize) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    const CITIES: &[&str] = &[
        "Tromsø",
        "Bergen",
        "Aldergate",
        "Halden",
        "Oslo",
        "Reykjavik",
    ];
    const PEOPLE: &[&str] = &["Ines Varga", "Mara Lindqvist", "Tomas Berg", "Eli Strand"];
    for i in 0..docs {
        let n = batch * docs + i;
        let city = CITIES[n % CITIES.len()];
        let person = PEOPLE[n % PEOPLE.len()];
        let mut text = format!("# Station {batch}-{i}\n\n");
        for p in 0..6 {
            text.push_str(&format!(
                "The Station {batch}-{i} near {city} was founded by {person} in {}. \
                 Its survey of the fjord in {} recorded {} species of seabird. \
                 The station's report {p} was published by the Northlight Press.\n\n",
                1900 + n % 120,
                1950 + (n + p) % 70,
                10 + (n * 7 + p) % 90,
            ));
        }
        std::fs::write(dir.join(format!("station-{batch}-{i}.md")), text)?;
    }
    Ok(())
}

/// The `rlmkg serve` child, killed when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `rlmkg` with no model installed (the heuristic strategy answers).
fn rlmkg(exe: &Path, no_models: &Path) -> Command {
    let mut cmd = Command::new(exe);
    cmd.env("RLMKG_MODEL_DIR", no_models)
        .env_remove("RLMKG_BASE_URL")
        .env_remove("RLMKG_MODEL")
        .env_remove("RLMKG_SERVE_API_KEY");
    cmd
}

/// `rlmkg --store <store> --quiet ingest <path>` as a user runs it, failing
/// with its stderr.
fn ingest(exe: &Path, no_models: &Path, store: &Path, path: &Path) -> anyhow::Result<()> {
    let out = rlmkg(exe, no_models)
        .arg("--store")
        .arg(store)
        .args(["--quiet", "ingest"])
        .arg(path)
        .output()?;
    if !out.status.success() {
        bail!("rlmkg ingest: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

fn start_server(exe: &Path, store: &Path, no_models: &Path) -> anyhow::Result<Server> {
    let mut child = rlmkg(exe, no_models)
        .arg("--store")
        .arg(store)
        .args(["--quiet", "serve", "--port", "0", "--strategy", "heuristic"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("starting rlmkg serve")?;
    let Some(stdout) = child.stdout.take() else {
        let _ = child.kill();
        bail!("rlmkg serve has no standard output");
    };
    let mut line = String::new();
    let read = BufReader::new(stdout).read_line(&mut line);
    let mut server = Server {
        child,
        base: String::new(),
    };
    read?;
    let Some(url) = line.trim().strip_prefix("listening on ") else {
        bail!("rlmkg serve did not say where it listens: {line:?}");
    };
    server.base = url.to_string();
    Ok(server)
}

/// Latencies and outcomes of one kind of request.
#[derive(Default)]
struct Tally {
    ms: std::sync::Mutex<Vec<f64>>,
    busy: AtomicU64,
}

impl Tally {
    fn record(&self, ms: f64) {
        if let Ok(mut v) = self.ms.lock() {
            v.push(ms);
        }
    }

    /// (count, p50, p99) in milliseconds.
    fn summary(&self) -> (usize, f64, f64) {
        let mut v = self.ms.lock().map(|v| v.clone()).unwrap_or_default();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            return (0, 0.0, 0.0);
        }
        let at = |q: usize| v[(v.len() * q / 100).min(v.len() - 1)];
        (v.len(), at(50), at(99))
    }
}

/// What the load found wrong, if anything.
type Failure = Arc<std::sync::Mutex<Option<String>>>;

fn fail(f: &Failure, why: String) {
    if let Ok(mut slot) = f.lock()
        && slot.is_none()
    {
        *slot = Some(why);
    }
}

/// `text` as a URL query value.
fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One search loop: search, check a hit reads back, watch the document count.
async fn search_loop(
    client: reqwest::Client,
    base: String,
    n: usize,
    rounds: usize,
    go_on: Arc<AtomicBool>,
    tally: Arc<Tally>,
    failure: Failure,
) {
    let mut docs_seen = 0u64;
    let mut round = 0usize;
    while round < rounds || go_on.load(Ordering::Relaxed) {
        let q = QUERIES[(n + round) % QUERIES.len()];
        let t = Instant::now();
        let r = client
            .get(format!("{base}/v1/search?k=5&q={}", encode(q)))
            .send()
            .await;
        let outcome = match r {
            Ok(r) => (
                r.status().as_u16(),
                r.bytes().await.unwrap_or_default().to_vec(),
            ),
            Err(e) => return fail(&failure, format!("search: {e}")),
        };
        tally.record(t.elapsed().as_secs_f64() * 1e3);
        match outcome {
            (200, body) => {
                let v: Value = serde_json::from_slice(&body).unwrap_or_default();
                // A hit of the commit this search saw reads back.
                if round.is_multiple_of(10)
                    && let Some(id) = v["hits"][0]["id"].as_str()
                {
                    match client.get(format!("{base}/v1/read/{id}")).send().await {
                        Ok(r) if r.status() == 200 || r.status() == 503 => {}
                        Ok(r) => return fail(&failure, format!("read {id}: {}", r.status())),
                        Err(e) => return fail(&failure, format!("read {id}: {e}")),
                    }
                }
                if round % 10 == 5 {
                    let docs = match client.get(format!("{base}/v1/stats")).send().await {
                        Ok(r) if r.status() == 200 => r
                            .json_value()
                            .await
                            .and_then(|v| v["docs"].as_u64())
                            .unwrap_or(docs_seen),
                        _ => docs_seen,
                    };
                    if docs < docs_seen {
                        return fail(
                            &failure,
                            format!("the document count went back from {docs_seen} to {docs}"),
                        );
                    }
                    docs_seen = docs;
                }
            }
            (503, _) => {
                tally.busy.fetch_add(1, Ordering::Relaxed);
            }
            (status, body) => {
                return fail(
                    &failure,
                    format!("search: {status} {}", String::from_utf8_lossy(&body)),
                );
            }
        }
        round += 1;
    }
}

/// One ask loop.
async fn ask_loop(
    client: reqwest::Client,
    base: String,
    n: usize,
    go_on: Arc<AtomicBool>,
    tally: Arc<Tally>,
    failure: Failure,
) {
    let mut round = 0usize;
    while round == 0 || go_on.load(Ordering::Relaxed) {
        let q = QUESTIONS[(n + round) % QUESTIONS.len()];
        let body = serde_json::json!({ "question": q, "strategy": "heuristic" }).to_string();
        let t = Instant::now();
        let r = client
            .post(format!("{base}/v1/ask"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await;
        let status = match r {
            Ok(r) => {
                let s = r.status().as_u16();
                let _ = r.bytes().await;
                s
            }
            Err(e) => return fail(&failure, format!("ask: {e}")),
        };
        tally.record(t.elapsed().as_secs_f64() * 1e3);
        match status {
            200 => {}
            503 => {
                tally.busy.fetch_add(1, Ordering::Relaxed);
            }
            s => return fail(&failure, format!("ask: {s}")),
        }
        round += 1;
    }
}

/// Reading a response as JSON (reqwest's `json` feature is not built).
trait JsonValue {
    async fn json_value(self) -> Option<Value>;
}

impl JsonValue for reqwest::Response {
    async fn json_value(self) -> Option<Value> {
        serde_json::from_slice(&self.bytes().await.ok()?).ok()
    }
}

/// Run the serve benchmark.
pub fn run(opts: &BenchOptions) -> anyhow::Result<Vec<BenchRow>> {
    let work = opts.work_dir.join("serve");
    if work.exists() {
        std::fs::remove_dir_all(&work)?;
    }
    let store = work.join("store");
    let no_models = work.join("no-models");
    std::fs::create_dir_all(&no_models)?;
    let exe = &opts.rlmkg_bin;
    ingest(exe, &no_models, &store, &sample_corpus()?)?;
    let (batches, docs) = if opts.quick { (2, 60) } else { (4, 250) };
    let batch_dirs: Vec<PathBuf> = (0..batches)
        .map(|b| work.join(format!("batch-{b}")))
        .collect();
    for (b, dir) in batch_dirs.iter().enumerate() {
        write_batch(dir, b, docs)?;
    }
    let server = start_server(exe, &store, &no_models)?;
    let rt = crate::runtime()?;
    // reqwest is built without a bundled TLS provider (rlm-core's choice).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(SEARCHERS + ASKERS)
        .timeout(Duration::from_secs(120))
        .build()?;
    let failure: Failure = Arc::default();
    let rounds_alone = if opts.quick { 10 } else { 40 };

    // Searches alone.
    let alone = Arc::new(Tally::default());
    rt.block_on(async {
        let stop = Arc::new(AtomicBool::new(false));
        let tasks: Vec<_> = (0..SEARCHERS)
            .map(|n| {
                tokio::spawn(search_loop(
                    client.clone(),
                    server.base.clone(),
                    n,
                    rounds_alone,
                    Arc::clone(&stop),
                    Arc::clone(&alone),
                    Arc::clone(&failure),
                ))
            })
            .collect();
        for t in tasks {
            let _ = t.await;
        }
    });

    // Searches and asks while ingests commit.
    let during = Arc::new(Tally::default());
    let asks = Arc::new(Tally::default());
    let go_on = Arc::new(AtomicBool::new(true));
    let t0 = Instant::now();
    let ingesting = {
        let go_on = Arc::clone(&go_on);
        let store = store.clone();
        let exe = exe.clone();
        let no_models = no_models.clone();
        std::thread::spawn(move || -> anyhow::Result<()> {
            let result = batch_dirs
                .iter()
                .try_for_each(|dir| ingest(&exe, &no_models, &store, dir));
            go_on.store(false, Ordering::Relaxed);
            result
        })
    };
    rt.block_on(async {
        let mut tasks = Vec::new();
        for n in 0..SEARCHERS {
            tasks.push(tokio::spawn(search_loop(
                client.clone(),
                server.base.clone(),
                n,
                1,
                Arc::clone(&go_on),
                Arc::clone(&during),
                Arc::clone(&failure),
            )));
        }
        for n in 0..ASKERS {
            tasks.push(tokio::spawn(ask_loop(
                client.clone(),
                server.base.clone(),
                n,
                Arc::clone(&go_on),
                Arc::clone(&asks),
                Arc::clone(&failure),
            )));
        }
        for t in tasks {
            let _ = t.await;
        }
    });
    let ingest_secs = t0.elapsed().as_secs_f64();
    ingesting
        .join()
        .map_err(|_| anyhow::anyhow!("the ingest thread panicked"))??;
    drop(server);
    if let Some(why) = failure.lock().ok().and_then(|f| f.clone()) {
        bail!("the server failed under load: {why}");
    }

    let note = format!(
        "{SEARCHERS} search loops; the sample corpus, then {batches} ingests of {docs} generated documents"
    );
    let mut rows = Vec::new();
    let mut push = |name: &str, tally: &Tally, target: Option<&str>, extra: &str| {
        let (n, p50, p99) = tally.summary();
        let busy = tally.busy.load(Ordering::Relaxed);
        for (what, v) in [("p50", p50), ("p99", p99)] {
            rows.push(BenchRow {
                area: "serve".into(),
                name: format!("{name} {what}"),
                value: v,
                unit: "ms".into(),
                target: target.map(str::to_string),
                note: format!("{n} requests, {busy} answered 503; {extra}"),
            });
        }
    };
    push("search alone", &alone, None, &note);
    push(
        "search during ingest",
        &during,
        None,
        &format!("{note}; ingests took {ingest_secs:.1} s"),
    );
    push(
        "heuristic ask during ingest",
        &asks,
        None,
        &format!("{ASKERS} ask loops beside the searches"),
    );
    Ok(rows)
}
