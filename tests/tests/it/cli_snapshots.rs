//! Snapshot tests of every command's human and `--json` output: the real
//! binary, run in a temp dir on a copy of the sample corpus with no model
//! installed, each run's stdout, stderr and exit code compared with a
//! committed snapshot (`snapshots/it__cli_snapshots__<case>.snap`).
//!
//! What varies from run to run or machine to machine is filtered out before
//! the comparison ([`normalise`]): the temp dir and the repository's paths,
//! durations and rates, peak memory, dates, process ids in trajectory names,
//! run ids, local ports, a scripted model's prompt tokens and system prompt
//! (the root model's instructions are not the command's output), and the
//! version. The commands run with a cleared configuration: `HOME` is the
//! temp dir, no `RLMKG_*` variable but an empty model directory.
//!
//! The binary is the one `cargo build` left beside the test (run the tests
//! with `cargo test --workspace`, or build `rlmkg-cli` first).
//!
//! Every case is one row of [`CASES`]; [`run_case`] runs one. To accept
//! changed output, review it and run with `INSTA_UPDATE=always` (or
//! `cargo insta review`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write as _;
use std::path::Path;
use std::process::Stdio;
use std::sync::LazyLock;

use regex::Regex;
use rlm_core::testkit::{ChatServer, Reply};
use rlmkg_tests::{repl, repo_root, stderr, stdout, turn, without_models};

/// What the temp dir holds before a case runs. Every dir holds `corpus/` (a
/// copy of `examples/corpus`), `empty/` (an empty folder), `answer.txt` (an
/// answer citing the sample store), `q.jsonl` (two sample questions),
/// `nonempty/` (one file) and `wice.jsonl` (five WiCE claims,
/// `tests/fixtures/citation/wice_small.jsonl`).
#[derive(Debug, Clone, Copy)]
enum Setup {
    /// No store.
    Bare,
    /// `store/`, the sample corpus ingested.
    Sample,
    /// `store/`, ingested from an empty folder.
    EmptyStore,
    /// `store/`, the sample corpus ingested, and one trajectory under
    /// `store/traces/` from a scripted root model.
    Traced,
}

/// One command line and what to keep of its standard output.
struct Case {
    /// Snapshot name.
    name: &'static str,
    /// The temp dir's contents.
    setup: Setup,
    /// The arguments after `rlmkg`.
    args: &'static [&'static str],
    /// Standard input, if any (else none: it is closed).
    stdin: Option<&'static str>,
    /// Keep only the first this many lines of stdout (for exports).
    head: Option<usize>,
}

/// A case with no standard input that keeps all of stdout.
const fn case(name: &'static str, setup: Setup, args: &'static [&'static str]) -> Case {
    Case {
        name,
        setup,
        args,
        stdin: None,
        head: None,
    }
}

use Setup::{Bare, EmptyStore, Sample, Traced};

/// A SELECT over the named graphs, ordered.
const SELECT: &str = "SELECT DISTINCT ?e ?name WHERE { GRAPH ?g { ?e rk:entityType \"organization\" ; rk:name ?name } } ORDER BY ?name LIMIT 4";
/// An ASK that holds.
const ASK_QUERY: &str = "ASK { GRAPH ?g { ?e rk:name \"Tomas Reyes\" } }";
/// A two-hop sample question the heuristic answers.
const Q_SALT: &str = "Which institute did the author of The Salt Atlas join in 2019?";
/// A question the corpus has no answer to.
const Q_ZORBLAX: &str = "What colour is the moon of Zorblax?";
/// An answer to verify: one claim supported, one overreaching.
const ANSWER: &str = "Mara Ellison joined KICS in 2019 [c28.s3]. She taught at Halden University for twenty years [c28.s3].\n";

/// Every case: the command lines of every command that needs no network
/// and no model, human and `--json`, and their errors.
#[rustfmt::skip]
const CASES: &[Case] = &[
    // The top level.
    case("help", Bare, &["--help"]),
    case("version", Bare, &["--version"]),
    case("error_unknown_command", Bare, &["bogus"]),
    case("error_no_command", Bare, &[]),
    // Each command's flags (`bench` left out: its flags are being reworked).
    case("help_ingest", Bare, &["ingest", "--help"]),
    case("help_ask", Bare, &["ask", "--help"]),
    case("help_search", Bare, &["search", "--help"]),
    case("help_entity", Bare, &["entity", "--help"]),
    case("help_path", Bare, &["path", "--help"]),
    case("help_sparql", Bare, &["sparql", "--help"]),
    case("help_verify", Bare, &["verify", "--help"]),
    case("help_eval", Bare, &["eval", "--help"]),
    case("help_trace", Bare, &["trace", "--help"]),
    case("help_model", Bare, &["model", "--help"]),
    case("help_config_show", Bare, &["config", "show", "--help"]),
    case("help_stats", Bare, &["stats", "--help"]),
    case("help_rm", Bare, &["rm", "--help"]),
    case("help_export", Bare, &["export", "--help"]),
    case("help_generate", Bare, &["generate", "--help"]),
    case("help_serve", Bare, &["serve", "--help"]),
    case("help_mcp", Bare, &["mcp", "--help"]),
    // ingest
    case("ingest", Bare, &["--store", "store", "ingest", "corpus"]),
    case("ingest_json", Bare, &["--store", "store", "--json", "ingest", "corpus"]),
    case("ingest_again", Sample, &["--store", "store", "ingest", "corpus"]),
    case("ingest_again_json", Sample, &["--store", "store", "--json", "ingest", "corpus"]),
    case("ingest_empty", Bare, &["--store", "store", "ingest", "empty"]),
    case("ingest_quiet", Bare, &["--store", "store", "--quiet", "ingest", "corpus"]),
    case("error_ingest_missing_path", Bare, &["--store", "store", "ingest", "no-such-dir"]),
    case("error_ingest_bad_tokenizer", Bare, &["--store", "store", "ingest", "--tokenizer", "nothing.json", "corpus"]),
    case("error_ingest_no_path", Bare, &["--store", "store", "ingest"]),
    // stats
    case("stats", Sample, &["--store", "store", "stats"]),
    case("stats_json", Sample, &["--store", "store", "--json", "stats"]),
    case("stats_docs_check", Sample, &["--store", "store", "stats", "--docs", "--check"]),
    case("stats_docs_check_json", Sample, &["--store", "store", "--json", "stats", "--docs", "--check"]),
    case("stats_empty_store", EmptyStore, &["--store", "store", "stats"]),
    case("stats_empty_store_json", EmptyStore, &["--store", "store", "--json", "stats"]),
    case("error_stats_missing_store", Bare, &["--store", "store", "stats"]),
    case("error_stats_missing_store_json", Bare, &["--store", "store", "--json", "stats"]),
    // search
    case("search", Sample, &["--store", "store", "search", "Kestrel", "Institute", "-k", "3"]),
    case("search_json", Sample, &["--store", "store", "--json", "search", "Kestrel", "Institute", "-k", "3"]),
    case("search_no_hits", Sample, &["--store", "store", "search", "zorblax"]),
    case("search_empty_store", EmptyStore, &["--store", "store", "search", "kayak"]),
    case("search_empty_store_json", EmptyStore, &["--store", "store", "--json", "search", "kayak"]),
    case("error_search_missing_store", Bare, &["--store", "store", "search", "kayak"]),
    case("error_search_no_query", Sample, &["--store", "store", "search"]),
    case("error_search_bad_k", Sample, &["--store", "store", "search", "-k", "x", "kayak"]),
    // entity
    case("entity", Sample, &["--store", "store", "entity", "Kestrel Institute for Coastal Studies", "-k", "4"]),
    case("entity_json", Sample, &["--store", "store", "--json", "entity", "Kestrel Institute for Coastal Studies", "-k", "4"]),
    case("entity_by_alias", Sample, &["--store", "store", "entity", "KICS", "-k", "2"]),
    case("error_entity_similar", Sample, &["--store", "store", "entity", "Kestrel", "Institute"]),
    case("error_entity_unknown", Sample, &["--store", "store", "--json", "entity", "Zorblax"]),
    case("error_entity_empty_store", EmptyStore, &["--store", "store", "entity", "KICS"]),
    // path
    case("path", Sample, &["--store", "store", "path", "Tomas Reyes", "Kestrel Institute for Coastal Studies"]),
    case("path_json", Sample, &["--store", "store", "--json", "path", "Tomas Reyes", "Kestrel Institute for Coastal Studies"]),
    case("path_two_hops", Sample, &["--store", "store", "path", "Mara Ellison", "Tomas Reyes", "--max-hops", "3"]),
    case("path_facts", Sample, &["--store", "store", "path", "Mara Ellison", "Northlight Press", "--max-hops", "3"]),
    case("path_facts_json", Sample, &["--store", "store", "--json", "path", "Mara Ellison", "Northlight Press", "--max-hops", "3"]),
    case("path_none", Sample, &["--store", "store", "path", "Perth", "Halden University", "--max-hops", "3"]),
    case("path_none_json", Sample, &["--store", "store", "--json", "path", "Perth", "Halden University", "--max-hops", "3"]),
    case("error_path_unknown", Sample, &["--store", "store", "path", "Tomas Reyes", "Zorblax"]),
    // sparql
    case("sparql_select", Sample, &["--store", "store", "sparql", SELECT]),
    case("sparql_select_json", Sample, &["--store", "store", "--json", "sparql", SELECT]),
    case("sparql_ask", Sample, &["--store", "store", "sparql", ASK_QUERY]),
    case("sparql_ask_json", Sample, &["--store", "store", "--json", "sparql", ASK_QUERY]),
    case("error_sparql_syntax", Sample, &["--store", "store", "sparql", "SELECT ?x WHERE {"]),
    case("error_sparql_update", Sample, &["--store", "store", "sparql", "DELETE WHERE { ?s ?p ?o }"]),
    case("sparql_empty_store_json", EmptyStore, &["--store", "store", "--json", "sparql", SELECT]),
    // verify
    case("verify", Sample, &["--store", "store", "verify", "answer.txt"]),
    case("verify_json", Sample, &["--store", "store", "--json", "verify", "answer.txt"]),
    case("verify_quiet", Sample, &["--store", "store", "--quiet", "verify", "answer.txt"]),
    case("verify_strict", Sample, &["--store", "store", "verify", "--strict", "answer.txt"]),
    Case { stdin: Some("KICS is in Tromsø [c6]. It was founded in 1870 [c999].\n"), ..case("verify_stdin_json", Sample, &["--store", "store", "--json", "verify", "-"]) },
    case("error_verify_missing_file", Sample, &["--store", "store", "verify", "no-such-answer.txt"]),
    // ask (no model: the heuristic)
    case("ask_heuristic", Sample, &["--store", "store", "ask", "--strategy", "heuristic", Q_SALT]),
    case("ask_heuristic_json", Sample, &["--store", "store", "--json", "ask", "--strategy", "heuristic", Q_SALT]),
    case("ask_auto_no_model", Sample, &["--store", "store", "ask", Q_SALT]),
    case("ask_not_found_strict", Sample, &["--store", "store", "ask", "--strategy", "heuristic", "--strict", Q_ZORBLAX]),
    case("ask_not_found_json", Sample, &["--store", "store", "--json", "ask", "--strategy", "heuristic", Q_ZORBLAX]),
    case("ask_empty_store", EmptyStore, &["--store", "store", "ask", "--strategy", "heuristic", "Who founded KICS?"]),
    case("ask_empty_store_json", EmptyStore, &["--store", "store", "--json", "ask", "--strategy", "heuristic", "Who founded KICS?"]),
    case("error_ask_rlm_no_model", Sample, &["--store", "store", "ask", "--strategy", "rlm", Q_SALT]),
    case("error_ask_empty_question", Sample, &["--store", "store", "ask", " "]),
    case("error_ask_missing_store", Bare, &["--store", "store", "ask", "--strategy", "heuristic", Q_SALT]),
    case("error_ask_bad_strategy", Sample, &["--store", "store", "ask", "--strategy", "guess", Q_SALT]),
    // export
    Case { head: Some(12), ..case("export_nquads", Sample, &["--store", "store", "export"]) },
    Case { head: Some(16), ..case("export_turtle", Sample, &["--store", "store", "export", "--format", "turtle"]) },
    case("export_to_file", Sample, &["--store", "store", "export", "--format", "trig", "-o", "out.trig"]),
    case("export_empty_store", EmptyStore, &["--store", "store", "export"]),
    case("error_export_bad_format", Sample, &["--store", "store", "export", "--format", "rdfxml"]),
    // rm
    case("rm", Sample, &["--store", "store", "rm", "corpus/awards.jsonl", "corpus/aldergate.txt"]),
    case("rm_json", Sample, &["--store", "store", "--json", "rm", "corpus/awards.jsonl"]),
    case("rm_dir", Sample, &["--store", "store", "rm", "corpus"]),
    case("error_rm_not_in_store", Sample, &["--store", "store", "rm", "corpus/no-such-file.txt"]),
    // trace
    case("trace_show", Traced, &["--store", "store", "trace", "show"]),
    case("trace_show_json", Traced, &["--store", "store", "--json", "trace", "show"]),
    case("trace_export", Traced, &["--store", "store", "trace", "export"]),
    case("error_trace_show_none", Sample, &["--store", "store", "trace", "show"]),
    case("error_trace_export_none", Sample, &["--store", "store", "trace", "export"]),
    // eval (two sample questions, the heuristic)
    case("eval", Bare, &["eval", "q.jsonl", "--corpus", "corpus", "--strategy", "heuristic", "--out", "o"]),
    case("eval_json", Bare, &["--json", "eval", "q.jsonl", "--corpus", "corpus", "--strategy", "heuristic", "--out", "o"]),
    case("eval_retrieval_only_json", Bare, &["--json", "eval", "q.jsonl", "--corpus", "corpus", "--retrieval-only", "--out", "o"]),
    case("eval_wice", Bare, &["eval", "wice.jsonl", "--out", "o"]),
    case("eval_wice_json", Bare, &["--json", "eval", "wice.jsonl", "--out", "o"]),
    case("error_eval_no_corpus", Bare, &["eval", "q.jsonl", "--retrieval-only", "--out", "o"]),
    case("error_eval_missing_dataset", Bare, &["eval", "no-such.jsonl", "--retrieval-only", "--out", "o"]),
    // config
    case("config_show", Sample, &["--store", "store", "config", "show"]),
    case("config_show_json", Sample, &["--store", "store", "--json", "config", "show"]),
    case("config_show_flags", Bare, &["--store", "store", "config", "show", "--model", "m1", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "sk-secret-1234"]),
    // generate
    case("generate", Bare, &["generate", "incidents", "gen", "--reports", "3"]),
    case("generate_json", Bare, &["--json", "generate", "incidents", "gen", "--reports", "3"]),
    case("error_generate_not_empty", Bare, &["generate", "incidents", "nonempty"]),
    case("error_generate_zero", Bare, &["generate", "incidents", "gen", "--reports", "0"]),
    case("generate_world", Bare, &["generate", "world", "gen", "--seed", "1"]),
    // model (list only: pull downloads)
    case("model_list", Bare, &["model", "list"]),
    case("model_list_json", Bare, &["--json", "model", "list"]),
];

/// The replies of the scripted root model of [`Setup::Traced`]: a read,
/// then a final answer citing the sentence read.
fn scripted_root(req: &serde_json::Value, _: usize) -> Reply {
    Reply::Text(match turn(req) {
        0 => repl("print(context.read(\"c28.s3\"))"),
        _ => repl(
            "FINAL(\"Mara Ellison joined the Kestrel Institute for Coastal Studies in September 2019 [c28.s3].\")",
        ),
    })
}

/// A command for the binary in `dir` with a cleared configuration: no
/// `RLMKG_*` variable but an empty model directory, `HOME` the temp dir.
fn command(dir: &Path) -> std::process::Command {
    let mut cmd = without_models(dir);
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if k.starts_with("RLMKG_") && k != "RLMKG_MODEL_DIR" {
            cmd.env_remove(&key);
        }
    }
    for var in [
        "XDG_CONFIG_HOME",
        "COLUMNS",
        "RUST_BACKTRACE",
        "RUST_LOG",
        "HF_HOME",
        "HF_HUB_CACHE",
        "OPENAI_BASE_URL",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("HOME", dir);
    cmd
}

/// Copy `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A temp dir set up as `setup` says.
fn prepare(setup: Setup) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = repo_root();
    copy_dir(
        &root.join("examples").join("corpus"),
        &dir.path().join("corpus"),
    );
    std::fs::create_dir_all(dir.path().join("empty")).unwrap();
    std::fs::create_dir_all(dir.path().join("nonempty")).unwrap();
    std::fs::write(dir.path().join("nonempty").join("keep.txt"), "kept\n").unwrap();
    std::fs::write(dir.path().join("answer.txt"), ANSWER).unwrap();
    let questions = std::fs::read_to_string(root.join("examples").join("questions.jsonl")).unwrap();
    let two: String = questions
        .lines()
        .take(2)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.path().join("q.jsonl"), two).unwrap();
    std::fs::copy(
        root.join("tests/fixtures/citation/wice_small.jsonl"),
        dir.path().join("wice.jsonl"),
    )
    .unwrap();
    let source = match setup {
        Bare => return dir,
        Sample | Traced => "corpus",
        EmptyStore => "empty",
    };
    let out = command(dir.path())
        .args(["--store", "store", "--quiet", "ingest", source])
        .output()
        .unwrap();
    assert!(out.status.success(), "ingest failed: {}", stderr(&out));
    if let Setup::Traced = setup {
        let server = ChatServer::start(scripted_root).unwrap();
        let base = server.base_url();
        let out = command(dir.path())
            .args(["--store", "store", "--quiet", "ask", "--strategy", "rlm"])
            .args(["--base-url", &base, "--model", "scripted", "--no-cache"])
            .arg("Which institute did Mara Ellison join in 2019?")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "scripted ask failed: {}{}",
            stdout(&out),
            stderr(&out)
        );
    }
    dir
}

/// Regexes for what varies between runs and machines, each with its
/// replacement, applied in order.
static FILTERS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        // Timings and sizes in JSON (a float: integers such as a claim's
        // `index` stay).
        (
            r#""(seconds|mb_per_s|peak_rss_mb|walk|prepare|index|graph|commit|view|latency_ms|elapsed_ms|elapsed|started|finished)": -?\d+\.\d+(e-?\d+)?"#,
            r#""$1": "[N]""#,
        ),
        (
            r#""(latency_ms|elapsed_ms|ms|started_at|finished_at|time|timestamp|unix)": \d+"#,
            r#""$1": "[N]""#,
        ),
        // Dates and times.
        (
            r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?",
            "[DATE]",
        ),
        // Trajectory files and run ids: a time and a process id.
        (r"ask-\d+-\d+", "ask-[TIME]-[PID]"),
        (r"\brun-?[0-9a-f]{8,}\b", "run-[ID]"),
        // Durations and rates in words.
        (r"\d+(\.\d+)? ?MB/s", "[RATE] MB/s"),
        (r"\b\d+(\.\d+)? (ms|s)\b", "[DURATION]"),
        (r"\bseconds \d+\.\d+", "seconds [N]"),
        (r"\b\d+\.\d+s\b", "[DURATION]"),
        // eval's per-method row ends with seconds per run.
        (
            r"(?m)^([a-z][a-z-]* +\d+ +\d\.\d{3} .*?) +\d+\.\d$",
            "$1 [S/RUN]",
        ),
        // A run's random id, a local server's port.
        (r#"("run_id": ?)"[0-9a-f]+""#, r#"$1"[RUN-ID]""#),
        (r"\brun [0-9a-f]{16} ·", "run [RUN-ID] ·"),
        (r"127\.0\.0\.1:\d{5}\b", "127.0.0.1:[PORT]"),
        // Prompt tokens of a scripted model: they count the prompt's words.
        (r#""prompt_tokens": [1-9]\d*"#, r#""prompt_tokens": "[N]""#),
        (r"\b\d+\+(\d+) tokens", "[N]+$1 tokens"),
        (r"\b\d+ prompt \+", "[N] prompt +"),
        // The version.
        (r"\brlmkg \d+\.\d+\.\d+\S*", "rlmkg [VERSION]"),
    ]
    .into_iter()
    .map(|(re, with)| (Regex::new(re).unwrap(), with))
    .collect()
});

/// `text` with the temp dir, the repository and whatever varies filtered out.
fn normalise(text: &str, dir: &Path) -> String {
    let mut text = text.to_owned();
    let canonical = dir.canonicalize().unwrap();
    let root = repo_root();
    for (path, with) in [
        (canonical.as_path(), "[TMP]"),
        (dir, "[TMP]"),
        (root.as_path(), "[REPO]"),
    ] {
        let p = path.to_string_lossy();
        if !p.is_empty() {
            text = text.replace(p.as_ref(), with);
        }
    }
    for prompt in system_prompts(dir) {
        let escaped = serde_json::to_string(&prompt).unwrap();
        let escaped = &escaped[1..escaped.len() - 1];
        text = text.replace(escaped, "[SYSTEM PROMPT]");
        text = text.replace(&prompt, "[SYSTEM PROMPT]");
    }
    for (re, with) in FILTERS.iter() {
        text = re.replace_all(&text, *with).into_owned();
    }
    text
}

/// The system prompts of the trajectories under `dir/store/traces/`: the
/// root model's instructions, which change as they are tuned, are not the
/// command's output.
fn system_prompts(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir.join("store").join("traces")) else {
        return Vec::new();
    };
    let mut prompts = Vec::new();
    for entry in entries {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(p) = v["system_prompt"].as_str().filter(|p| !p.is_empty()) {
                prompts.push(p.to_owned());
            }
        }
    }
    prompts
}

/// Run one case and compare its output with its snapshot.
fn run_case(case: &Case) {
    let dir = prepare(case.setup);
    let mut cmd = command(dir.path());
    cmd.args(case.args);
    cmd.stdin(if case.stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(input) = case.stdin {
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(input.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let mut out_text = stdout(&out);
    if let Some(n) = case.head {
        let lines = out_text.lines().count();
        let kept: String = out_text.lines().take(n).map(|l| format!("{l}\n")).collect();
        out_text = format!("{kept}[… {lines} lines in all]\n");
    }
    let code = out
        .status
        .code()
        .map_or_else(|| "killed".to_owned(), |c| c.to_string());
    let shown_args: Vec<String> = case
        .args
        .iter()
        .map(|a| {
            if a.is_empty() || a.contains(char::is_whitespace) {
                format!("{a:?}")
            } else {
                (*a).to_owned()
            }
        })
        .collect();
    let text = format!(
        "$ rlmkg {}\nexit: {code}\n----- stdout -----\n{}----- stderr -----\n{}",
        shown_args.join(" "),
        normalise(&out_text, dir.path()),
        normalise(&stderr(&out), dir.path()),
    );
    insta::with_settings!({ omit_expression => true }, {
        insta::assert_snapshot!(case.name, text);
    });
}

/// Every case runs, and the test fails at the end naming every case whose
/// output differs from its snapshot (each difference is printed as it is
/// found, and insta writes it beside the snapshot as `.snap.new`).
#[test]
fn every_command_human_and_json() {
    let mut seen = std::collections::HashSet::new();
    let mut failed = Vec::new();
    for case in CASES {
        assert!(seen.insert(case.name), "two cases named {}", case.name);
        if std::panic::catch_unwind(|| run_case(case)).is_err() {
            failed.push(case.name);
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} cases differ from their snapshots: {failed:?}; review the .snap.new files \
         (cargo insta review), or accept them with INSTA_UPDATE=always",
        failed.len(),
        CASES.len()
    );
}
