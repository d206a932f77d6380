#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // test support: failing loudly is the point
//! Helpers for the end-to-end tests: locate the real `rlmkg` binary and run it
//! in a temporary directory, and run a scripted `ask` case ([`scripted_case`]).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rlm_core::testkit::{ChatServer, Reply};
use serde_json::Value;

/// Path of the `rlmkg` binary built next to the test executable.
///
/// `cargo test --workspace` builds it; the tests fail with a clear message when it
/// is missing rather than testing something else.
pub fn bin() -> PathBuf {
    if let Some(p) = std::env::var_os("RLMKG_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    // target/<profile>/deps/<test-exe> -> target/<profile>/rlmkg
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let path = dir.join(format!("rlmkg{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "rlmkg binary not found at {}; run the tests with `cargo test --workspace`",
        path.display()
    );
    path
}

/// Root of the repository (for `examples/` and `tests/fixtures/`).
pub fn repo_root() -> PathBuf {
    // `cargo test` sets CARGO_MANIFEST_DIR when it runs a test, which stays right when
    // a warm target directory was built from another checkout; the compile-time
    // value is the fallback.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// A fixture path under `tests/fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    repo_root().join("tests").join("fixtures").join(rel)
}

/// `../shared/data/<name>` when present (development data, absent for users).
pub fn shared_data(name: &str) -> Option<PathBuf> {
    let p = repo_root()
        .join("..")
        .join("shared")
        .join("data")
        .join(name);
    p.exists().then_some(p)
}

/// A command for the real binary, run in `cwd`, with no model configuration leaking
/// in from the environment.
pub fn rlmkg(cwd: &Path) -> Command {
    let mut cmd = Command::new(bin());
    cmd.current_dir(cwd);
    for var in [
        "RLMKG_API_KEY",
        "OPENAI_API_KEY",
        "RLMKG_BASE_URL",
        "RLMKG_MODEL",
        "RLMKG_STORE",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("NO_COLOR", "1");
    cmd
}

/// Run `rlmkg args…` in `cwd` and return its output.
pub fn run(cwd: &Path, args: &[&str]) -> Output {
    match rlmkg(cwd).args(args).output() {
        Ok(out) => out,
        Err(e) => panic!("could not run rlmkg: {e}"),
    }
}

/// Run `cmd`, which must succeed, and return its stdout.
pub fn stdout_ok(cmd: &mut Command) -> String {
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) => panic!("could not run {cmd:?}: {e}"),
    };
    assert!(out.status.success(), "{cmd:?} failed: {}", stderr(&out));
    stdout(&out)
}

/// Stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `rlmkg` in `dir` with an empty model directory, so no installed embedded model
/// is picked up (runs that must not depend on what the machine has installed).
pub fn without_models(dir: &Path) -> Command {
    let models = dir.join("no-models");
    std::fs::create_dir_all(&models).unwrap();
    let mut cmd = rlmkg(dir);
    cmd.env("RLMKG_MODEL_DIR", models);
    cmd
}

/// Run `rlmkg --store STORE --json ask --strategy STRATEGY <extra…> Q` in
/// `dir` with no installed model (see [`without_models`]).
pub fn ask_json(dir: &Path, store: &Path, strategy: &str, extra: &[&str], q: &str) -> Output {
    without_models(dir)
        .args(["--store", store.to_str().unwrap(), "--json", "ask"])
        .args(["--strategy", strategy])
        .args(extra)
        .arg(q)
        .output()
        .unwrap()
}

/// Run `ask --json --strategy rlm` on `store` against the scripted server at
/// `base` (`--no-cache`, no embedded model), with `extra` flags, asking `q`.
pub fn ask_scripted(dir: &Path, store: &Path, base: &str, extra: &[&str], q: &str) -> Output {
    let mut args = vec!["--base-url", base, "--model", "scripted", "--no-cache"];
    args.extend_from_slice(extra);
    ask_json(dir, store, "rlm", &args, q)
}

/// `rlmkg --store STORE <global…> ask --strategy heuristic QUESTION` in `dir`
/// with no model installed (see [`without_models`]); add flags or variables
/// before running it.
pub fn ask_heuristic(dir: &Path, store: &Path, global: &[&str], question: &str) -> Command {
    let mut cmd = without_models(dir);
    cmd.args(["--store", store.to_str().unwrap()])
        .args(global)
        .args(["ask", "--strategy", "heuristic", question]);
    cmd
}

/// One scripted `ask` case after it ran: the temp dir holding the sample
/// store, the server that played the root model (its requests are kept) and
/// the run's output.
pub struct ScriptedCase {
    /// Temp dir holding `store/`.
    pub dir: tempfile::TempDir,
    /// The sample store.
    pub store: PathBuf,
    /// The scripted root model.
    pub server: ChatServer,
    /// What `rlmkg ask` wrote and how it exited.
    pub out: Output,
}

impl ScriptedCase {
    /// Stdout as text.
    pub fn stdout(&self) -> String {
        stdout(&self.out)
    }

    /// Stderr as text.
    pub fn stderr(&self) -> String {
        stderr(&self.out)
    }

    /// The `--json` answer; fails with the run's output when it does not parse.
    pub fn answer(&self) -> Value {
        serde_json::from_str(&self.stdout()).unwrap_or_else(|e| {
            panic!(
                "--json output does not parse ({e}):\n{}\n{}",
                self.stdout(),
                self.stderr()
            )
        })
    }
}

/// Run one scripted case: a fresh sample store, `script` as the root model
/// (served over HTTP on 127.0.0.1), and `ask --json --strategy rlm` with
/// `extra` flags asking `question` (see [`ask_scripted`]).
pub fn scripted_case(
    script: impl Fn(&Value, usize) -> Reply + Send + Sync + 'static,
    extra: &[&str],
    question: &str,
) -> ScriptedCase {
    let (dir, store) = sample_store();
    let server = ChatServer::start(script).unwrap();
    let out = ask_scripted(dir.path(), &store, &server.base_url(), extra, question);
    ScriptedCase {
        dir,
        store,
        server,
        out,
    }
}

/// A temp dir holding `store/`, ingested from the sample corpus `examples/corpus`.
pub fn sample_store() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let corpus = repo_root().join("examples").join("corpus");
    let out = rlmkg(dir.path())
        .args([
            "--store",
            store.to_str().unwrap(),
            "--quiet",
            "ingest",
            corpus.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "ingest failed: {}", stderr(&out));
    (dir, store)
}

/// How many assistant turns a chat request already holds (which scripted reply is next).
pub fn turn(req: &Value) -> usize {
    req["messages"]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count())
}

/// The reply the loop began for the model: the content of a request's last
/// message when it is the assistant's (a forced prefix such as `FINAL("`), or `""`.
pub fn begun(req: &Value) -> String {
    req["messages"]
        .as_array()
        .and_then(|m| m.last())
        .filter(|m| m["role"] == "assistant")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// A scripted root that runs `first` on its first turn and `then` on every
/// later one, each as one REPL block.
pub fn first_then(
    first: impl Into<String>,
    then: impl Into<String>,
) -> impl Fn(&Value, usize) -> Reply + Send + Sync + 'static {
    let (first, then) = (first.into(), then.into());
    move |req, _| Reply::Text(repl(if turn(req) == 0 { &first } else { &then }))
}

/// A model reply holding one REPL block.
pub fn repl(code: &str) -> String {
    format!("Next step.\n```repl\n{code}\n```\n")
}

/// What [`find_sentence`]'s code keeps of the sentence it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Its id (`c16.s2`), to cite.
    Id,
    /// Its text without the id, as a small root copies it.
    Text,
}

/// Python a scripted root runs: among the chunks of the first `k` hits of
/// `search`, the first sentence holding every one of `holding`, kept as
/// `var` (`Found::Id` or `Found::Text`; `None` when none holds them all) and
/// printed. The sentence is found at run time, so no test depends on ids.
pub fn find_sentence(var: &str, search: &str, k: usize, holding: &[&str], keep: Found) -> String {
    let holds: Vec<String> = holding.iter().map(|w| format!("{w:?} in s_")).collect();
    let kept = match keep {
        Found::Id => "id_",
        Found::Text => "s_.strip()",
    };
    format!(
        r#"import re
{var} = None
for h in context.search({search:?}, k={k}):
    for id_, s_ in re.findall(r"\[(c\d+\.s\d+)\] ([^\[]*)", context.read(h["id"])):
        if {var} is None and {holds}:
            {var} = {kept}
print({var})"#,
        holds = holds.join(" and ")
    )
}

/// The Qwen2.5-Coder-1.5B-Instruct GGUF for the real-model tests:
/// `RLMKG_QWEN_GGUF`, else the file `../shared/models/qwen-gguf.sh 1.5b`
/// (or `ci/qwen-gguf.sh`) writes to `~/.cache/rlmkg-dev-models`; `None` when
/// absent, after saying on stderr that the test skips.
pub fn qwen_gguf() -> Option<PathBuf> {
    let found = if let Some(p) = std::env::var_os("RLMKG_QWEN_GGUF").map(PathBuf::from) {
        p.is_file().then_some(p)
    } else {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        home.map(|h| h.join(".cache/rlmkg-dev-models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"))
            .filter(|p| p.is_file())
    };
    if found.is_none() {
        eprintln!(
            "skipping: no Qwen2.5-Coder-1.5B GGUF (run ../shared/models/qwen-gguf.sh 1.5b or \
             ci/qwen-gguf.sh 1.5b, or set RLMKG_QWEN_GGUF)"
        );
    }
    found
}

/// Ask `question` on a fresh sample store with the Qwen GGUF ([`qwen_gguf`]):
/// `ask --json --strategy STRATEGY <extra…> --model-path GGUF --no-cache`,
/// which must succeed. Its `--json` answer and its stderr, or `None` (the test
/// skips, as [`qwen_gguf`] says) when the model is absent.
pub fn ask_qwen(strategy: &str, extra: &[&str], question: &str) -> Option<(Value, String)> {
    let model = qwen_gguf()?;
    let (dir, store) = sample_store();
    let mut args = extra.to_vec();
    args.extend(["--model-path", model.to_str().unwrap(), "--no-cache"]);
    let out = ask_json(dir.path(), &store, strategy, &args, question);
    assert!(out.status.success(), "{}", stderr(&out));
    let answer = serde_json::from_str(&stdout(&out)).unwrap();
    Some((answer, stderr(&out)))
}

/// Whether a request a scripted server received is the root's: its second
/// message is the corpus metadata ("Corpus: …"); sub-calls have none.
pub fn is_root(req: &Value) -> bool {
    req["messages"][1]["content"]
        .as_str()
        .is_some_and(|c| c.starts_with("Corpus:"))
}

/// The root's requests a scripted server received, in order.
pub fn root_requests(server: &ChatServer) -> Vec<Value> {
    server.requests().into_iter().filter(is_root).collect()
}
