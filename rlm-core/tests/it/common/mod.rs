//! Shared test support: an in-memory corpus handle and a scripted model server.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rlm_core::testkit::{ChatServer, Reply, is_root_request, last_user};
use rlm_core::{
    ContextHandle, CorpusMetadata, HandleError, HandleFunction, HandleReply, OpenAiConfig,
    OpenAiModel, ReplLimits, Rlm, RlmConfig,
};
use serde_json::{Map, Value, json};

/// Keyword arguments of a handle call.
type Kwargs = Map<String, Value>;
/// What a handle call returns.
type Called = Result<HandleReply, HandleError>;

/// The REPL limits of the sandbox tests: a block may run for `block_time`,
/// keep 256 MiB and return 2 000 characters of output; the rest as default.
pub fn sandbox_limits(block_time: Duration) -> ReplLimits {
    ReplLimits {
        max_block_time: block_time,
        max_memory: 256 * 1024 * 1024,
        max_output_chars: 2_000,
        ..ReplLimits::default()
    }
}

/// A server whose root calls get `root[i]` in turn (the last repeats) and whose
/// sub-calls get `sub(prompt)`.
pub fn scripted_server(root: Vec<String>, sub: fn(&str) -> String) -> ChatServer {
    let n = AtomicUsize::new(0);
    ChatServer::start(move |req: &Value, _| {
        if is_root_request(req) {
            let i = n.fetch_add(1, Ordering::SeqCst).min(root.len() - 1);
            Reply::Text(root[i].clone())
        } else {
            Reply::Text(sub(&last_user(req)))
        }
    })
    .unwrap()
}

/// The real HTTP client on `server`, with a context window if given.
pub fn scripted_model(server: &ChatServer, window: Option<usize>) -> Arc<OpenAiModel> {
    let mut cfg = OpenAiConfig::new(server.base_url(), "scripted");
    cfg.context_window = window;
    cfg.timeout = Duration::from_secs(10);
    Arc::new(OpenAiModel::new(cfg).unwrap())
}

/// A run over [`MemHandle::sample`] with `server` as root and sub model.
pub fn scripted_rlm(server: &ChatServer, cfg: RlmConfig) -> Rlm {
    let m = scripted_model(server, None);
    Rlm::new(cfg, m.clone(), m, Arc::new(MemHandle::sample()))
}

/// The root-model requests the server received, in order.
pub fn root_requests(server: &ChatServer) -> Vec<Value> {
    server
        .requests()
        .into_iter()
        .filter(is_root_request)
        .collect()
}

/// A handle over a few chunks held in memory; `search` is a case-insensitive
/// substring match, `read` returns the chunk text with sentence ids.
#[derive(Debug, Clone)]
pub struct MemHandle {
    pub chunks: Vec<(String, String, String)>, // (id, doc title, text)
}

impl MemHandle {
    pub fn sample() -> Self {
        Self {
            chunks: vec![
                (
                    "c1".into(),
                    "Marie Curie".into(),
                    "Marie Curie was born in Warsaw. She studied in Paris.".into(),
                ),
                (
                    "c2".into(),
                    "Pierre Curie".into(),
                    "Pierre Curie married Marie Curie in 1895.".into(),
                ),
                (
                    "c3".into(),
                    "Warsaw".into(),
                    "Warsaw is the capital of Poland.".into(),
                ),
            ],
        }
    }
}

impl ContextHandle for MemHandle {
    fn functions(&self) -> Vec<HandleFunction> {
        vec![
            HandleFunction {
                name: "search".into(),
                signature: "search(query, k=10)".into(),
                doc: "substring search".into(),
                parameters: serde_json::Value::Null,
            },
            HandleFunction {
                name: "read".into(),
                signature: "read(id)".into(),
                doc: "chunk text".into(),
                parameters: serde_json::Value::Null,
            },
            HandleFunction {
                name: "docs".into(),
                signature: "docs()".into(),
                doc: "document titles".into(),
                parameters: serde_json::Value::Null,
            },
        ]
    }

    fn call(&self, name: &str, args: &[Value], kwargs: &Kwargs) -> Called {
        match name {
            "search" => {
                let q = args
                    .first()
                    .or_else(|| kwargs.get("query"))
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        HandleError::BadArgument("search(query): query must be a str".into())
                    })?
                    .to_lowercase();
                let k = args
                    .get(1)
                    .or_else(|| kwargs.get("k"))
                    .and_then(Value::as_u64)
                    .unwrap_or(10) as usize;
                let hits: Vec<Value> = self
                    .chunks
                    .iter()
                    .filter(|(_, _, t)| q.split_whitespace().any(|w| t.to_lowercase().contains(w)))
                    .take(k)
                    .map(|(id, title, t)| json!({"id": id, "doc": title, "score": 1.0, "text": t, "title": title}))
                    .collect();
                let shown = hits
                    .iter()
                    .filter_map(|h| h.get("id").and_then(Value::as_str).map(str::to_owned))
                    .collect();
                Ok(HandleReply::showing(Value::Array(hits), shown))
            }
            "read" => {
                let id = args.first().and_then(Value::as_str).unwrap_or_default();
                self.chunks
                    .iter()
                    .find(|(cid, _, _)| cid == id)
                    .map(|(cid, _, t)| {
                        HandleReply::showing(
                            Value::String(format!("[{cid}.s1] {t}")),
                            vec![id.to_owned()],
                        )
                    })
                    .ok_or_else(|| HandleError::NotFound(format!("no chunk {id}")))
            }
            "docs" => Ok(Value::Array(
                self.chunks
                    .iter()
                    .map(|(_, t, _)| Value::String(t.clone()))
                    .collect(),
            )
            .into()),
            other => Err(HandleError::UnknownFunction(other.into())),
        }
    }

    fn metadata(&self) -> CorpusMetadata {
        CorpusMetadata {
            documents: self.chunks.len(),
            chunks: self.chunks.len(),
            characters: self.chunks.iter().map(|c| c.2.len() as u64).sum(),
            sample_titles: self.chunks.iter().map(|c| c.1.clone()).collect(),
            ..Default::default()
        }
    }

    fn corpus_text(&self, max_chars: usize) -> Option<String> {
        let t: String = self.chunks.iter().map(|c| format!("{}\n", c.2)).collect();
        (t.len() <= max_chars).then_some(t)
    }

    fn scoped(&self, ids: &[String]) -> Result<Arc<dyn ContextHandle>, HandleError> {
        Ok(Arc::new(Self {
            chunks: self
                .chunks
                .iter()
                .filter(|c| ids.contains(&c.0))
                .cloned()
                .collect(),
        }))
    }
}

/// Runs the test `name` (its full name in this binary, `module::test`) again
/// in a child process of this test binary, alone, with the variable `env` set,
/// and asserts that it ran there and passed. For tests that change or hold
/// the whole process. Returns `true` in the parent, which then returns at
/// once, and `false` in the child, which runs the test's body.
pub fn run_in_child(name: &str, env: &str) -> bool {
    if std::env::var_os(env).is_some() {
        return false;
    }
    let out = std::process::Command::new(std::env::current_exe().expect("the test binary's path"))
        .args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env(env, "1")
        .output()
        .expect("run the test binary again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    // "1 passed": the child ran the test (a filter that matched nothing passes too).
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    true
}
