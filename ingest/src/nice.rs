//! Thread priority: the ingest's own threads yield to tantivy's.

/// How many nice steps below the calling thread the ingest's pool and view
/// threads run. Tantivy's one indexing thread is the longest chain of an
/// ingest; at equal priority the other threads took a third of its core, and
/// it was left with a backlog to drain alone at each commit.
const NICE_STEPS: i32 = 10;

/// Lower the calling thread's priority by [`NICE_STEPS`] (Linux threads have
/// their own nice value; elsewhere nothing changes). Lowering one's own
/// priority needs no privilege; a failure only leaves it as it was.
pub(crate) fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{getpriority_process, setpriority_process};
        let me = Some(rustix::thread::gettid());
        if let Ok(nice) = getpriority_process(me) {
            let _ = setpriority_process(me, nice.saturating_add(NICE_STEPS).min(19));
        }
    }
}
