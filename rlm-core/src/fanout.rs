//! How many sub-calls run at once (SPEC §5.2 `llm_query_batched`): chosen once
//! per run and adapted while it runs.
//!
//! [`choose`] picks the limit: the user's `--concurrency` when given, else what
//! the server says it serves in parallel (llama.cpp's `total_slots`), else the
//! backend kind's default ([`LanguageModel::default_concurrency`]); always within
//! `1..=`[`MAX_CONCURRENCY`]. [`Fanout`] then hands out permits and backs off when
//! the server rate-limits: each 429 halves the limit (never below 1), and every
//! [`RECOVER_AFTER`] successes give one slot back, up to the chosen limit.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::model::LanguageModel;

/// The most sub-calls ever run at once.
pub const MAX_CONCURRENCY: usize = 64;

/// Successes after which a backed-off limit grows by one.
pub const RECOVER_AFTER: usize = 8;

/// Where the chosen limit came from (recorded in the trajectory header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConcurrencySource {
    /// `--concurrency` (or its config key).
    Configured,
    /// The server's reported parallel slots.
    Server,
    /// The backend kind's default.
    BackendDefault,
}

/// The chosen limit and its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Concurrency {
    /// Sub-calls at once.
    pub limit: usize,
    /// Where it came from.
    pub source: ConcurrencySource,
}

/// Pick the fan-out for `model` (see the module documentation).
pub async fn choose(model: &dyn LanguageModel, configured: Option<usize>) -> Concurrency {
    let (limit, source) = match configured {
        Some(n) => (n, ConcurrencySource::Configured),
        None => match model.server_slots().await {
            Some(n) => (n, ConcurrencySource::Server),
            None => (
                model.default_concurrency(),
                ConcurrencySource::BackendDefault,
            ),
        },
    };
    Concurrency {
        limit: limit.clamp(1, MAX_CONCURRENCY),
        source,
    }
}

#[derive(Debug)]
struct State {
    /// The limit in force now.
    current: usize,
    /// Permits to swallow as they come back (after a cut).
    debt: usize,
    /// Successes since the last change.
    streak: usize,
}

/// A concurrency limiter that backs off on rate limiting.
#[derive(Debug)]
pub struct Fanout {
    sem: Semaphore,
    max: usize,
    state: Mutex<State>,
}

/// A running sub-call's slot; give it back with [`Fanout::release`].
#[derive(Debug)]
pub struct Slot<'a> {
    permit: SemaphorePermit<'a>,
}

impl Fanout {
    /// A limiter allowing `limit` calls at once (clamped to `1..=MAX_CONCURRENCY`).
    pub fn new(limit: usize) -> Self {
        let max = limit.clamp(1, MAX_CONCURRENCY);
        Self {
            sem: Semaphore::new(max),
            max,
            state: Mutex::new(State {
                current: max,
                debt: 0,
                streak: 0,
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The limit in force now.
    pub fn limit(&self) -> usize {
        self.state().current
    }

    /// Wait for a slot (`None` only if the limiter was closed).
    pub async fn acquire(&self) -> Option<Slot<'_>> {
        self.sem.acquire().await.ok().map(|permit| Slot { permit })
    }

    /// Give a slot back after a call that was (`throttled`) or was not rate-limited.
    pub fn release(&self, slot: Slot<'_>, throttled: bool) {
        let mut st = self.state();
        if throttled {
            st.streak = 0;
            let target = (st.current / 2).max(1);
            st.debt += st.current - target;
            st.current = target;
        } else if st.current < self.max {
            st.streak += 1;
            if st.streak >= RECOVER_AFTER {
                st.streak = 0;
                st.current += 1;
                if st.debt > 0 {
                    st.debt -= 1;
                } else {
                    self.sem.add_permits(1);
                }
            }
        }
        if st.debt > 0 {
            st.debt -= 1;
            slot.permit.forget();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn rate_limits_halve_and_successes_restore() {
        let f = Fanout::new(8);
        let s = f.acquire().await.unwrap();
        f.release(s, true);
        assert_eq!(f.limit(), 4);
        assert_eq!(f.sem.available_permits(), 7);
        // Three more permits are swallowed as calls come back.
        for _ in 0..3 {
            let s = f.acquire().await.unwrap();
            f.release(s, false);
        }
        assert_eq!(f.sem.available_permits(), 4);
        for _ in 0..RECOVER_AFTER {
            let s = f.acquire().await.unwrap();
            f.release(s, false);
        }
        assert_eq!(f.limit(), 5);
        assert_eq!(f.sem.available_permits(), 5);
        assert_eq!(Fanout::new(10_000).limit(), MAX_CONCURRENCY);
        assert_eq!(Fanout::new(0).limit(), 1);
    }
}
