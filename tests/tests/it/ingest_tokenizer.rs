#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `rlmkg ingest --tokenizer` end to end (SPEC §4.2): token counts from a real
//! `tokenizers` tokenizer (a tiny WordLevel fixture: one token per word or
//! punctuation run), found as a file, beside a GGUF or in a local Hugging Face
//! cache; chunking settings recorded in the manifest, re-chunking when they
//! change and not otherwise; clear errors.

use std::path::{Path, PathBuf};
use std::process::Output;

use rlmkg_ingest::Store;
use rlmkg_tests::{fixture, repo_root, rlmkg, stderr, stdout};

fn tokenizer_fixture() -> PathBuf {
    fixture("tokenizer/tokenizer.json")
}

/// Run `rlmkg --store STORE --json ingest ARGS…` in `cwd` with `env` set.
fn ingest(cwd: &Path, store: &Path, args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut cmd = rlmkg(cwd);
    cmd.args(["--store", store.to_str().unwrap(), "--json", "ingest"])
        .args(args);
    // A hermetic cache: nothing from the machine's own Hugging Face cache.
    cmd.env("HF_HUB_CACHE", cwd.join("no-hf-cache"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// The `--json` summary of a successful ingest.
fn summary(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "ingest failed: {}", stderr(out));
    serde_json::from_str(&stdout(out)).unwrap()
}

/// A failed ingest: exit 2 and its stderr.
fn usage_error(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(out));
    stderr(out)
}

fn settings(store: &Path) -> serde_json::Value {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(store.join("manifest.json")).unwrap()).unwrap();
    m["settings"].clone()
}

/// Tokens as the fixture's `Whitespace` pre-tokenizer (`\w+|[^\w\s]+`) cuts them,
/// computed independently of `tokenizers`.
fn word_tokens(text: &str) -> usize {
    #[derive(PartialEq, Clone, Copy)]
    enum Class {
        Space,
        Word,
        Punct,
    }
    let class = |c: char| {
        if c.is_whitespace() {
            Class::Space
        } else if c.is_alphabetic() || c.is_ascii_digit() || c == '_' {
            Class::Word
        } else {
            Class::Punct
        }
    };
    let mut n = 0;
    let mut prev = Class::Space;
    for c in text.chars() {
        let k = class(c);
        if k != Class::Space && k != prev {
            n += 1;
        }
        prev = k;
    }
    n
}

fn corpus() -> PathBuf {
    repo_root().join("examples").join("corpus")
}

#[test]
fn chunks_respect_target_tokens_counted_by_the_tokenizer() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    let target = 40;
    let s = summary(&ingest(
        tmp.path(),
        &store,
        &[
            corpus().to_str().unwrap(),
            "--tokenizer",
            tokenizer_fixture().to_str().unwrap(),
            "--target-tokens",
            &target.to_string(),
        ],
        &[],
    ));
    let id = s["tokenizer"].as_str().unwrap();
    assert!(id.starts_with("tokenizers: tokenizer.json blake3:"), "{s}");
    let st = settings(&store);
    assert_eq!(st["tokenizer"], id);
    assert_eq!(st["target_tokens"], target);
    assert_eq!(
        Path::new(st["tokenizer_source"].as_str().unwrap()),
        tokenizer_fixture().canonicalize().unwrap()
    );

    let store = Store::open_read(&store).unwrap();
    let (mut chunks, mut over_by_bytes) = (0, 0);
    for d in store.docs().unwrap() {
        for c in store.chunk_ids_of_doc(&d.id).unwrap() {
            let p = store.read_passage(c.passage()).unwrap();
            let tokens: usize = p.sentences.iter().map(|s| word_tokens(&s.text)).sum();
            // Exceeds the target only when one sentence alone does.
            assert!(
                tokens <= target || p.sentences.len() == 1,
                "{c}: {tokens} tokens in {} sentences",
                p.sentences.len()
            );
            chunks += 1;
            if p.sentences.len() > 1 && p.text.len().div_ceil(4) > target {
                over_by_bytes += 1;
            }
        }
    }
    assert!(chunks > 30, "{chunks}");
    // The bytes/4 approximation would have cut these chunks smaller: the
    // tokenizer, not the approximation, decided.
    assert!(over_by_bytes > 5, "{over_by_bytes} of {chunks}");
}

#[test]
fn tokenizer_beside_a_gguf_and_in_the_hugging_face_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let want = {
        let s = summary(&ingest(
            tmp.path(),
            &tmp.path().join("s0"),
            &[
                corpus().join("tomas_reyes.md").to_str().unwrap(),
                "--tokenizer",
                tokenizer_fixture().to_str().unwrap(),
            ],
            &[],
        ));
        s["tokenizer"].as_str().unwrap().to_string()
    };
    let doc = corpus().join("tomas_reyes.md");
    let doc = doc.to_str().unwrap();

    // A .gguf with no tokenizer.json beside it: a clear error, no store made.
    let model = tmp.path().join("model");
    std::fs::create_dir_all(&model).unwrap();
    std::fs::write(model.join("tiny.Q8_0.gguf"), b"GGUF\x03\x00\x00\x00").unwrap();
    let err = usage_error(&ingest(
        tmp.path(),
        &tmp.path().join("s1"),
        &[doc, "--tokenizer", "model/tiny.Q8_0.gguf"],
        &[],
    ));
    assert!(err.contains("no tokenizer.json found at"), "{err}");
    assert!(!tmp.path().join("s1").exists());
    // With one beside it (a relative path, recorded absolute).
    std::fs::copy(tokenizer_fixture(), model.join("tokenizer.json")).unwrap();
    let s = summary(&ingest(
        tmp.path(),
        &tmp.path().join("s1"),
        &[doc, "--tokenizer", "model/tiny.Q8_0.gguf"],
        &[],
    ));
    assert_eq!(s["tokenizer"], want.as_str());
    assert_eq!(
        Path::new(
            settings(&tmp.path().join("s1"))["tokenizer_source"]
                .as_str()
                .unwrap()
        ),
        model.join("tiny.Q8_0.gguf").canonicalize().unwrap()
    );

    // A repo id in a fake hub cache: $HF_HUB_CACHE, then $HF_HOME/hub.
    let hub = tmp.path().join("hf").join("hub");
    let repo = hub.join("models--Org--Tiny-Tok");
    let snap = repo.join("snapshots").join("0123abcd");
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs").join("main"), "0123abcd").unwrap();
    std::fs::copy(tokenizer_fixture(), snap.join("tokenizer.json")).unwrap();
    let s = summary(&ingest(
        tmp.path(),
        &tmp.path().join("s2"),
        &[doc, "--tokenizer", "Org/Tiny-Tok"],
        &[("HF_HUB_CACHE", &hub)],
    ));
    assert_eq!(s["tokenizer"], want.as_str());
    assert_eq!(
        settings(&tmp.path().join("s2"))["tokenizer_source"],
        "Org/Tiny-Tok"
    );
    let mut cmd = rlmkg(tmp.path());
    let out = cmd
        .args(["--store", "s3", "--json", "ingest", doc])
        .args(["--tokenizer", "Org/Tiny-Tok"])
        .env_remove("HF_HUB_CACHE")
        .env("HF_HOME", tmp.path().join("hf"))
        .output()
        .unwrap();
    assert_eq!(summary(&out)["tokenizer"], want.as_str());

    // A repo that is not cached: never fetched, a clear error.
    let err = usage_error(&ingest(
        tmp.path(),
        &tmp.path().join("s4"),
        &[doc, "--tokenizer", "Org/Not-Cached"],
        &[("HF_HUB_CACHE", &hub)],
    ));
    assert!(err.contains("local Hugging Face cache"), "{err}");
    assert!(err.contains("models--Org--Not-Cached"), "{err}");
}

#[test]
fn bad_tokenizers_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    let doc = corpus().join("tomas_reyes.md");
    let doc = doc.to_str().unwrap();
    std::fs::write(tmp.path().join("notes.json"), r#"{"model": "none"}"#).unwrap();
    for (spec, want) in [
        ("missing/tokenizer.json", "no such file or folder"),
        ("notes.json", "not a valid tokenizer.json"),
        ("model", "no such file"),
    ] {
        let err = usage_error(&ingest(
            tmp.path(),
            &store,
            &[doc, "--tokenizer", spec],
            &[],
        ));
        assert!(err.contains(want), "--tokenizer {spec}: {err}");
    }
    assert!(!store.exists(), "no store is created for a bad --tokenizer");
}

#[test]
fn changed_settings_rechunk_and_unchanged_reruns_do_not() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    // Two folders, so a settings change reaches files outside the one ingested.
    for (sub, names) in [
        ("a", &["tomas_reyes.md", "aldergate.txt"][..]),
        ("b", &["skarvik_expedition.md"][..]),
    ] {
        std::fs::create_dir_all(tmp.path().join(sub)).unwrap();
        for n in names {
            std::fs::copy(corpus().join(n), tmp.path().join(sub).join(n)).unwrap();
        }
    }
    let tok = tmp.path().join("tok").join("tokenizer.json");
    std::fs::create_dir_all(tok.parent().unwrap()).unwrap();
    std::fs::copy(tokenizer_fixture(), &tok).unwrap();
    let run = |args: &[&str]| ingest(tmp.path(), &store, args, &[]);
    let counts = |s: &serde_json::Value| {
        (
            s["ingested"].as_u64().unwrap(),
            s["unchanged"].as_u64().unwrap(),
        )
    };
    let warned = |out: &Output| stderr(out).matches("chunking settings differ").count();

    // Defaults: the settings of a store written before they were recorded.
    let out = run(&["a", "b"]);
    assert_eq!(counts(&summary(&out)), (3, 0));
    assert_eq!(
        settings(&store),
        serde_json::json!({"target_tokens": 200, "overlap_sentences": 1, "tokenizer": "approx: bytes/4", "sentence_rules": 2})
    );
    let out = run(&["a", "b"]);
    assert_eq!((counts(&summary(&out)), warned(&out)), ((0, 3), 0));

    // A new target: re-chunked although no content changed, one warning saying why.
    let out = run(&["a", "--chunk-tokens", "30"]);
    let s = summary(&out);
    assert_eq!((counts(&s), warned(&out)), ((2, 0), 1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("target tokens 200 → 30"),
        "{}",
        stderr(&out)
    );
    assert_eq!(settings(&store)["target_tokens"], 30);
    // Without flags the recorded settings hold: `b`, chunked under the old ones,
    // is re-chunked once; then nothing is.
    let out = run(&["a", "b"]);
    assert_eq!((counts(&summary(&out)), warned(&out)), ((1, 2), 0));
    let out = run(&["a", "b"]);
    assert_eq!((counts(&summary(&out)), warned(&out)), ((0, 3), 0));

    // A tokenizer: re-chunked, then kept without --tokenizer.
    let out = run(&["a", "b", "--tokenizer", tok.to_str().unwrap()]);
    assert_eq!((counts(&summary(&out)), warned(&out)), ((3, 0), 1));
    assert!(stderr(&out).contains("tokenizer approx: bytes/4 → tokenizers: tokenizer.json"));
    let out = run(&["a", "b"]);
    let s = summary(&out);
    assert_eq!((counts(&s), warned(&out)), ((0, 3), 0));
    assert!(s["tokenizer"].as_str().unwrap().starts_with("tokenizers: "));
    // The same tokenizer from another place is the same setting.
    let out = run(&[
        "a",
        "b",
        "--tokenizer",
        tokenizer_fixture().to_str().unwrap(),
    ]);
    assert_eq!((counts(&summary(&out)), warned(&out)), ((0, 3), 0));
    let out = run(&["a", "b", "--tokenizer", tok.to_str().unwrap()]);
    assert_eq!((counts(&summary(&out)), warned(&out)), ((0, 3), 0));

    // Its file gone: a clear error naming the way out.
    let recorded = tok.canonicalize().unwrap();
    std::fs::remove_file(&tok).unwrap();
    let err = usage_error(&run(&["a", "b"]));
    assert!(err.contains("pass --tokenizer"), "{err}");
    assert!(err.contains(recorded.to_str().unwrap()), "{err}");
    let out = run(&["a", "b", "--tokenizer", "approx", "--overlap", "0"]);
    assert_eq!((counts(&summary(&out)), warned(&out)), ((3, 0), 1));
    assert_eq!(
        settings(&store),
        serde_json::json!({"target_tokens": 30, "overlap_sentences": 0, "tokenizer": "approx: bytes/4", "sentence_rules": 2})
    );

    let r = Store::open_read(&store)
        .unwrap()
        .check_invariants()
        .unwrap();
    assert!(r.ok(), "{:#?}", r.violations);
}
