//! The graph on a real SPARQL 1.1 endpoint (issue 31): the sample corpus is
//! ingested, exported with `rlmkg export --to-endpoint` to a Virtuoso this
//! test starts (free ports, a private database directory), and a handful of
//! SELECT and ASK queries are answered both by the local engine and through
//! `--sparql-endpoint`; the answers must be the same sets of rows. Then one
//! document changes and one is removed, the store is re-ingested and
//! re-exported, and the two must agree again. The HotpotQA corpus (994
//! passages, 181 k triples, from `../shared/data` when present) must answer
//! the same way too. Needs `RLMKG_VIRTUOSO_BIN`
//! (and `RLMKG_VIRTUOSO_ISQL`), set by `eval "$(ci/virtuoso.sh)"`; skips with
//! a message without them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rlm_core::testkit::free_port;
use rlmkg_tests::{repo_root, rlmkg, shared_data, stderr, stdout, stdout_ok};
use serde_json::Value;

/// A Virtuoso server of this test, killed when dropped.
struct Virtuoso {
    child: Child,
    http: u16,
    sql: u16,
    isql: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Virtuoso {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Virtuoso {
    /// Start `bin` on free ports over a fresh database, wait until `/sparql`
    /// answers, and let the anonymous SPARQL user update (the test's server
    /// listens on loopback only).
    fn start(bin: &Path, isql: &Path) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        let (http, sql) = (free_port().unwrap(), free_port().unwrap());
        let ini = format!(
            "[Database]\nDatabaseFile = {d}/db.db\nErrorLogFile = {d}/db.log\nLockFile = {d}/db.lck\n\
             TransactionFile = {d}/db.trx\nxa_persistent_file = {d}/db.pxa\n\
             [TempDatabase]\nDatabaseFile = {d}/temp.db\nTransactionFile = {d}/temp.trx\n\
             [Parameters]\nServerPort = 127.0.0.1:{sql}\nDirsAllowed = ., {d}\n\
             NumberOfBuffers = 10000\nMaxDirtyBuffers = 6000\n\
             [HTTPServer]\nServerPort = 127.0.0.1:{http}\nServerRoot = {d}\n\
             MaxClientConnections = 4\nServerThreads = 4\n\
             [SPARQL]\nResultSetMaxRows = 1000000\nMaxQueryExecutionTime = 60\n"
        );
        let ini_path = dir.path().join("virtuoso.ini");
        std::fs::write(&ini_path, ini).unwrap();
        let child = Command::new(bin)
            .args(["+foreground", "+configfile"])
            .arg(&ini_path)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let v = Self {
            child,
            http,
            sql,
            isql: isql.to_path_buf(),
            _dir: dir,
        };
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::blocking::Client::new();
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let up = client
                .get(format!("{}?query=ASK%20%7B%7D", v.url()))
                .send()
                .is_ok_and(|r| r.status().is_success());
            if up {
                break;
            }
            assert!(Instant::now() < deadline, "Virtuoso did not come up");
            std::thread::sleep(Duration::from_millis(300));
        }
        v.isql("grant SPARQL_UPDATE to \"SPARQL\";");
        v
    }

    /// Run SQL as `dba` with `isql-vt`.
    fn isql(&self, sql: &str) {
        let out = Command::new(&self.isql)
            .arg(format!("127.0.0.1:{}", self.sql))
            .args(["dba", "dba", &format!("exec={sql}")])
            .output()
            .unwrap();
        assert!(out.status.success(), "isql {sql} failed: {out:?}");
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/sparql", self.http)
    }
}

fn virtuoso_bins() -> Option<(PathBuf, PathBuf)> {
    let bin = std::env::var_os("RLMKG_VIRTUOSO_BIN").map(PathBuf::from)?;
    let isql = std::env::var_os("RLMKG_VIRTUOSO_ISQL")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("isql-vt"));
    Some((bin, isql))
}

/// `rlmkg --store STORE args…`, which must succeed; its stdout.
fn ok(dir: &Path, store: &Path, args: &[&str]) -> String {
    stdout_ok(
        rlmkg(dir)
            .arg("--store")
            .arg(store)
            .args(args)
            .env_remove("RLMKG_SPARQL_ENDPOINT"),
    )
}

/// A query's answer as a sorted list of rows (or `ASK`'s value), terms as
/// written: the endpoint client gives them in the local engine's form.
fn answer(dir: &Path, store: &Path, endpoint: Option<&str>, query: &str) -> Vec<Vec<String>> {
    let mut args = vec!["--json", "sparql", query];
    if let Some(e) = endpoint {
        // Sameness, not speed, is tested here (speed is `rlmkg bench`'s):
        // a loaded CI machine took Virtuoso past the 30 s default on the
        // HotpotQA store's every-triple query.
        args.extend(["--sparql-endpoint", e, "--timeout", "600"]);
    }
    let v: Value = serde_json::from_str(&ok(dir, store, &args)).unwrap();
    if let Some(b) = v["value"].as_bool() {
        return vec![vec![b.to_string()]];
    }
    let mut rows: Vec<Vec<String>> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .collect();
    rows.sort();
    rows
}

const QUERIES: &[(&str, &str)] = &[
    (
        "triples per document graph",
        "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?g a rk:Document . ?s ?p ?o } } GROUP BY ?g",
    ),
    (
        "every triple of every document graph",
        "SELECT ?g ?s ?p ?o WHERE { GRAPH ?g { ?g a rk:Document . ?s ?p ?o } }",
    ),
    (
        "entities of a type",
        "SELECT DISTINCT ?e ?name WHERE { GRAPH ?g { ?e rk:entityType \"person\" ; rk:name ?name } }",
    ),
    (
        "a relation lookup",
        "SELECT ?label ?o ?w WHERE { GRAPH ?g { ?r rk:subject ?s ; rk:label ?label ; rk:object ?o ; rk:weight ?w . ?s rk:name ?sn } FILTER(STRSTARTS(LCASE(?sn), \"k\")) }",
    ),
    (
        "a numeric FILTER",
        "SELECT ?ev ?start ?end WHERE { GRAPH ?g { ?ev rk:start ?start ; rk:end ?end } FILTER(?end - ?start > 100) }",
    ),
    (
        "ASK, true",
        "ASK { GRAPH ?g { ?d rk:title ?t FILTER(CONTAINS(?t, \"Kestrel\")) } }",
    ),
    (
        "ASK, false",
        "ASK { GRAPH ?g { ?d rk:title \"no such title\" } }",
    ),
];

fn same_answers(dir: &Path, store: &Path, url: &str) {
    for (what, q) in QUERIES {
        let local = answer(dir, store, None, q);
        let remote = answer(dir, store, Some(url), q);
        assert!(!local.is_empty(), "{what}: no local answer");
        assert_eq!(local, remote, "{what}: local and remote differ");
    }
    // The first query found rows: the comparison is not of two empty sets.
    let counts = answer(dir, store, None, QUERIES[0].1);
    assert!(counts.len() > 5, "{counts:?}");
}

#[test]
fn an_export_to_virtuoso_answers_as_the_local_engine_and_stays_in_step() {
    let Some((bin, isql)) = virtuoso_bins() else {
        eprintln!(
            "skipping: RLMKG_VIRTUOSO_BIN is not set (run `eval \"$(ci/virtuoso.sh)\"` to install Virtuoso)"
        );
        return;
    };
    let v = Virtuoso::start(&bin, &isql);
    let url = v.url();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let corpus = dir.join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    for e in std::fs::read_dir(repo_root().join("examples").join("corpus")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), corpus.join(e.file_name())).unwrap();
    }
    let store = dir.join("store");
    let corpus_arg = corpus.to_str().unwrap();
    ok(dir, &store, &["--quiet", "ingest", corpus_arg]);

    let push = || -> Value {
        serde_json::from_str(&ok(
            dir,
            &store,
            &["--json", "export", "--to-endpoint", &url],
        ))
        .unwrap()
    };
    let first = push();
    let docs = first["pushed"].as_u64().unwrap();
    assert!(docs >= 10, "{first}");
    assert_eq!(first["unchanged"], 0, "{first}");
    same_answers(dir, &store, &url);

    // Again, nothing changed: nothing is sent.
    let again = push();
    assert_eq!(again["pushed"], 0, "{again}");
    assert_eq!(again["unchanged"].as_u64(), Some(docs), "{again}");
    assert_eq!(again["dropped"], 0, "{again}");

    // One document changes, one goes.
    let changed = corpus.join("tomas_reyes.md");
    let mut text = std::fs::read_to_string(&changed).unwrap();
    text.push_str(
        "\n\nTomás Reyes later joined the Vardal Shipyard in Skarvik as its archivist.\n",
    );
    std::fs::write(&changed, text).unwrap();
    std::fs::remove_file(corpus.join("aldergate.txt")).unwrap();
    ok(dir, &store, &["--quiet", "ingest", corpus_arg]);
    let after = push();
    eprintln!("after one change and one removal: {after}");
    assert!(after["pushed"].as_u64().unwrap() >= 1, "{after}");
    assert!(after["dropped"].as_u64().unwrap() >= 1, "{after}");
    assert!(
        after["unchanged"].as_u64().unwrap() >= docs - 3,
        "only the changed documents are sent again: {after}"
    );
    same_answers(dir, &store, &url);

    // The REPL's `context.sparql` goes to the endpoint too, also when called
    // from inside an async runtime (as the REPL calls it).
    let handle_answer = |remote: bool| -> Result<Value, rlm_core::HandleError> {
        let mut s = rlmkg::open_store_read(&store).unwrap();
        if remote {
            let e = rlmkg_endpoint::Endpoint::new(&url, None).unwrap();
            s.set_sparql_remote(Some(std::sync::Arc::new(e)));
        }
        let h = rlmkg::StoreHandle::new(std::sync::Arc::new(s));
        let q = format!("PREFIX rk: <https://rlmkg.invalid/ns#>\n{}", QUERIES[0].1);
        let rt = tokio::runtime::Runtime::new().unwrap();
        let reply = rt.block_on(async {
            rlm_core::ContextHandle::call(&h, "sparql", &[Value::from(q)], &Default::default())
        });
        let mut v = reply?.value;
        let rows = v["rows"].as_array_mut().unwrap();
        assert!(!rows.is_empty(), "no rows: {v}");
        rows.sort_by_key(|r| r.to_string());
        Ok(v)
    };
    assert_eq!(handle_answer(false).unwrap(), handle_answer(true).unwrap());

    // Read-only: an update is refused before it is sent, and nothing changed.
    let out = rlmkg(dir)
        .arg("--store")
        .arg(&store)
        .args([
            "sparql",
            "--sparql-endpoint",
            &url,
            "INSERT DATA { GRAPH <urn:x> { <urn:a> <urn:b> <urn:c> } }",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("not allowed"), "{}", stderr(&out));
    same_answers(dir, &store, &url);

    // The environment variable chooses the endpoint too.
    let out = rlmkg(dir)
        .arg("--store")
        .arg(&store)
        .args(["--json", "sparql", QUERIES[0].1])
        .env("RLMKG_SPARQL_ENDPOINT", &url)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    // An endpoint that wants credentials says so (Virtuoso's digest-guarded
    // `/sparql-auth`, asked without any).
    let out = rlmkg(dir)
        .arg("--store")
        .arg(&store)
        .args([
            "export",
            "--to-endpoint",
            &url.replace("/sparql", "/sparql-auth"),
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("HTTP 401"), "{}", stderr(&out));

    // HTTP Basic credentials, from a file and from the environment: a user
    // allowed to update, behind an endpoint path that asks for Basic auth.
    v.isql(
        "DB.DBA.USER_CREATE ('rk', 'rk-secret'); GRANT SPARQL_UPDATE TO \"rk\"; \
         DB.DBA.VHOST_DEFINE (lhost=>'*ini*', vhost=>'*ini*', lpath=>'/sparql-basic', \
         ppath=>'/!sparql/', is_dav=>1, def_page=>'', vsp_user=>'dba', ses_vars=>0, \
         auth_fn=>'DB.DBA.HP_AUTH_SQL_USER', realm=>'SPARQL', opts=>vector('noinherit', 1));",
    );
    let basic = url.replace("/sparql", "/sparql-basic");
    let auth = dir.join("auth");
    std::fs::write(&auth, "rk:wrong\n").unwrap();
    let export_basic = |record: &str| {
        rlmkg(dir)
            .arg("--store")
            .arg(&store)
            .args([
                "--json",
                "export",
                "--to-endpoint",
                &basic,
                "--graph",
                record,
            ])
            .arg("--endpoint-auth-file")
            .arg(&auth)
            .output()
            .unwrap()
    };
    let out = export_basic("urn:rlmkg:export-basic");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("HTTP 401"), "{}", stderr(&out));
    std::fs::write(&auth, "rk:rk-secret\n").unwrap();
    let out = export_basic("urn:rlmkg:export-basic");
    assert!(out.status.success(), "{}", stderr(&out));
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    // A record graph of its own: everything is sent again under it.
    assert_eq!(
        s["pushed"],
        after["pushed"].as_u64().unwrap() + after["unchanged"].as_u64().unwrap(),
        "{s}"
    );
    let out = rlmkg(dir)
        .arg("--store")
        .arg(&store)
        .args(["sparql", "--sparql-endpoint", &basic, QUERIES[5].1])
        .env("RLMKG_ENDPOINT_USER", "rk")
        .env("RLMKG_ENDPOINT_PASSWORD", "rk-secret")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "true");

    // A stopped endpoint is a clear error, not a local answer.
    drop(v);
    let out = rlmkg(dir)
        .arg("--store")
        .arg(&store)
        .args(["sparql", "--sparql-endpoint", &url, "ASK {}"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("unreachable"), "{}", stderr(&out));
    // The handle with an endpoint asks it, never the local engine.
    let err = handle_answer(true).unwrap_err();
    assert!(err.to_string().contains("unreachable"), "{err}");
}

#[test]
fn hotpotqa_answers_on_virtuoso_as_locally_when_present() {
    let Some((bin, isql)) = virtuoso_bins() else {
        eprintln!(
            "skipping: RLMKG_VIRTUOSO_BIN is not set (run `eval \"$(ci/virtuoso.sh)\"` to install Virtuoso)"
        );
        return;
    };
    let Some(data) = shared_data("hotpotqa_train.json") else {
        eprintln!("skipping: ../shared/data/hotpotqa_train.json is absent");
        return;
    };
    let v = Virtuoso::start(&bin, &isql);
    let url = v.url();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // `eval` ingests the pooled passages into `o/store`, one document each.
    let out = rlmkg(dir)
        .args(["--quiet", "eval", data.to_str().unwrap()])
        .args(["--retrieval-only", "--limit", "1", "--out", "o"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let store = dir.join("o").join("store");
    let pushed: Value = serde_json::from_str(&ok(
        dir,
        &store,
        &["--json", "export", "--to-endpoint", &url],
    ))
    .unwrap();
    assert_eq!(pushed["pushed"], 994, "{pushed}");
    same_answers(dir, &store, &url);
}
