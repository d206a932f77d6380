//! The threads interpreter steps run on.
//!
//! Not tokio's blocking pool: a step the REPL gives up never ends (see
//! [`crate::memory`]), and a runtime waits for its pool's threads when it
//! shuts down. Threads are reused: a step's thread goes back to the idle list
//! when the step ends, and one that never comes back is simply not reused.

use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, channel};

type Job = Box<dyn FnOnce() + Send + 'static>;

/// Threads waiting for a step.
static IDLE: Mutex<Vec<Sender<Job>>> = Mutex::new(Vec::new());

/// Idle threads kept at most.
const MAX_IDLE: usize = 8;

/// Run `job` on a step thread; an error when no thread could be started.
pub(crate) fn spawn(job: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    let mut job: Job = Box::new(job);
    loop {
        let idle = IDLE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop();
        let Some(worker) = idle else { break };
        // A worker that ended (a panicking step) hands the job back.
        match worker.send(job) {
            Ok(()) => return Ok(()),
            Err(back) => job = back.0,
        }
    }
    let (tx, rx) = channel::<Job>();
    let _ = tx.send(job);
    std::thread::Builder::new()
        .name("rlmkg-repl-step".to_string())
        .spawn(move || work(&tx, &rx))
        .map(|_| ())
}

/// Run jobs until none comes: after each, offer this thread to the next step.
fn work(tx: &Sender<Job>, rx: &Receiver<Job>) {
    while let Ok(job) = rx.recv() {
        job();
        if crate::memory::thread_given_up() {
            return;
        }
        let mut idle = IDLE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if idle.len() >= MAX_IDLE {
            return;
        }
        idle.push(tx.clone());
    }
}
