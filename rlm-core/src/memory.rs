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
//! different sessions take turns, so baselines never mix.
//!
//! monty checks the soft limit only at its checkpoints, and some native work has
//! none (the `repr` of a DAG-shaped list, `print(a)` after `a = [a, a]` 64 times,
//! grows a string without one; a catastrophic regex runs inside the regex
//! engine). So the global allocator guards steps ([`Guarded`]): while a step
//! runs, its thread may not pass a ceiling of the session's limit plus
//! [`hard_headroom`] over the session's baseline. A step that tries is stopped
//! at that allocation (its thread sleeps for good), and the REPL, which polls
//! [`state`] while it waits, gives it up ([`abandon`]) and carries on with the
//! session as it was before the block. A step that overruns its time inside
//! one native operation is given up the same way; its thread stops at its next
//! allocation. monty-alloc's own hard ceiling stays armed further out as a
//! backstop that ends the process.
//!
//! Host threads allocating or freeing while a step runs blur the count a little
//! (their bytes land in the stepping session's ledger); the sandbox's own frees
//! that happen on the host side (a dropped session, a block's final value, its
//! exception) are done under the lock and refunded. Covered by `tests/it/hostile_code.rs`.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use monty_types::{BASELINE_MEMORY, LIVE_MEMORY};

#[cfg(feature = "alloc-limit")]
#[global_allocator]
static ALLOCATOR: Guarded = Guarded;

/// monty-alloc's counting allocator, plus the step guard: an interpreter step
/// that allocates past its ceiling, or after the host gave it up, is stopped
/// right there (its thread sleeps for good, holding what it has), instead of
/// growing until the process ends.
#[cfg(feature = "alloc-limit")]
struct Guarded;

// SAFETY: every method forwards its arguments unchanged to monty-alloc's
// `LimitedAllocator` (itself forwarding to `System`) and returns what it
// returned; `guard` only reads atomics and a const thread-local, and never
// allocates, frees or unwinds (it may sleep forever instead of returning).
// A global allocator is an unsafe trait: allowed here, and nowhere else in this module.
//
// Once counting stopped ([`stop_counting`]) every method goes to `System`
// directly, which is what `LimitedAllocator` forwards to: a block allocated
// through either path is a `System` block, so freeing it through the other is
// sound (the count merely stops meaning anything, and no step runs any more).
#[cfg(feature = "alloc-limit")]
#[allow(unsafe_code)]
unsafe impl std::alloc::GlobalAlloc for Guarded {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if !counting() {
            // SAFETY: forwarded unchanged.
            return unsafe { std::alloc::System.alloc(layout) };
        }
        guard(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { monty_alloc::LimitedAllocator.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        if !counting() {
            // SAFETY: forwarded unchanged; `ptr` is a `System` block.
            return unsafe { std::alloc::System.dealloc(ptr, layout) };
        }
        // SAFETY: forwarded unchanged; `ptr` came from this allocator.
        unsafe { monty_alloc::LimitedAllocator.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if !counting() {
            // SAFETY: forwarded unchanged.
            return unsafe { std::alloc::System.alloc_zeroed(layout) };
        }
        guard(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { monty_alloc::LimitedAllocator.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if !counting() {
            // SAFETY: forwarded unchanged; `ptr`/`layout` describe a live `System` block.
            return unsafe { std::alloc::System.realloc(ptr, layout, new_size) };
        }
        guard(new_size.saturating_sub(layout.size()));
        // SAFETY: forwarded unchanged; `ptr`/`layout` describe a live block.
        unsafe { monty_alloc::LimitedAllocator.realloc(ptr, layout, new_size) }
    }
}

/// Set for good by [`stop_counting`].
static UNCOUNTED: AtomicBool = AtomicBool::new(false);

/// Stop counting this process's allocations, for good. For a process that
/// never runs the interpreter (an ingest): every allocation then skips the
/// process-wide counter, which threads allocating side by side contend for
/// (about 6 % of an ingest's CPU time on two cores). The REPL refuses to run
/// blocks afterwards ([`counting`]): its memory limit could not hold.
pub fn stop_counting() {
    UNCOUNTED.store(true, Ordering::Relaxed);
}

/// Whether allocations are still counted (see [`stop_counting`]).
pub(crate) fn counting() -> bool {
    !UNCOUNTED.load(Ordering::Relaxed)
}

thread_local! {
    /// The step this thread is running (0: none).
    static THREAD_STEP: Cell<u64> = const { Cell::new(0) };
    /// Whether a step on this thread was given up (the thread may run at the
    /// idlest priority now, and is not reused).
    static GIVEN_UP: Cell<bool> = const { Cell::new(false) };
}

/// Whether a step on the calling thread was given up.
pub(crate) fn thread_given_up() -> bool {
    GIVEN_UP.try_with(Cell::get).unwrap_or(true)
}

/// Step numbers; 0 is "no step".
static NEXT_STEP: AtomicU64 = AtomicU64::new(1);
/// The step that has the turn (0: none), mirrored from [`TURN`] for the allocator.
static OWNER: AtomicU64 = AtomicU64::new(0);
/// Live bytes the step with the turn may not pass (`usize::MAX`: none).
static CEILING: AtomicUsize = AtomicUsize::new(usize::MAX);
/// The OS thread id of the step with the turn (0: none), to lower a step
/// given up past its time to the idlest priority: it cannot be stopped until
/// it allocates, and a catastrophic regex may compute for hours.
static OWNER_THREAD: AtomicI32 = AtomicI32::new(0);
/// Steps lately lost, by step number modulo the table's size: `step << 1`,
/// plus 1 when stopped at the ceiling (0 when given up past its time).
static LOST: [AtomicU64; 64] = [const { AtomicU64::new(0) }; 64];
/// Steps lost so far (their threads sleep for good).
static ABANDONED: AtomicU64 = AtomicU64::new(0);

/// Who has the turn, and until when.
struct Turn {
    owner: u64,
    deadline: Option<Instant>,
}

/// One interpreter step at a time, process-wide (the baseline is a single
/// counter).
static TURN: Mutex<Turn> = Mutex::new(Turn {
    owner: 0,
    deadline: None,
});
static TURN_FREE: Condvar = Condvar::new();

fn turn() -> std::sync::MutexGuard<'static, Turn> {
    TURN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Record step `step` as lost.
fn lose(step: u64, memory: bool) {
    if let Some(slot) = LOST.get((step % 64) as usize) {
        slot.store((step << 1) | u64::from(memory), Ordering::Relaxed);
    }
    ABANDONED.fetch_add(1, Ordering::Relaxed);
}

/// Stop the calling thread if it runs a step that must not allocate `size`
/// more bytes: one the host gave up, or one whose next bytes pass its ceiling
/// (that one first passes the turn on).
#[cfg(feature = "alloc-limit")]
fn guard(size: usize) {
    let step = THREAD_STEP.try_with(Cell::get).unwrap_or(0);
    if step == 0 {
        return;
    }
    let given_up = OWNER.load(Ordering::Relaxed) != step;
    let over =
        LIVE_MEMORY.load(Ordering::Relaxed).saturating_add(size) > CEILING.load(Ordering::Relaxed);
    if !given_up && !over {
        return;
    }
    if !given_up {
        // Locking and notifying allocate nothing; this thread holds no lock.
        let mut t = turn();
        if t.owner == step {
            lose(step, true);
            release(&mut t);
        }
    }
    // Never return into the runaway operation; sleeping neither allocates
    // nor spins.
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// A new step number, for [`Ledger::metered_within`] and [`state`].
pub(crate) fn new_step() -> u64 {
    NEXT_STEP.fetch_add(1, Ordering::Relaxed)
}

/// Where a step is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StepState {
    /// Waiting for its turn, running, or done.
    Live,
    /// Stopped at its memory ceiling; its session is lost.
    Stopped,
    /// Given up past its time; its session is lost.
    Expired,
}

/// The state of step `step` (a step past its deadline is given up here).
pub(crate) fn state(step: u64) -> StepState {
    expire(&mut turn());
    match LOST
        .get((step % 64) as usize)
        .map(|s| s.load(Ordering::Relaxed))
    {
        Some(v) if v == (step << 1) | 1 => StepState::Stopped,
        Some(v) if v == step << 1 => StepState::Expired,
        _ => StepState::Live,
    }
}

/// How many steps were lost in this process.
pub(crate) fn abandoned() -> u64 {
    ABANDONED.load(Ordering::Relaxed)
}

/// Give up the step that has the turn if it is past its deadline: the turn
/// passes on, and its thread stops at its next allocation.
fn expire(t: &mut Turn) {
    if t.owner != 0 && t.deadline.is_some_and(|d| Instant::now() >= d) {
        lose(t.owner, false);
        deprioritize(OWNER_THREAD.load(Ordering::Relaxed));
        release(t);
    }
}

/// Give OS thread `tid` the lowest scheduling priority (nice 19), so a
/// given-up step computing on leaves the cores to the run.
fn deprioritize(tid: i32) {
    #[cfg(target_os = "linux")]
    if let Some(pid) = rustix::process::Pid::from_raw(tid) {
        // Best effort: a failure leaves the thread at its priority.
        let _ = rustix::process::setpriority_process(Some(pid), 19);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = tid;
}

/// The calling thread's OS id (0 where there is none to give).
fn thread_id() -> i32 {
    #[cfg(target_os = "linux")]
    {
        rustix::thread::gettid().as_raw_nonzero().get()
    }
    #[cfg(not(target_os = "linux"))]
    0
}

/// Wait for the turn (expiring an owner past its deadline), then take it
/// until `patience` from now.
fn take_turn(step: u64, patience: Option<Duration>) {
    let mut t = turn();
    loop {
        expire(&mut t);
        if t.owner == 0 {
            break;
        }
        t = TURN_FREE
            .wait_timeout(t, Duration::from_millis(50))
            .map_or_else(|e| e.into_inner().0, |(g, _)| g);
    }
    t.owner = step;
    t.deadline = patience.and_then(|p| Instant::now().checked_add(p));
    OWNER.store(step, Ordering::Relaxed);
}

/// Free the turn (the lock is held).
fn release(t: &mut Turn) {
    t.owner = 0;
    t.deadline = None;
    OWNER.store(0, Ordering::Relaxed);
    OWNER_THREAD.store(0, Ordering::Relaxed);
    CEILING.store(usize::MAX, Ordering::Relaxed);
    arm(None);
    // Outside steps monty's probe reads 0: nothing unmetered is charged.
    BASELINE_MEMORY.store(usize::MAX, Ordering::Relaxed);
    TURN_FREE.notify_all();
}

/// Ends a step's turn when dropped (only on a panic: the normal path forgets it).
struct EndTurnOnDrop(u64);

impl Drop for EndTurnOnDrop {
    fn drop(&mut self) {
        let _ = THREAD_STEP.try_with(|s| s.set(0));
        end_turn(self.0);
    }
}

/// End step `step`'s turn if it still has it; false when it was given up.
fn end_turn(step: u64) -> bool {
    let mut t = turn();
    if t.owner != step {
        return false;
    }
    release(&mut t);
    true
}

/// Room between the soft limit and the ceiling: the limit again plus
/// 512 MiB, so host threads allocating during a step (other sessions' HTTP
/// replies, store reads) are not what reaches it, only a runaway step.
pub(crate) fn hard_headroom(max_memory: usize) -> usize {
    max_memory.saturating_add(512 * 1024 * 1024)
}

/// Set monty-alloc's hard ceiling (relative to the baseline just set), the
/// backstop beyond the step guard; a no-op when the allocator is not installed.
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
    /// bytes.
    pub(crate) fn metered<T>(&mut self, step: impl FnOnce() -> T) -> T {
        self.metered_within(new_step(), None, None, step)
    }

    /// [`Ledger::metered`] as step number `id` (from [`new_step`]); with
    /// `max_memory` the step is stopped once the session holds that plus
    /// [`hard_headroom`] (monty's own check raises `MemoryError` at
    /// `max_memory` where it can), and with `patience` it is given up once it
    /// has run that long. A lost step ([`state`]) leaves the ledger and the
    /// shared counters alone.
    pub(crate) fn metered_within<T>(
        &mut self,
        id: u64,
        max_memory: Option<usize>,
        patience: Option<Duration>,
        step: impl FnOnce() -> T,
    ) -> T {
        take_turn(id, patience);
        OWNER_THREAD.store(thread_id(), Ordering::Relaxed);
        let before = LIVE_MEMORY.load(Ordering::Relaxed);
        let baseline = before.saturating_sub(self.held);
        BASELINE_MEMORY.store(baseline, Ordering::Relaxed);
        if let Some(max) = max_memory {
            let ceiling = baseline
                .saturating_add(max)
                .saturating_add(hard_headroom(max));
            CEILING.store(ceiling, Ordering::Relaxed);
            // monty-alloc's own ceiling, further out, for anything the guard misses.
            arm(Some(
                max.saturating_add(hard_headroom(max))
                    .saturating_add(hard_headroom(max)),
            ));
        }
        let _ = THREAD_STEP.try_with(|s| s.set(id));
        // A step that panics gives the turn back on the way out.
        let unwinding = EndTurnOnDrop(id);
        let out = step();
        std::mem::forget(unwinding);
        let _ = THREAD_STEP.try_with(|s| s.set(0));
        let after = LIVE_MEMORY.load(Ordering::Relaxed);
        if end_turn(id) {
            self.held = self.held.saturating_add(after).saturating_sub(before);
        } else {
            let _ = GIVEN_UP.try_with(|g| g.set(true));
        }
        out
    }

    /// Forget `bytes` the session handed to the host (its output buffer), which
    /// the host frees outside any step.
    pub(crate) fn release(&mut self, bytes: usize) {
        self.held = self.held.saturating_sub(bytes);
    }

    /// Bytes the session holds.
    pub(crate) fn held(&self) -> usize {
        self.held
    }
}
