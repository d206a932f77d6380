//! A reader that goes away is not an error: each command piped into a closed
//! pipe (`rlmkg search the -k 5000 | head -0`) ends with exit 0 and no panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Stdio;

use rlmkg_tests::{sample_store, without_models};

/// Commands that write to stdout, with their arguments after `--store S`.
const CASES: &[&[&str]] = &[
    &["search", "the", "-k", "5000"],
    &["--json", "search", "the", "-k", "5000"],
    &[
        "--json",
        "ask",
        "--strategy",
        "heuristic",
        "--no-cache",
        "Who founded the publisher of The Salt Atlas?",
    ],
    &[
        "ask",
        "--strategy",
        "heuristic",
        "--no-cache",
        "Who founded the publisher of The Salt Atlas?",
    ],
    &["export"],
    &["sparql", "SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }"],
    &["stats"],
    &["--json", "stats"],
    &["config", "show"],
];

#[test]
fn commands_into_a_closed_pipe_exit_0() {
    let (dir, store) = sample_store();
    for args in CASES {
        let mut cmd = without_models(dir.path());
        cmd.arg("--store").arg(&store).args(*args);
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the read end before the command writes anything.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?} into a closed pipe: {:?}, stderr: {err}",
            out.status
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
