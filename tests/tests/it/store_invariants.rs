#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Store invariants (SPEC §3.2) on every format, on incremental edits (change,
//! add, delete a file), and the query commands on the result.

use std::path::Path;

use rlmkg_ingest::{IngestOptions, NoProgress, Store};
use rlmkg_tests::{fixture, repo_root, run, shared_data, stderr, stdout};

fn ingest(dir: &Path, paths: &[&Path]) -> rlmkg_ingest::IngestSummary {
    let mut s = Store::create_or_open(dir).unwrap();
    let paths: Vec<_> = paths.iter().map(|p| p.to_path_buf()).collect();
    let sum = s
        .ingest(&paths, &IngestOptions::default(), &NoProgress)
        .unwrap();
    let r = s.check_invariants().unwrap();
    assert!(r.ok(), "{:#?}", r.violations);
    sum
}

#[test]
fn every_format_ingests_with_exact_spans() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let sum = ingest(&dir, &[&fixture("ingest/formats")]);
    assert_eq!(sum.ingested, 6, "{sum:?}");
    let store = Store::open_read(&dir).unwrap();
    let docs = store.docs().unwrap();
    let formats: std::collections::BTreeSet<_> = docs.iter().map(|d| d.format.as_str()).collect();
    for f in ["txt", "md", "html", "jsonl", "json", "json-sentences"] {
        assert!(formats.contains(f), "{f} missing from {formats:?}");
    }
    // Every chunk reads back; sentences are exact document bytes with lines.
    for d in &docs {
        for c in store.chunk_ids_of_doc(&d.id).unwrap() {
            let p = store.read_passage(c.passage()).unwrap();
            assert_eq!(p.doc.title, d.title);
            for s in &p.sentences {
                assert_eq!(store.doc_text(&d.id, s.start, s.end).unwrap(), s.text);
                assert!(s.line_start >= 1 && s.line_end >= s.line_start);
                let one = store.read(&s.id).unwrap();
                assert_eq!(one.text, s.text);
            }
        }
    }
    // {title: [sentences]} keeps sentence boundaries: c?.s2 is the second sentence.
    let dd = docs.iter().find(|d| d.title == "Demon Dice").unwrap();
    let c = &store.chunk_ids_of_doc(&dd.id).unwrap()[0];
    assert_eq!(
        store.read(&format!("{c}.s2")).unwrap().text,
        "In it, each player controls a demon made of 13 dice."
    );
    assert_eq!(
        store.read(&format!("{c}.s2-s3")).unwrap().sentences.len(),
        2
    );
    // HTML: script text dropped, headings kept as positional metadata.
    let html = docs.iter().find(|d| d.format == "html").unwrap();
    assert_eq!(html.title, "Forum for Fjord Kayaking");
    let c = &store.chunk_ids_of_doc(&html.id).unwrap()[0];
    let p = store.read_passage(c.passage()).unwrap();
    assert!(!p.text.contains("Not Text"));
    assert!(
        p.sentences
            .iter()
            .any(|s| s.heading.as_deref() == Some("Events")),
        "{p:#?}"
    );
    // Search, entities, neighbors, paths and related all answer.
    let hits = store.search("Skarvik Expedition", 5).unwrap();
    assert!(hits.iter().any(|h| h.title == "Skarvik Expedition"));
    let e = store.entity("Kestrel Institute").unwrap().unwrap();
    assert_eq!(e.kind, "organization");
    let ffk = store.entity("FFK").unwrap().unwrap();
    assert_eq!(ffk.id, "forum_for_fjord_kayaking");
    assert!(!store.neighbors("Greta Aalto", 10, None).unwrap().is_empty());
    let paths = store.path("Marta Lindqvist", "Greta Aalto", 4).unwrap();
    assert!(!paths.is_empty());
    for p in &paths {
        assert!(p.steps.iter().all(|s| !s.evidence.is_empty()));
    }
    let rel = store
        .related(&["Kestrel Institute".into()], None, 5)
        .unwrap();
    assert!(!rel.is_empty() && rel.iter().all(|r| !r.title.is_empty()));
    let st = store.stats().unwrap();
    assert_eq!(st.docs, docs.len() as u64);
    assert!(
        st.entities > 10 && st.relations > 5 && st.mentions > 10,
        "{st:?}"
    );
}

/// The files under `dir`'s folders `under` whose bytes hold `needle`.
fn files_holding(dir: &Path, under: &[&str], needle: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for sub in under {
        for e in std::fs::read_dir(dir.join(sub)).unwrap().flatten() {
            let bytes = std::fs::read(e.path()).unwrap();
            if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                out.push(e.path());
            }
        }
    }
    out
}

#[test]
fn incremental_change_add_delete_keep_invariants() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::write(
        src.join("a.txt"),
        "Anna Berg founded Fjordline in Oslo. She likes boats.",
    )
    .unwrap();
    std::fs::write(
        src.join("b.md"),
        "# Bergen\n\nBergen is a city on the coast of Norway.",
    )
    .unwrap();
    std::fs::write(src.join("c.txt"), "Carl Dahl moved to Lisbon in 1990.").unwrap();
    let dir = tmp.path().join("store");
    let first = ingest(&dir, &[&src]);
    assert_eq!(first.ingested, 3);
    let ids_b = Store::open_read(&dir)
        .unwrap()
        .search("Bergen coast", 1)
        .unwrap()[0]
        .id;
    std::fs::write(
        src.join("a.txt"),
        "Anna Berg sold Fjordline to Northwind in Tromsø.",
    )
    .unwrap();
    std::fs::write(src.join("d.txt"), "Dora Eik painted the harbour of Porto.").unwrap();
    std::fs::remove_file(src.join("c.txt")).unwrap();
    let second = ingest(&dir, &[&src]);
    assert_eq!(
        (second.ingested, second.unchanged, second.removed),
        (2, 1, 1),
        "{second:?}"
    );
    let store = Store::open_read(&dir).unwrap();
    assert!(store.search("Lisbon", 5).unwrap().is_empty());
    assert!(store.search("boats", 5).unwrap().is_empty());
    assert_eq!(store.search("Tromsø", 5).unwrap().len(), 1);
    assert_eq!(store.search("Porto", 5).unwrap().len(), 1);
    assert_eq!(
        store.search("Bergen coast", 1).unwrap()[0].id,
        ids_b,
        "unchanged file keeps its chunk ids"
    );
    assert!(store.entity("Carl Dahl").unwrap().is_none());
    // The three files shared a pack: b's text and records moved to a new
    // one, and the removed and replaced texts are gone from the disk.
    let hit = &store.search("Bergen coast", 1).unwrap()[0];
    assert!(hit.text.contains("Bergen is a city"), "{}", hit.text);
    for gone in ["Lisbon", "boats"] {
        let holders = files_holding(&dir, &["texts", "graph/docs"], gone);
        assert!(holders.is_empty(), "{gone} still in {holders:?}");
    }
    assert!(!files_holding(&dir, &["texts"], "Bergen is a city").is_empty());
    drop(store);
    let mut w = Store::create_or_open(&dir).unwrap();
    let r = w.remove(&src.join("a.txt")).unwrap();
    assert_eq!(r.files, 1);
    assert!(w.check_invariants().unwrap().ok());
    assert!(w.search("Fjordline", 5).unwrap().is_empty());
}

#[test]
fn cli_commands_on_the_sample_corpus() {
    let corpus = repo_root().join("examples/corpus");
    if !corpus.exists() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = run(tmp.path(), &["ingest", corpus.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    for args in [
        &["search", "expedition"][..],
        &["stats", "--check"][..],
        &[
            "sparql",
            "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?c a rk:Chunk } }",
        ][..],
        &["export", "--format", "turtle"][..],
    ] {
        let out = run(tmp.path(), args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert!(!stdout(&out).trim().is_empty(), "{args:?}");
    }
    let out = run(tmp.path(), &["sparql", "DELETE WHERE { ?s ?p ?o }"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("read-only"), "{}", stderr(&out));
}

#[test]
fn multihop_corpora_ingest_one_document_per_passage() {
    for (name, expected) in [
        ("hotpotqa_train_corpus.json", 994),
        ("musique_train_corpus.json", 1890),
        ("2wikimultihopqa_corpus.json", 6119),
    ] {
        let Some(path) = shared_data(name) else {
            continue;
        };
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("store");
        let sum = ingest(&dir, &[&path]);
        assert_eq!(sum.docs, expected, "{name}");
        let store = Store::open_read(&dir).unwrap();
        let docs = store.docs().unwrap();
        assert!(docs.iter().all(|d| !d.title.is_empty()));
        let t = &docs[docs.len() / 2].title;
        let hits = store.search(t, 10).unwrap();
        assert!(
            hits.iter().any(|h| &h.title == t),
            "{name}: title {t:?} not found by search"
        );
    }
}

/// A document is tied to the entity its title names, so `related` can walk from a
/// passage that mentions a name to the passage about it, even when that passage
/// spells the name out differently.
#[test]
fn related_follows_a_mention_to_the_document_its_title_names() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("passages.jsonl");
    let records = [
        (
            "The Quiet Harbour (1994 film)",
            "The Quiet Harbour is a 1994 drama film. Its lead role is based on the lighthouse keeper Edvin Sollid.",
        ),
        (
            "Edvin Sollid",
            "Edvin Martin Sollid (1901-1977) was a Norwegian lighthouse keeper. He received the Coastal Service Medal in 1950.",
        ),
        (
            "Harbour Medal",
            "The Harbour Medal is a prize for drama film about a harbour, awarded by a film club.",
        ),
        (
            "Lighthouse drama",
            "A lighthouse drama is a film whose lead role is a lighthouse keeper; the genre won a medal once.",
        ),
        (
            "Quiet Harbour Festival",
            "The Quiet Harbour Festival shows drama films every summer and gives a medal to the best lead role.",
        ),
    ];
    let lines: Vec<String> = records
        .iter()
        .map(|(title, text)| serde_json::json!({"title": title, "text": text}).to_string())
        .collect();
    std::fs::write(&corpus, lines.join("\n")).unwrap();
    let dir = tmp.path().join("store");
    ingest(&dir, &[&corpus]);
    let store = Store::open_read(&dir).unwrap();
    let docs = store.docs().unwrap();
    let sollid = docs.iter().find(|d| d.title == "Edvin Sollid").unwrap();
    let sollid_chunk = store.chunk_ids_of_doc(&sollid.id).unwrap()[0];

    // The title, not the text ("Edvin Martin Sollid"), names the entity.
    let e = store.entity("Edvin Sollid").unwrap().unwrap();
    assert!(
        store
            .chunks_of_entity(&e.id)
            .unwrap()
            .contains(&sollid_chunk),
        "{e:?}"
    );
    // The title without its disambiguation resolves too.
    assert!(store.entity("The Quiet Harbour").unwrap().is_some());

    let question = "The lighthouse keeper whose life the lead role of The Quiet Harbour is based on received what medal?";
    // BM25 alone ranks the passage about the keeper below the distractors that share
    // the question's words; the walk through the title entity lifts it.
    let bm25_rank = store
        .search(question, 5)
        .unwrap()
        .iter()
        .position(|h| h.id == sollid_chunk);
    let ranked = store
        .related(&["The Quiet Harbour".into()], Some(question), 5)
        .unwrap();
    let related_rank = ranked.iter().position(|r| r.id == sollid_chunk);
    assert!(
        related_rank.is_some() && related_rank < bm25_rank.or(Some(usize::MAX)),
        "related {related_rank:?} vs bm25 {bm25_rank:?}: {ranked:#?}"
    );
}

/// Readers read only what the manifest they opened lists, so they work while a
/// writer holds the store open and see each commit only once it is made.
#[test]
fn readers_see_the_last_commit_while_a_writer_holds_the_store() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::write(src.join("a.txt"), "Anna Berg founded Fjordline in Oslo.").unwrap();
    let dir = tmp.path().join("store");
    let mut w = Store::create_or_open(&dir).unwrap();
    let opts = IngestOptions::default();
    w.ingest(std::slice::from_ref(&src), &opts, &NoProgress)
        .unwrap();
    let before = Store::open_read(&dir).unwrap();
    assert!(before.check_invariants().unwrap().ok());
    assert!(before.entity("Anna Berg").unwrap().is_some());

    std::fs::write(src.join("b.txt"), "Dora Eik painted the harbour of Porto.").unwrap();
    w.ingest(std::slice::from_ref(&src), &opts, &NoProgress)
        .unwrap();
    // The reader opened before the second commit keeps its view and its records.
    assert!(before.entity("Dora Eik").unwrap().is_none());
    assert!(before.search("Porto", 5).unwrap().is_empty());
    let sparql = "SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }";
    let count = |s: &Store| match s
        .sparql(sparql, std::time::Duration::from_secs(10))
        .unwrap()
    {
        rlmkg_ingest::SparqlOutput::Select { rows, .. } => rows[0][0].clone().unwrap(),
        other => panic!("{other:?}"),
    };
    assert!(count(&before).starts_with("\"1\""), "{}", count(&before));
    // A reader opened now sees both documents, in the index and in the graph.
    let after = Store::open_read(&dir).unwrap();
    assert!(after.check_invariants().unwrap().ok());
    assert!(after.entity("Dora Eik").unwrap().is_some());
    assert_eq!(after.search("Porto", 5).unwrap().len(), 1);
    assert!(count(&after).starts_with("\"2\""), "{}", count(&after));
    assert!(w.check_invariants().unwrap().ok());
}

/// Small batches (each prepared while the previous one is written) build the
/// same store as one batch, and a second run over small batches finds every
/// file unchanged.
#[test]
fn small_batches_build_the_same_store_as_one_batch() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = repo_root().join("examples").join("corpus");
    let mut stats = Vec::new();
    for batch_bytes in [16 << 20, 2_000] {
        let dir = tmp.path().join(format!("store-{batch_bytes}"));
        let opts = IngestOptions {
            batch_bytes,
            ..IngestOptions::default()
        };
        let mut s = Store::create_or_open(&dir).unwrap();
        let first = s
            .ingest(std::slice::from_ref(&corpus), &opts, &NoProgress)
            .unwrap();
        assert!(first.ingested >= 12, "{first:?}");
        let again = s
            .ingest(std::slice::from_ref(&corpus), &opts, &NoProgress)
            .unwrap();
        assert_eq!(
            (again.ingested, again.unchanged),
            (0, first.ingested),
            "{again:?}"
        );
        let r = s.check_invariants().unwrap();
        assert!(r.ok(), "{:#?}", r.violations);
        stats.push(s.stats().unwrap());
    }
    assert_eq!(stats[0], stats[1]);
}

/// The RDF of one small document, as `export --format nquads` writes it: pins the
/// vocabulary and the lean shape documented in `graph/src/vocab.rs`.
#[test]
fn rdf_shape_of_one_document() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("rdf/lovelace.txt"), tmp.path().join("lovelace.txt")).unwrap();
    let out = run(tmp.path(), &["ingest", "lovelace.txt"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(tmp.path(), &["export", "--format", "nquads"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut lines: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    lines.sort();
    insta::with_settings!({
        snapshot_path => fixture("rdf/snapshots"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!("lovelace_nquads", lines.join("\n"));
    });
}
