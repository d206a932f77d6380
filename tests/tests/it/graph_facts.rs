//! The graph of facts over the sample corpus (issue 43), through the real
//! binary: a chain said partly with "It" is a path of facts, an entity lists
//! its facts first with the inverse of what it is the object of, the RDF's
//! default graph holds the facts as plain triples, and `ingest` and `stats`
//! count alike.
// Test helpers fail loudly (clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rlmkg_tests::{run, sample_store, stderr, stdout};
use serde_json::Value;

fn json(dir: &std::path::Path, store: &std::path::Path, args: &[&str]) -> Value {
    let mut all = vec!["--store", store.to_str().unwrap(), "--json"];
    all.extend_from_slice(args);
    let out = run(dir, &all);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
fn the_author_and_the_founder_of_her_publisher_are_a_path_of_facts() {
    let (dir, store) = sample_store();
    let paths = json(
        dir.path(),
        &store,
        &["path", "Mara Ellison", "Catherine Moray"],
    );
    let first = &paths[0];
    assert_eq!(
        first["entities"],
        serde_json::json!([
            "mara_ellison",
            "salt_atlas",
            "northlight_press",
            "catherine_moray"
        ]),
        "{paths:#}"
    );
    let relations: Vec<&str> = first["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["relation"].as_str().unwrap())
        .collect();
    assert_eq!(
        relations,
        ["author of", "published by", "founded by"],
        "{paths:#}"
    );
}

#[test]
fn an_entity_lists_its_facts_first_read_from_its_side() {
    let (dir, store) = sample_store();
    let e = json(dir.path(), &store, &["entity", "Northlight Press"]);
    let neighbors = e["neighbors"].as_array().unwrap();
    let first_weak = neighbors.iter().position(|n| n["fact"] == false);
    let last_fact = neighbors.iter().rposition(|n| n["fact"] == true);
    assert!(
        matches!((first_weak, last_fact), (Some(w), Some(f)) if f < w),
        "{e:#}"
    );
    assert!(
        neighbors
            .iter()
            .any(|n| n["relation"] == "founded by" && n["id"] == "catherine_moray"),
        "{e:#}"
    );
    let salt = json(dir.path(), &store, &["entity", "The Salt Atlas"]);
    assert_eq!(salt["entity"]["type"], "work", "{salt:#}");
}

#[test]
fn the_default_graph_holds_the_facts_as_triples() {
    let (dir, store) = sample_store();
    let out = json(
        dir.path(),
        &store,
        &[
            "sparql",
            "SELECT ?o WHERE { ?s <https://rlmkg.invalid/ns#founded> ?o . \
             ?s <https://rlmkg.invalid/ns#name> \"Catherine Moray\" }",
        ],
    );
    assert!(
        out.to_string()
            .contains("urn:rlmkg:entity:northlight_press"),
        "{out:#}"
    );
}

#[test]
fn ingest_and_stats_count_the_same_store() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = rlmkg_tests::repo_root().join("examples/corpus");
    let ingest = json(
        tmp.path(),
        &tmp.path().join("s"),
        &["ingest", corpus.to_str().unwrap()],
    );
    let stats = json(tmp.path(), &tmp.path().join("s"), &["stats"]);
    for key in ["entities", "relations", "facts", "mentions"] {
        assert_eq!(
            ingest[key], stats["stats"][key],
            "{key}: {ingest:#} {stats:#}"
        );
    }
}
