#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Bad input and faults (issue 2): bad files are skipped with warnings, a second
//! writer fails at once naming the holder, a foreign format version is a clear
//! error, and an ingest killed with SIGKILL at random moments always leaves a
//! store that opens, passes the invariants and is completed by a re-run.

use std::path::Path;
use std::time::{Duration, Instant};

use rlmkg_ingest::Store;
use rlmkg_tests::{ask_heuristic, fixture, rlmkg, run, stderr, stdout};

fn check_store(dir: &Path) -> rlmkg_ingest::InvariantReport {
    let store = Store::create_or_open(dir).expect("store opens");
    let r = store.check_invariants().unwrap();
    assert!(r.ok(), "invariants violated: {:#?}", r.violations);
    r
}

/// A reader opened right after a kill, before any writer recovers the store,
/// sees exactly the last committed state: every listed document's records,
/// view and RDF are there, and the invariants hold for what it sees.
fn check_reader(dir: &Path) {
    let Ok(store) = Store::open_read(dir) else {
        // Killed before the first commit: no manifest yet.
        assert!(!dir.join("manifest.json").exists());
        return;
    };
    let r = store.check_invariants().unwrap();
    assert!(r.ok(), "a reader sees violations: {:#?}", r.violations);
    let listed: u64 = store.manifest().files.values().map(|f| f.doc_count).sum();
    assert_eq!(store.view().unwrap().summary().docs, listed);
    store.entities("Kestrel", 3).unwrap();
    store
        .sparql("ASK { ?s ?p ?o }", Duration::from_secs(10))
        .unwrap();
}

#[test]
fn bad_inputs_are_skipped_with_warnings_never_an_abort() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad");
    std::fs::create_dir(&bad).unwrap();
    for e in std::fs::read_dir(fixture("ingest/bad")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), bad.join(e.file_name())).unwrap();
    }
    std::os::unix::fs::symlink("loop_b", bad.join("loop_a.txt")).unwrap();
    std::os::unix::fs::symlink("loop_a.txt", bad.join("loop_b")).unwrap();
    std::os::unix::fs::symlink("missing.txt", bad.join("dangling.txt")).unwrap();
    let out = run(tmp.path(), &["--json", "ingest", "bad"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let s: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    for needle in [
        "binary.txt",
        "latin1.txt",
        "malformed.jsonl:2",
        "corrupt.pdf",
        "image.png",
        "dangling",
    ] {
        assert!(err.contains(needle), "no warning about {needle}: {err}");
    }
    // latin1 (lossy), huge line, malformed.jsonl's good lines, empty file: ingested.
    assert!(s["ingested"].as_u64().unwrap() >= 3, "{s}");
    assert!(s["skipped"].as_u64().unwrap() >= 4, "{s}");
    assert!(s["warnings"].as_u64().unwrap() >= 6, "{s}");
    assert!(s["docs"].as_u64().unwrap() >= 4, "{s}");
    check_store(&tmp.path().join(".rlmkg"));
}

#[test]
fn second_writer_fails_at_once_naming_the_holder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".rlmkg");
    let holder = Store::create_or_open(&dir).unwrap();
    let t = Instant::now();
    let out = run(
        tmp.path(),
        &["ingest", fixture("ingest/formats").to_str().unwrap()],
    );
    assert!(t.elapsed() < Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("locked by another writer"), "{err}");
    assert!(
        err.contains(&format!("pid {}", std::process::id())),
        "{err}"
    );
    drop(holder);
    let out = run(
        tmp.path(),
        &["ingest", fixture("ingest/formats").to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn other_format_version_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(
        tmp.path(),
        &["ingest", fixture("ingest/formats").to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let m = tmp.path().join(".rlmkg/manifest.json");
    let text = std::fs::read_to_string(&m).unwrap();
    std::fs::write(
        &m,
        text.replace(
            &format!("\"format_version\": {}", rlmkg_ingest::FORMAT_VERSION),
            "\"format_version\": 999",
        ),
    )
    .unwrap();
    for args in [&["search", "kestrel"][..], &["ingest", "."][..]] {
        let out = run(tmp.path(), args);
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert!(
            err.contains("format version 999")
                && err.contains(&format!("reads version {}", rlmkg_ingest::FORMAT_VERSION)),
            "{err}"
        );
    }
}

fn write_corpus(dir: &Path, files: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let people = [
        "Marta Lindqvist",
        "Ola Haugen",
        "Greta Aalto",
        "Hugo Varga",
        "Tomas Reyes",
    ];
    let places = ["Tromsø", "Bergen", "Lisbon", "Aarhus", "Geneva"];
    for i in 0..files {
        let mut text = String::new();
        for k in 0..40 {
            let p = people[(i + k) % people.len()];
            let q = places[(i * 3 + k) % places.len()];
            text.push_str(&format!(
                "{p} visited the Kestrel Institute in {q} in {}. ",
                1950 + (i + k) % 60
            ));
            if k % 7 == 6 {
                text.push_str("\n\n");
            }
        }
        std::fs::write(dir.join(format!("doc{i:03}.txt")), text).unwrap();
    }
}

#[test]
fn sigkill_at_random_moments_leaves_a_consistent_store() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    write_corpus(&corpus, 30);
    let store = tmp.path().join(".rlmkg");
    // Seeded from the clock; printed so a failure can be replayed by reading the log.
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("kill-loop seed {seed}");
    // Each round edits a third of the files; kill moments spread over how long such
    // a re-ingest takes here (measured on a scratch store), so kills land whatever
    // the machine's speed.
    let edit = |seed: u64, round: usize| {
        for k in 0..10u64 {
            let victim = corpus.join(format!("doc{:03}.txt", (seed + k * 3) % 30));
            let mut t = std::fs::read_to_string(&victim).unwrap();
            t.push_str(&format!(" Edit {round} by Greta Aalto in Geneva."));
            std::fs::write(&victim, t).unwrap();
        }
    };
    let scratch_ingest = || {
        let out = rlmkg(tmp.path())
            .args([
                "--store",
                "scratch",
                "--quiet",
                "ingest",
                "corpus",
                "--batch-bytes",
                "8000",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    };
    scratch_ingest();
    edit(seed, 0);
    let started = std::time::Instant::now();
    scratch_ingest();
    let round_ms = (started.elapsed().as_millis() as u64).max(20);
    eprintln!("a round's re-ingest takes {round_ms} ms");
    let mut kills = 0;
    let mut attempts = 0;
    while kills < 20 && attempts < 60 {
        attempts += 1;
        // Change a few files between runs so re-ingest replaces and adds.
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        edit(seed, attempts);
        let mut child = rlmkg(tmp.path())
            .args(["--quiet", "ingest", "corpus", "--batch-bytes", "8000"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let delay = Duration::from_millis(1 + seed % round_ms);
        std::thread::sleep(delay);
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            kills += 1;
        }
        child.wait().unwrap();
        check_reader(&store);
        check_store(&store);
    }
    assert!(
        kills >= 20,
        "only {kills} kills landed in {attempts} attempts"
    );
    let out = run(tmp.path(), &["--json", "ingest", "corpus"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let r = check_store(&store);
    let s = Store::open_read(&store).unwrap();
    assert_eq!(s.manifest().files.len(), 30);
    assert_eq!(r.docs, 30);
    // A last run finds nothing to do.
    let out = run(tmp.path(), &["--json", "ingest", "corpus"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["unchanged"], 30, "{v}");
}

/// Ingest stays inside the folders it is given (issue 15): a symlink out of the
/// root (to a secret file, to a folder, to `/proc`) is skipped with a warning
/// and counted, and so is a file over `--max-file-size`; nothing of theirs
/// reaches the store.
#[test]
fn ingest_stays_inside_its_roots_and_under_the_size_cap() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("docs");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(outside.join("dir")).unwrap();
    std::fs::write(root.join("ok.txt"), "Anna Berg founded Fjordline in Oslo.").unwrap();
    std::fs::write(root.join("inner.txt"), "Dora Eik painted the harbour.").unwrap();
    std::fs::write(outside.join("secret.txt"), "The vault code is zebra-4711.").unwrap();
    std::fs::write(outside.join("dir/more.txt"), "Another secret: quokka-99.").unwrap();
    std::fs::write(root.join("big.txt"), "word ".repeat(50_000)).unwrap();
    let link =
        |target: &Path, name: &str| std::os::unix::fs::symlink(target, root.join(name)).unwrap();
    link(&outside.join("secret.txt"), "secret.txt");
    link(&outside.join("dir"), "linked_dir");
    link(Path::new("/proc/self/pagemap"), "pagemap.txt");
    link(Path::new("/proc/self"), "proc_self");
    // A link inside the root is fine (and read once).
    link(&root.join("inner.txt"), "alias.txt");
    let out = run(
        tmp.path(),
        &["--json", "ingest", "docs", "--max-file-size", "100000"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let s: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    for needle in [
        "secret.txt",
        "linked_dir",
        "pagemap.txt",
        "proc_self",
        "big.txt",
    ] {
        assert!(err.contains(needle), "no warning about {needle}: {err}");
    }
    assert!(err.contains("--max-file-size"), "{err}");
    assert_eq!(s["ingested"], 2, "{s}");
    assert!(s["skipped"].as_u64().unwrap() >= 5, "{s}");
    for q in ["zebra", "quokka"] {
        let out = run(tmp.path(), &["--json", "search", q]);
        assert!(out.status.success(), "{}", stderr(&out));
        let hits: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(hits.as_array().map(Vec::len), Some(0), "{q}: {hits}");
    }
    check_store(&tmp.path().join(".rlmkg"));
}

/// A temp dir holding a copy of the sample corpus (`corpus/`) ingested into
/// `.rlmkg`, with the store's path.
fn sample_copy() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    let sample = rlmkg_tests::repo_root().join("examples").join("corpus");
    for e in std::fs::read_dir(sample).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), corpus.join(e.file_name())).unwrap();
        }
    }
    let out = run(tmp.path(), &["--quiet", "ingest", "corpus"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let store = tmp.path().join(".rlmkg");
    (tmp, store)
}

/// A store damaged from outside (issue 32) says it is damaged, names what
/// is missing and the ingest that mends it, every time it is asked: never
/// "changed while it was being read; run the command again", which no rerun
/// fixes. The ingest it names does mend it.
#[test]
fn a_damaged_store_names_what_is_missing_and_the_ingest_that_mends_it() {
    // What is removed, a command that reads it, what the error names.
    let cases: &[(&str, &[&str], &str)] = &[
        ("texts", &["search", "salt"], "texts/ is missing"),
        (
            "texts/p1.txt",
            &["search", "salt"],
            "texts/p1.txt is missing",
        ),
        ("graph", &["stats"], "graph/ is missing"),
        (
            "graph/docs",
            &["sparql", "ASK { ?s ?p ?o }"],
            "the graph records p1.rec are missing",
        ),
        ("index", &["search", "salt"], "index/ is missing"),
    ];
    for &(removed, command, names) in cases {
        let (tmp, store) = sample_copy();
        let gone = store.join(removed);
        if gone.is_dir() {
            std::fs::remove_dir_all(&gone).unwrap();
        } else {
            std::fs::remove_file(&gone).unwrap();
        }
        for attempt in ["first", "rerun"] {
            let out = run(tmp.path(), command);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{removed}, {attempt}: {err}");
            assert!(
                err.contains("the store at .rlmkg is damaged")
                    && err.contains(names)
                    && err.contains("rlmkg ingest"),
                "{removed}, {attempt}: {err}"
            );
            assert!(!err.contains("changed while"), "{removed}: {err}");
        }
        let out = run(tmp.path(), &["--quiet", "ingest", "corpus"]);
        assert!(out.status.success(), "{removed}: {}", stderr(&out));
        let out = run(tmp.path(), command);
        assert!(out.status.success(), "{removed}, mended: {}", stderr(&out));
        check_store(&store);
    }
}

/// The other side: a reader whose files a writer replaced after it read
/// the manifest is told the store changed, and a rerun reads the new state.
#[test]
fn a_reader_behind_a_commit_is_told_to_run_again() {
    let (tmp, store) = sample_copy();
    let reader = Store::open_read(&store).unwrap();
    let review = tmp.path().join("corpus").join("salt_atlas_review.md");
    let mut text = std::fs::read_to_string(&review).unwrap();
    text.push_str("\n\nA later note on the salt marshes.\n");
    std::fs::write(&review, text).unwrap();
    let out = run(tmp.path(), &["--quiet", "ingest", "corpus"]);
    assert!(out.status.success(), "{}", stderr(&out));
    match reader.search("salt", 5) {
        Err(rlmkg_ingest::StoreError::Changed(dir)) => assert_eq!(dir, store),
        other => panic!("expected StoreError::Changed, got {other:?}"),
    }
    let again = Store::open_read(&store).unwrap();
    assert!(!again.search("salt", 5).unwrap().is_empty());
}

/// An error whose message already says its cause (issue 32: "error: store:
/// X: Y: X: Y") is printed with each cause once: a pack's text file that
/// is a folder fails the read with the same I/O error under `search` (the
/// store's error) and `ask` (the store's error inside the answer's).
#[test]
fn an_error_chain_is_printed_with_each_cause_once() {
    let (tmp, store) = sample_copy();
    let pack = store.join("texts").join("p1.txt");
    std::fs::remove_file(&pack).unwrap();
    std::fs::create_dir(&pack).unwrap();
    let os_error = std::io::Error::from_raw_os_error(21).to_string();
    let search = run(
        tmp.path(),
        &["--store", store.to_str().unwrap(), "search", "salt"],
    );
    let ask = ask_heuristic(tmp.path(), &store, &[], "Who wrote The Salt Atlas?")
        .output()
        .unwrap();
    for (name, out, prefix) in [("search", search, ""), ("ask", ask, "store: ")] {
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert_eq!(
            err.trim_end(),
            format!("error: {prefix}{}: {os_error}", pack.display()),
            "{name}"
        );
    }
}
