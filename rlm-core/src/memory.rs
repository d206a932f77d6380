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
//! different sessions take turns (one lock), so baselines never mix.
//!
//! monty checks the soft limit only at its checkpoints, and some native work has
//! none (the `repr` of a DAG-shaped list, `print(a)` after `a = [a, a]` 64 times,
//! grows a string without one). So while a step runs, monty-alloc's hard ceiling
//! is armed at the session's limit plus [`hard_headroom`] over the session's
//! baseline: a runaway step ends the process with a message naming the memory
//! limit instead of growing until the kernel's OOM killer takes it (and the
//! machine with it). Between steps the ceiling is lifted.
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

/// Room between the soft limit and the hard ceiling: the limit again plus
/// 512 MiB, so host threads allocating during a step (other sessions' HTTP
/// replies, store reads) never reach it and only a runaway step does.
pub(crate) fn hard_headroom(max_memory: usize) -> usize {
    max_memory.saturating_add(512 * 1024 * 1024)
}

/// Set monty-alloc's hard ceiling (relative to the baseline just set); a no-op
/// when the allocator is not installed.
fn arm(budget: Option<usize>) {
    #[cfg(feature = "alloc-limit")]
    {
        // Err only when the allocator is not installed: nothing to arm.
        let _ = monty_alloc::set_hard_limit(budget);
    }
    #[cfg(not(feature = "alloc-limit"))]
    let _ = budget;
}

/// Bytes a session's interpreter holds, as counted over its steps.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ledger {
    held: usize,
}

impl Ledger {
    /// Run one interpreter step with monty's memory check seeing this session's
    /// bytes and, when `max_memory` is given, the hard ceiling armed above it.
    pub(crate) fn metered<T>(&mut self, step: impl FnOnce() -> T) -> T {
        self.metered_within(None, step)
    }

    /// [`Ledger::metered`] with the hard ceiling at `max_memory` plus
    /// [`hard_headroom`] over the session's baseline while the step runs.
    pub(crate) fn metered_within<T>(
        &mut self,
        max_memory: Option<usize>,
        step: impl FnOnce() -> T,
    ) -> T {
        let _turn = STEP
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let before = LIVE_MEMORY.load(Ordering::Relaxed);
        BASELINE_MEMORY.store(before.saturating_sub(self.held), Ordering::Relaxed);
        if let Some(max) = max_memory {
            arm(Some(max.saturating_add(hard_headroom(max))));
        }
        let out = step();
        if max_memory.is_some() {
            arm(None);
        }
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
