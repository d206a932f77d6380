//! A process that stops counting allocations (`rlmkg ingest`) frees blocks
//! allocated before and after the switch alike, and its REPL refuses to run:
//! the memory limit could not hold. The switch is for good and for the whole
//! process, so the test runs in a child process of its own
//! ([`crate::common::run_in_child`]).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rlm_core::{NoHost, Repl, ReplLimits};

/// Set in the child process that runs the test's body.
const CHILD: &str = "RLMKG_TEST_UNCOUNTED_CHILD";

#[tokio::test]
async fn the_repl_refuses_once_counting_stopped() {
    if crate::common::run_in_child("uncounted::the_repl_refuses_once_counting_stopped", CHILD) {
        return;
    }
    let mut repl = Repl::new(ReplLimits::default());
    let before = repl
        .run("x = [i * i for i in range(1000)]\nprint(sum(x))", &NoHost)
        .await;
    assert_eq!(before.error, None);
    assert_eq!(before.output, "332833500\n");
    // Blocks from both sides of the switch, freed on both sides of it.
    let counted: Vec<Vec<u8>> = (0..64).map(|i| vec![i; 4096]).collect();
    let mut grown = vec![1u8; 100];
    rlm_core::stop_counting();
    let uncounted: Vec<Vec<u8>> = (0..64).map(|i| vec![i; 8192]).collect();
    grown.resize(1 << 20, 7);
    drop(counted);
    assert_eq!(uncounted.iter().map(Vec::len).sum::<usize>(), 64 * 8192);
    assert_eq!(grown.len(), 1 << 20);
    let after = repl.run("print(sum(x))", &NoHost).await;
    assert_eq!(after.output, "");
    let err = after.error.expect("refused");
    assert!(err.contains("the REPL is off in this process"), "{err}");
    assert!(err.contains("does not count memory"), "{err}");
}
