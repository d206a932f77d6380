//! Several servers of one model as one [`LanguageModel`]: each call goes to
//! the least busy healthy server, and a server that fails is skipped for a
//! while and the call tried on another at once.
//!
//! - **Choice.** Among the servers this call has not tried, the healthy ones
//!   (not cooling down) are candidates; the one with the fewest calls in flight
//!   through this pool gets the call, ties going round-robin.
//! - **Failure.** A transient error or overload ([`ModelError::is_retryable`]:
//!   5xx, 429, a refused or reset connection, a timeout, a garbage reply) puts
//!   the server in a cool-down ([`PoolOptions::cooldown`], doubling with each
//!   failure in a row up to [`PoolOptions::max_cooldown`], at least what its
//!   `Retry-After` asked) and the call goes on to another server right away,
//!   so a server killed mid-run loses no call. Failures of calls that were
//!   already in flight when the server started cooling down do not lengthen
//!   the cool-down. A success ends the run of failures.
//! - **Every server cooling down.** A call with no healthy server left tries
//!   the untried server whose cool-down ends soonest, rather than sleeping
//!   through it: a pool whose servers are all down fails as soon as one
//!   server would, and the caller's retry policy ([`crate::RetryPolicy`], its
//!   backoff and any `Retry-After`) paces the next attempts, as it does for one
//!   server. Once a call has failed on every server it fails with
//!   [`ModelError::AllServersFailed`], naming each server's last error.
//! - **Errors that are not the server's.** A bad request (other 4xx), a prompt
//!   over the context window or a truncated prompt is returned as it is: another
//!   server of the same model would answer the same.
//!
//! **The pool's [`LanguageModel::id`]** is `pool[` + the members' ids, sorted,
//! joined by `,` + `]`: stable whatever the order the servers were given in
//! and whichever server answers, so the call cache (keyed by the id,
//! [`crate::CallCache`]) hits for a request any server answered before. A
//! different set of servers is a different id (servers may serve different
//! weights under one model name), as a different URL is for one server.
//!
//! The pool counts only its own calls in flight; a server shared with other
//! clients (or fronting a router) is seen as idle by the pool when it is not.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;

use crate::duration::clamp_secs;
use crate::model::{ChatRequest, ChatResponse, LanguageModel, ModelError, ServerFailure};

/// How long a failing server is skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolOptions {
    /// The first cool-down after a failure.
    pub cooldown: Duration,
    /// The longest cool-down (each failure in a row doubles it up to this).
    pub max_cooldown: Duration,
}

impl Default for PoolOptions {
    fn default() -> Self {
        Self {
            cooldown: Duration::from_secs(10),
            max_cooldown: Duration::from_secs(80),
        }
    }
}

/// One server of the pool.
struct Member {
    /// Its name in responses and errors: [`LanguageModel::endpoint`], else its id.
    server: String,
    model: Arc<dyn LanguageModel>,
}

/// What the pool knows of one server's health.
#[derive(Debug, Default, Clone, Copy)]
struct Health {
    /// Calls of this pool in flight there.
    in_flight: usize,
    /// Skipped until then.
    cooling_until: Option<Instant>,
    /// Failures in a row (a success resets them).
    failures: u32,
}

#[derive(Debug)]
struct State {
    health: Vec<Health>,
    /// Where the round-robin among equally busy servers starts.
    cursor: usize,
}

/// Several servers of one model as one model (see the module documentation).
pub struct PoolModel {
    members: Vec<Member>,
    id: String,
    options: PoolOptions,
    state: Mutex<State>,
}

impl std::fmt::Debug for PoolModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoolModel")
            .field("id", &self.id)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// A call in flight on server `index`: counted while it lives, so a call that
/// is dropped half-way (a timeout, a cancelled batch) is no longer counted.
struct Busy<'a> {
    pool: &'a PoolModel,
    index: usize,
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        let mut st = self.pool.lock();
        if let Some(h) = st.health.get_mut(self.index) {
            h.in_flight = h.in_flight.saturating_sub(1);
        }
    }
}

impl PoolModel {
    /// A pool over `servers` (servers of one model) with the default
    /// cool-downs; an error when there is none.
    pub fn new(servers: Vec<Arc<dyn LanguageModel>>) -> Result<Self, ModelError> {
        Self::with_options(servers, PoolOptions::default())
    }

    /// A pool over `servers` with the given cool-downs.
    pub fn with_options(
        servers: Vec<Arc<dyn LanguageModel>>,
        options: PoolOptions,
    ) -> Result<Self, ModelError> {
        if servers.is_empty() {
            return Err(ModelError::Permanent {
                message: "a pool of model servers needs at least one server".into(),
            });
        }
        let mut ids: Vec<String> = servers.iter().map(|m| m.id()).collect();
        ids.sort();
        let members: Vec<Member> = servers
            .into_iter()
            .map(|model| Member {
                server: model.endpoint().unwrap_or_else(|| model.id()),
                model,
            })
            .collect();
        Ok(Self {
            id: format!("pool[{}]", ids.join(",")),
            state: Mutex::new(State {
                health: vec![Health::default(); members.len()],
                cursor: 0,
            }),
            members,
            options,
        })
    }

    /// The servers, in the order given.
    pub fn servers(&self) -> Vec<String> {
        self.members.iter().map(|m| m.server.clone()).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The server for the next attempt of a call that has `tried` some (see
    /// the module documentation), counted in flight; `None` when it tried all.
    fn pick(&self, tried: &[bool]) -> Option<Busy<'_>> {
        let now = Instant::now();
        let mut st = self.lock();
        let n = st.health.len();
        let mut best: Option<usize> = None;
        let mut soonest: Option<(Instant, usize)> = None;
        for k in 0..n {
            let i = (st.cursor + k) % n;
            if tried.get(i).copied().unwrap_or(true) {
                continue;
            }
            let h = st.health[i];
            match h.cooling_until {
                Some(until) if until > now => {
                    if soonest.is_none_or(|(s, _)| until < s) {
                        soonest = Some((until, i));
                    }
                }
                _ => {
                    if best.is_none_or(|b| h.in_flight < st.health[b].in_flight) {
                        best = Some(i);
                    }
                }
            }
        }
        let index = best.or(soonest.map(|(_, i)| i))?;
        st.health[index].in_flight += 1;
        st.cursor = (index + 1) % n;
        Some(Busy { pool: self, index })
    }

    fn succeeded(&self, index: usize) {
        if let Some(h) = self.lock().health.get_mut(index) {
            h.failures = 0;
        }
    }

    /// Put server `index` in a cool-down after `error`, unless it is in one.
    fn failed(&self, index: usize, error: &ModelError) {
        let now = Instant::now();
        let mut st = self.lock();
        let Some(h) = st.health.get_mut(index) else {
            return;
        };
        if h.cooling_until.is_some_and(|until| until > now) {
            return;
        }
        h.failures = h.failures.saturating_add(1);
        let doubled = self
            .options
            .cooldown
            .saturating_mul(1u32 << (h.failures - 1).min(16))
            .min(self.options.max_cooldown);
        let asked = error
            .retry_after_secs()
            .map_or(Duration::ZERO, |s| clamp_secs(s, self.options.max_cooldown));
        h.cooling_until = Some(now + doubled.max(asked));
    }
}

#[async_trait]
impl LanguageModel for PoolModel {
    fn id(&self) -> String {
        self.id.clone()
    }

    fn context_window(&self) -> Option<usize> {
        // The smallest the servers say: a prompt that fits it fits them all.
        self.members
            .iter()
            .filter_map(|m| m.model.context_window())
            .min()
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.members
            .first()
            .map_or_else(|| text.len().div_ceil(4), |m| m.model.count_tokens(text))
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let n = self.members.len();
        let mut tried = vec![false; n];
        let mut errors: Vec<Option<ModelError>> = vec![None; n];
        while let Some(busy) = self.pick(&tried) {
            let i = busy.index;
            tried[i] = true;
            let member = &self.members[i];
            let result = member.model.chat(request).await;
            drop(busy);
            match result {
                Ok(mut response) => {
                    self.succeeded(i);
                    if response.server.is_none() {
                        response.server = Some(member.server.clone());
                    }
                    return Ok(response);
                }
                Err(e) if e.is_retryable() => {
                    self.failed(i, &e);
                    errors[i] = Some(e);
                }
                Err(e) => return Err(e),
            }
        }
        let retry_after_secs = errors
            .iter()
            .flatten()
            .filter_map(ModelError::retry_after_secs)
            .reduce(f64::min);
        let failures = self
            .members
            .iter()
            .zip(errors)
            .filter_map(|(m, e)| {
                e.map(|e| ServerFailure {
                    server: m.server.clone(),
                    error: Box::new(e),
                })
            })
            .collect();
        Err(ModelError::AllServersFailed {
            failures,
            retry_after_secs,
        })
    }

    async fn server_slots(&self) -> Option<usize> {
        // Every server's slots; one that does not say counts its backend's
        // default, so the fan-out covers the whole pool.
        let slots =
            futures::future::join_all(self.members.iter().map(|m| m.model.server_slots())).await;
        if slots.iter().all(Option::is_none) {
            return None;
        }
        Some(
            slots
                .iter()
                .zip(&self.members)
                .map(|(s, m)| s.unwrap_or_else(|| m.model.default_concurrency()))
                .sum(),
        )
    }

    fn default_concurrency(&self) -> usize {
        // The sum, not the largest: a pool is there to keep every server as
        // busy as it would be alone (the fan-out is capped at MAX_CONCURRENCY).
        self.members
            .iter()
            .map(|m| m.model.default_concurrency())
            .sum()
    }

    fn size_billions(&self) -> Option<f64> {
        self.members.iter().find_map(|m| m.model.size_billions())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FinishReason, Usage};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A model that answers (or fails) by a closure over its call number.
    struct Fake {
        name: &'static str,
        calls: AtomicUsize,
        reply: fn(usize) -> Result<(), ModelError>,
    }

    fn fake(name: &'static str, reply: fn(usize) -> Result<(), ModelError>) -> Arc<Fake> {
        Arc::new(Fake {
            name,
            calls: AtomicUsize::new(0),
            reply,
        })
    }

    #[async_trait]
    impl LanguageModel for Fake {
        fn id(&self) -> String {
            format!("fake:{}:m", self.name)
        }
        fn context_window(&self) -> Option<usize> {
            None
        }
        fn count_tokens(&self, text: &str) -> usize {
            text.len()
        }
        fn endpoint(&self) -> Option<String> {
            Some(format!("http://{}/v1", self.name))
        }
        async fn chat(&self, _: &ChatRequest) -> Result<ChatResponse, ModelError> {
            let n = self.calls.fetch_add(1, Ordering::SeqCst);
            (self.reply)(n)?;
            Ok(ChatResponse {
                content: self.name.to_owned(),
                reasoning: None,
                usage: Usage::default(),
                finish: FinishReason::Stop,
                model: "m".into(),
                tool_calls: Vec::new(),
                started: false,
                server: None,
            })
        }
    }

    fn ok(_: usize) -> Result<(), ModelError> {
        Ok(())
    }

    fn down(_: usize) -> Result<(), ModelError> {
        Err(ModelError::Transient {
            message: "connection failed".into(),
            retry_after_secs: None,
        })
    }

    fn pool(members: &[&Arc<Fake>]) -> PoolModel {
        PoolModel::new(
            members
                .iter()
                .map(|m| Arc::clone(*m) as Arc<dyn LanguageModel>)
                .collect(),
        )
        .unwrap()
    }

    #[tokio::test]
    async fn idle_servers_take_turns_and_the_answering_one_is_named() {
        let (a, b) = (fake("a", ok), fake("b", ok));
        let p = pool(&[&a, &b]);
        let mut seen = Vec::new();
        for _ in 0..4 {
            let r = p.chat(&ChatRequest::default()).await.unwrap();
            seen.push(r.server.unwrap());
        }
        assert_eq!(
            seen,
            ["http://a/v1", "http://b/v1", "http://a/v1", "http://b/v1"]
        );
    }

    #[test]
    fn the_least_busy_server_is_picked() {
        let (a, b, c) = (fake("a", ok), fake("b", ok), fake("c", ok));
        let p = pool(&[&a, &b, &c]);
        let none = [false; 3];
        let first = p.pick(&none).unwrap();
        let second = p.pick(&none).unwrap();
        assert_eq!((first.index, second.index), (0, 1));
        drop(first);
        // a is idle again, c never was: the round-robin goes on from c.
        let third = p.pick(&none).unwrap();
        assert_eq!(third.index, 2);
        let fourth = p.pick(&none).unwrap();
        assert_eq!(fourth.index, 0);
        // Now b, c and a each hold one: the next tie goes to b.
        assert_eq!(p.pick(&none).unwrap().index, 1);
    }

    #[tokio::test]
    async fn a_failing_server_cools_down_and_the_call_moves_on() {
        let (a, b) = (fake("a", down), fake("b", ok));
        let p = pool(&[&a, &b]);
        for _ in 0..5 {
            let r = p.chat(&ChatRequest::default()).await.unwrap();
            assert_eq!(r.server.as_deref(), Some("http://b/v1"));
        }
        assert_eq!(a.calls.load(Ordering::SeqCst), 1, "a was not skipped");
        let st = p.lock();
        assert_eq!(st.health[0].failures, 1);
        let left = st.health[0].cooling_until.unwrap() - Instant::now();
        assert!(left > Duration::from_secs(9), "{left:?}");
    }

    #[test]
    fn cool_downs_double_up_to_the_cap_and_honour_retry_after() {
        let (a, b) = (fake("a", ok), fake("b", ok));
        let p = PoolModel::with_options(
            vec![a as Arc<dyn LanguageModel>, b],
            PoolOptions {
                cooldown: Duration::from_secs(10),
                max_cooldown: Duration::from_secs(35),
            },
        )
        .unwrap();
        let err = ModelError::Transient {
            message: "x".into(),
            retry_after_secs: None,
        };
        let mut lengths = Vec::new();
        for _ in 0..4 {
            p.failed(0, &err);
            let until = p.lock().health[0].cooling_until.unwrap();
            lengths.push((until - Instant::now()).as_secs_f64().round() as u64);
            // A failure while cooling (a call already in flight) changes nothing.
            p.failed(0, &err);
            assert_eq!(p.lock().health[0].cooling_until, Some(until));
            p.lock().health[0].cooling_until = Some(Instant::now());
        }
        assert_eq!(lengths, [10, 20, 35, 35]);
        p.succeeded(0);
        let slow = ModelError::RateLimited {
            message: "429".into(),
            retry_after_secs: Some(30.0),
        };
        p.failed(0, &slow);
        let until = p.lock().health[0].cooling_until.unwrap();
        assert_eq!((until - Instant::now()).as_secs_f64().round() as u64, 30);
    }

    #[tokio::test]
    async fn a_call_every_server_fails_names_each_server_and_its_error() {
        let (a, b) = (fake("a", down), fake("b", down));
        let p = pool(&[&a, &b]);
        let err = p.chat(&ChatRequest::default()).await.unwrap_err();
        let ModelError::AllServersFailed { failures, .. } = &err else {
            panic!("{err:?}");
        };
        let servers: Vec<&str> = failures.iter().map(|f| f.server.as_str()).collect();
        assert_eq!(servers, ["http://a/v1", "http://b/v1"]);
        assert!(err.is_retryable() && !err.is_rate_limited());
        let text = err.to_string();
        assert!(
            text.contains("http://a/v1: transient model error: connection failed"),
            "{text}"
        );
        // Both cool down now; the next call still tries them (soonest first)
        // rather than sleeping, and fails as fast.
        let err = p.chat(&ChatRequest::default()).await.unwrap_err();
        assert!(matches!(err, ModelError::AllServersFailed { .. }));
        assert_eq!(a.calls.load(Ordering::SeqCst), 2);
        assert_eq!(b.calls.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn errors_that_are_not_the_servers_are_returned_as_they_are() {
        fn bad(_: usize) -> Result<(), ModelError> {
            Err(ModelError::Permanent {
                message: "HTTP 400: bad request".into(),
            })
        }
        let (a, b) = (fake("a", bad), fake("b", ok));
        let p = pool(&[&a, &b]);
        let err = p.chat(&ChatRequest::default()).await.unwrap_err();
        assert!(matches!(err, ModelError::Permanent { .. }), "{err:?}");
        assert_eq!(b.calls.load(Ordering::SeqCst), 0, "b was asked");
        assert!(p.lock().health[0].cooling_until.is_none());
    }

    #[test]
    fn the_id_is_the_sorted_members_and_not_the_order_given() {
        let (a, b) = (fake("a", ok), fake("b", ok));
        assert_eq!(pool(&[&a, &b]).id(), "pool[fake:a:m,fake:b:m]");
        assert_eq!(pool(&[&b, &a]).id(), pool(&[&a, &b]).id());
        assert!(PoolModel::new(Vec::new()).is_err());
    }

    #[test]
    fn all_rate_limited_is_a_rate_limit() {
        let limited = |s: &str| ServerFailure {
            server: s.into(),
            error: Box::new(ModelError::RateLimited {
                message: "429".into(),
                retry_after_secs: None,
            }),
        };
        let e = ModelError::AllServersFailed {
            failures: vec![limited("a"), limited("b")],
            retry_after_secs: None,
        };
        assert!(e.is_rate_limited());
    }
}
