//! Bounded concurrency for runs (`ask`, `ingest`): at most `max_runs` at a
//! time, at most `queue` more waiting; past that a run is refused at once
//! ([`Busy`]: HTTP 503 with `Retry-After`), so overload never piles up
//! unbounded work or memory.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The run gate.
#[derive(Debug, Clone)]
pub struct Gate {
    /// Permits to be admitted at all: running plus queued.
    admitted: Arc<Semaphore>,
    /// Permits to run.
    running: Arc<Semaphore>,
    max_runs: usize,
    queue: usize,
}

/// Every run slot is taken and the queue is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the server is busy: {running} runs in progress and {queued} waiting; retry later")]
pub struct Busy {
    /// Runs allowed at once.
    pub running: usize,
    /// Runs allowed to wait.
    pub queued: usize,
}

/// A run's place: held for as long as the run goes on.
#[derive(Debug)]
pub struct Ticket {
    _admitted: OwnedSemaphorePermit,
    _running: OwnedSemaphorePermit,
}

impl Gate {
    /// A gate for `max_runs` runs at once (at least 1) and `queue` waiting.
    pub fn new(max_runs: usize, queue: usize) -> Gate {
        let max_runs = max_runs.max(1);
        Gate {
            admitted: Arc::new(Semaphore::new(max_runs.saturating_add(queue))),
            running: Arc::new(Semaphore::new(max_runs)),
            max_runs,
            queue,
        }
    }

    /// Runs allowed at once.
    pub fn max_runs(&self) -> usize {
        self.max_runs
    }

    /// Take a place in the queue now (or [`Busy`]), then wait for a run slot.
    pub async fn enter(&self) -> Result<Ticket, Busy> {
        let busy = Busy {
            running: self.max_runs,
            queued: self.queue,
        };
        let admitted = Arc::clone(&self.admitted)
            .try_acquire_owned()
            .map_err(|_| busy)?;
        let running = Arc::clone(&self.running)
            .acquire_owned()
            .await
            .map_err(|_| busy)?;
        Ok(Ticket {
            _admitted: admitted,
            _running: running,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn refuses_past_runs_plus_queue_and_admits_again_when_a_run_ends() {
        let gate = Gate::new(1, 1);
        let first = gate.enter().await.expect("a free slot");
        // The second waits in the queue; the third finds the queue full.
        let g = gate.clone();
        let second = tokio::spawn(async move { g.enter().await.map(|_| ()) });
        tokio::task::yield_now().await;
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        assert_eq!(
            gate.enter().await.err(),
            Some(Busy {
                running: 1,
                queued: 1
            })
        );
        drop(first);
        second.await.expect("joined").expect("admitted");
        assert!(gate.enter().await.is_ok());
    }
}
