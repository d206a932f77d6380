//! Dense retrieval end to end (issue 46): `ingest --embed` writes a vector per
//! chunk, `search --mode dense` finds a paraphrase BM25 cannot, removing a
//! file removes its vectors (and keeps its pack-mates'), and a later ingest
//! without the flag keeps the store's vectors.
//!
//! The tests that embed need the sentence encoder (`rlmkg model pull
//! encoder`; `.ci/run` installs it) and skip with a message when it is
//! absent. The ones without it check what a user without the encoder sees.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use rlm_core::embedded;
use rlmkg_tests::{rlmkg, stderr, stdout, stdout_ok, without_models};
use serde_json::Value;

/// One file each: (file name, text). The query below shares no word with
/// the first, so BM25 cannot find it; its meaning is the first's.
const FILES: &[(&str, &str)] = &[
    (
        "medicine.txt",
        "The physician prescribed medication for the patient's chronic migraines.",
    ),
    (
        "river.txt",
        "The river floods its valley every spring, and the farmers move their sheep uphill.",
    ),
    (
        "pasta.txt",
        "Boil the spaghetti in salted water for nine minutes, then drain it.",
    ),
    (
        "stadium.txt",
        "The football club opened its new stadium in the north of the city last season.",
    ),
];
const QUERY: &str = "a doctor gave drugs to someone with bad headaches";

/// Whether the encoder is installed; says why the test skips when not.
fn encoder_installed() -> bool {
    if embedded::installed_encoder().is_some() {
        return true;
    }
    eprintln!(
        "skipping: the sentence encoder is not installed in {} (run `rlmkg model pull encoder`)",
        embedded::model_cache_dir().display()
    );
    false
}

fn write_corpus(dir: &Path) -> std::path::PathBuf {
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    for (name, text) in FILES {
        std::fs::write(corpus.join(name), text).unwrap();
    }
    corpus
}

/// A new folder with [`FILES`] and `more` (file name, text) under `corpus/`,
/// ingested with `--embed` into `store/`; `None` (the test skips) when the
/// encoder is not installed.
fn embedded_store(more: &[(&str, &str)]) -> Option<tempfile::TempDir> {
    if !encoder_installed() {
        return None;
    }
    let tmp = tempfile::tempdir().unwrap();
    let corpus = write_corpus(tmp.path());
    for (name, text) in more {
        std::fs::write(corpus.join(name), text).unwrap();
    }
    let corpus = corpus.to_str().unwrap();
    ok(tmp.path(), &["--quiet", "ingest", "--embed", corpus]);
    Some(tmp)
}

/// `rlmkg --store store <args…>` in `dir`; must succeed.
fn ok(dir: &Path, args: &[&str]) -> String {
    stdout_ok(rlmkg(dir).args(["--store", "store"]).args(args))
}

/// The file names of `search --mode MODE`'s hits, best first.
fn search(dir: &Path, mode: &str, query: &str) -> Vec<String> {
    let out = ok(dir, &["--json", "search", "--mode", mode, "-k", "2", query]);
    let hits: Value = serde_json::from_str(&out).unwrap();
    hits.as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let path = h["path"].as_str().unwrap();
            Path::new(path)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

#[test]
fn dense_search_finds_a_paraphrase_bm25_misses_and_removal_takes_its_vectors() {
    let Some(tmp) = embedded_store(&[]) else {
        return;
    };
    let dir = tmp.path();
    let corpus = dir.join("corpus");

    assert!(
        !search(dir, "bm25", QUERY).contains(&"medicine.txt".to_string()),
        "BM25 should not find the paraphrase"
    );
    assert_eq!(search(dir, "dense", QUERY).first().unwrap(), "medicine.txt");
    assert_eq!(
        search(dir, "hybrid", QUERY).first().unwrap(),
        "medicine.txt"
    );
    // The default of a store with vectors is hybrid.
    let default = ok(dir, &["--json", "search", "-k", "1", QUERY]);
    assert!(default.contains("medicine.txt"), "{default}");

    // Removing the file removes its vectors; its pack-mates keep theirs.
    ok(dir, &["rm", corpus.join("medicine.txt").to_str().unwrap()]);
    let after = search(dir, "dense", QUERY);
    assert!(!after.contains(&"medicine.txt".to_string()), "{after:?}");
    let pasta = search(dir, "dense", "cooking noodles in a pot");
    assert_eq!(pasta.first().unwrap(), "pasta.txt");
    let check = ok(dir, &["stats", "--check"]);
    assert!(check.contains("invariants ok"), "{check}");

    // An ingest without --embed keeps the store's vectors and makes the new file's.
    std::fs::write(
        corpus.join("violin.txt"),
        "She has played the violin in the city orchestra for twenty years.",
    )
    .unwrap();
    ok(dir, &["--quiet", "ingest", corpus.to_str().unwrap()]);
    let music = search(dir, "dense", "a musician performing classical concerts");
    assert_eq!(music.first().unwrap(), "violin.txt");
    let check = ok(dir, &["stats", "--check"]);
    assert!(check.contains("invariants ok"), "{check}");
}

#[test]
fn without_vectors_dense_retrieval_is_off_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let corpus = write_corpus(dir);
    let store = dir.join("store");
    let run = |args: &[&str]| {
        without_models(dir)
            .arg("--store")
            .arg(&store)
            .args(args)
            .output()
            .unwrap()
    };
    // --embed with no encoder installed: refused, saying how to install it.
    let out = run(&["ingest", "--embed", corpus.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("rlmkg model pull encoder"),
        "{}",
        stderr(&out)
    );

    let out = run(&["ingest", corpus.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stderr(&out).matches("dense retrieval is off").count(),
        1,
        "{}",
        stderr(&out)
    );
    // Search works as before (BM25), saying once that dense retrieval is off.
    let out = run(&["search", "spaghetti"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("pasta.txt"));
    assert_eq!(stderr(&out).matches("dense retrieval is off").count(), 1);
    // Asking for dense search is an error that says why.
    let out = run(&["search", "--mode", "dense", "spaghetti"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("keeps no vectors"),
        "{}",
        stderr(&out)
    );
}

/// A vector file no manifest names (the residue of an ingest killed before
/// its commit) is removed when a writer next opens the store.
#[test]
fn an_unlisted_vector_file_is_removed_by_the_next_writer() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let corpus = write_corpus(dir);
    let store = dir.join("store");
    let ingest = || {
        let out = without_models(dir)
            .arg("--store")
            .arg(&store)
            .args(["--quiet", "ingest", corpus.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    };
    ingest();
    let stray = store.join("vectors").join("p99.vec");
    std::fs::write(&stray, b"RKVEC residue of a killed ingest").unwrap();
    ingest();
    assert!(!stray.exists(), "the unlisted vector file is still there");
}

/// The entity of the entity-name test.
const FOUNDER: &str = "Ivar Lindqvist";
/// The founder as a catalogue writes him, surname first: no entity goes by
/// it (his surname alone does, since a person's surname is its alias).
const FOUNDER_OTHERWISE: &str = "Lindqvist, Ivar";

/// The entities `rlmkg::open_store_read` finds near `name` by meaning.
fn similar(store: &Path, name: &str) -> Vec<String> {
    let s = rlmkg::open_store_read(store).unwrap();
    s.similar_entities(name, 3)
        .unwrap()
        .into_iter()
        .map(|(e, _)| e.name)
        .collect()
}

/// Entity names have vectors (issue 46): a name written otherwise finds the
/// entity by its vector, seeds `related` in hybrid mode (not in BM25 mode);
/// removing the document takes its names' vectors, and a store whose name
/// vectors went missing (a kill) forgets that pack's files until the next
/// ingest makes them again.
#[test]
fn an_entity_name_written_otherwise_finds_the_entity_by_its_vector() {
    let founded = format!("{FOUNDER} founded a research institute in Tromsø, Norway, in 1998.");
    let Some(tmp) = embedded_store(&[("institute.txt", &founded)]) else {
        return;
    };
    let dir = tmp.path();
    let corpus = dir.join("corpus");
    let institute = corpus.join("institute.txt");
    let store = dir.join("store");
    {
        let s = rlmkg::open_store_read(&store).unwrap();
        assert!(
            s.entity(FOUNDER_OTHERWISE).unwrap().is_none(),
            "the test needs a name no entity goes by"
        );
    }
    assert_eq!(
        similar(&store, FOUNDER_OTHERWISE)
            .first()
            .map(String::as_str),
        Some(FOUNDER)
    );
    assert!(
        similar(&store, "a recipe for tomato soup").is_empty(),
        "nothing is named like that"
    );
    // `related` from that seed alone reaches the institute's chunk in hybrid
    // mode; BM25 mode matches names only as written.
    let related = |mode: rlmkg::SearchMode| -> Vec<String> {
        let s = rlmkg::open_store_read(&store).unwrap();
        s.related_with(&[FOUNDER_OTHERWISE.to_string()], None, 3, mode)
            .unwrap()
            .into_iter()
            .map(|c| c.path)
            .collect()
    };
    let hybrid = related(rlmkg::SearchMode::Hybrid);
    assert!(
        hybrid.first().is_some_and(|p| p.ends_with("institute.txt")),
        "{hybrid:?}"
    );
    assert!(related(rlmkg::SearchMode::Bm25).is_empty());

    // A lost name-vector file (a kill between writing and syncing it): the
    // next writer forgets the pack's files, and the ingest makes them again.
    let vectors = store.join("vectors");
    for e in std::fs::read_dir(&vectors).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "ent") {
            std::fs::remove_file(e.path()).unwrap();
        }
    }
    ok(dir, &["--quiet", "ingest", corpus.to_str().unwrap()]);
    assert!(
        std::fs::read_dir(&vectors)
            .unwrap()
            .flatten()
            .any(|e| { e.path().extension().is_some_and(|x| x == "ent") })
    );
    assert_eq!(
        similar(&store, FOUNDER_OTHERWISE)
            .first()
            .map(String::as_str),
        Some(FOUNDER)
    );
    let check = ok(dir, &["stats", "--check"]);
    assert!(check.contains("invariants ok"), "{check}");

    // Removing the document removes its names' vectors (its pack-mates'
    // names moved to a new pack without them).
    ok(dir, &["rm", institute.to_str().unwrap()]);
    let names_held = || -> Vec<String> {
        std::fs::read_dir(&vectors)
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "ent"))
            .filter(|e| {
                let bytes = std::fs::read(e.path()).unwrap();
                bytes
                    .windows(FOUNDER.len())
                    .any(|w| w == FOUNDER.as_bytes())
            })
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(names_held(), Vec::<String>::new());
    assert!(similar(&store, FOUNDER_OTHERWISE).is_empty());
    let check = ok(dir, &["stats", "--check"]);
    assert!(check.contains("invariants ok"), "{check}");
}
