//! The REPL memory limit, counted cumulatively in a process shared with the host.
//!
//! monty enforces `ResourceLimits::max_memory` at its execution checkpoints by
//! comparing `LIVE_MEMORY - BASELINE_MEMORY` (two process-wide counters in
//! `monty-types`) with the limit; `LIVE_MEMORY` is kept only by monty-alloc's
//! `LimitedAllocator`, which this crate installs as the global allocator (feature
//! `alloc-limit`, on by default). Without it the count stays 0 and only single
//! large allocations were refused (issue 15: a loop growing a list by 450 MB
//! strings was not stopped).
//!
//! monty's own hosts run one session per worker process. Here the interpreter
//! shares the process with the host (store, HTTP, the embedded model), so the
//! process-wide count is not the session's. Each session therefore keeps a ledger
//! of the bytes its interpreter steps kept ([`Ledger`]): a step runs under
//! [`Ledger::metered`], which points `BASELINE_MEMORY` at "live bytes now minus what
//! the session already holds", so monty sees exactly the session's bytes plus the
//! step's growth, and afterwards adds the step's net growth to the ledger. Steps of
//! different sessions take turns (one lock), so baselines never mix. monty-alloc's
//! hard limit, which ends the whole process, is never armed.
//!
//! Host threads allocating or freeing while a step runs blur the count a little
//! (their bytes land in the stepping session's ledger); the sandbox's own frees
//! that happen on the host side (a dropped session, a block's final value, its
//! exception) are done under the lock and refunded. Covered by `tests/hostile_code.rs`.

use std::sync::Mutex;
use std::sync::atomic::Ordering;

use monty_types::{BASELINE_MEMORY, LIVE_MEMORY};

#[cfg(feature = "alloc-limit")]
#[global_allocator]
static ALLOCATOR: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

/// One interpreter step at a time, process-wide: the baseline is a single counter.
static STEP: Mutex<()> = Mutex::new(());

/// Bytes a session's interpreter holds, as counted over its steps.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ledger {
    held: usize,
}

impl Ledger {
    /// Run one interpreter step with monty's memory check seeing this session's bytes.
    pub(crate) fn metered<T>(&mut self, step: impl FnOnce() -> T) -> T {
        let _turn = STEP
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let before = LIVE_MEMORY.load(Ordering::Relaxed);
        BASELINE_MEMORY.store(before.saturating_sub(self.held), Ordering::Relaxed);
        let out = step();
        let after = LIVE_MEMORY.load(Ordering::Relaxed);
        // Outside steps monty's probe reads 0: nothing unmetered is charged.
        BASELINE_MEMORY.store(usize::MAX, Ordering::Relaxed);
        self.held = self.held.saturating_add(after).saturating_sub(before);
        out
    }

    /// Forget `bytes` the session handed to the host (its output buffer), which
    /// the host frees outside any step.
    pub(crate) fn release(&mut self, bytes: usize) {
        self.held = self.held.saturating_sub(bytes);
    }
}
