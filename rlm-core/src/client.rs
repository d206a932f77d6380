//! The one model client. Every model call — the root loop's turns, sub-calls,
//! the heuristic strategy's composing call, the citation judge — goes through a
//! [`ModelClient`], which adds to a [`LanguageModel`] the call cache, retries of
//! transient errors, the sub-call concurrency limit, budgets and usage accounting.
//!
//! Clients that share one [`Meter`] share one account: a run's root and sub
//! clients charge the same totals, so a token budget covers both.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::OnceCell;

use crate::cache::CallCache;
use crate::fanout::{self, Concurrency, Fanout};
use crate::model::{ChatRequest, ChatResponse, FinishReason, LanguageModel, ModelError};
use crate::retry::{RetryNote, RetryPolicy, chat_with_retry, chat_with_retry_limited};
use crate::rlm::{Budgets, Price};
use crate::trajectory::Totals;

/// Why a model call was not answered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// The model failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A budget forbids the call.
    #[error("budget exhausted: {0}")]
    Budget(String),
}

/// What a model call cost and how it went.
#[derive(Debug, Clone)]
pub struct CallReport {
    /// The response or error.
    pub result: Result<ChatResponse, CallError>,
    /// Answered from the cache.
    pub cached: bool,
    /// Failed attempts that were retried.
    pub retries: Vec<RetryNote>,
    /// Wall time of the call.
    pub latency: Duration,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Usage totals and the budgets they are held to, shared by the clients of one run.
#[derive(Debug)]
pub struct Meter {
    budgets: Budgets,
    started: Instant,
    totals: Mutex<Totals>,
}

impl Meter {
    /// A meter holding calls to `budgets`, its clock started now.
    pub fn new(budgets: Budgets) -> Arc<Self> {
        Arc::new(Self {
            budgets,
            started: Instant::now(),
            totals: Mutex::new(Totals::default()),
        })
    }

    /// A meter that only counts (no token, cost, sub-call or time limit).
    pub fn unlimited() -> Arc<Self> {
        Self::new(Budgets {
            max_sub_calls: None,
            max_total_tokens: None,
            max_wall_time: None,
            max_cost: None,
            ..Budgets::default()
        })
    }

    /// The budgets this meter holds calls to.
    pub fn budgets(&self) -> &Budgets {
        &self.budgets
    }

    /// Usage so far, with the seconds since the meter started.
    pub fn totals(&self) -> Totals {
        let mut t = *lock(&self.totals);
        t.seconds = self.started.elapsed().as_secs_f64();
        t
    }

    /// Count one call of the handle's functions.
    pub fn count_handle_call(&self) {
        lock(&self.totals).handle_calls += 1;
    }

    /// Charge one sub-call (a sub-model call or a child run's turn) to the
    /// sub-call budget; the error says the budget is used up.
    pub fn take_sub_call(&self) -> Result<(), String> {
        let mut t = lock(&self.totals);
        if let Some(max) = self.budgets.max_sub_calls
            && t.sub_calls >= max
        {
            return Err(format!(
                "sub-call budget of {max} calls (child runs' turns included) is used up; answer with what you have"
            ));
        }
        t.sub_calls += 1;
        Ok(())
    }

    /// Wall time left, if there is a wall-time budget.
    pub fn time_left(&self) -> Option<Duration> {
        self.budgets
            .max_wall_time
            .map(|max| max.saturating_sub(self.started.elapsed()))
    }

    /// The budget that is used up, in words, if any.
    pub fn exhausted(&self) -> Option<String> {
        let t = *lock(&self.totals);
        let b = &self.budgets;
        if let Some(max) = b.max_total_tokens
            && t.tokens() >= max
        {
            return Some(format!(
                "token budget of {max} used ({} tokens)",
                t.tokens()
            ));
        }
        if let Some(max) = b.max_cost
            && t.cost >= max
        {
            return Some(format!("cost budget of {max} used ({:.4})", t.cost));
        }
        if let Some(max) = b.max_wall_time
            && self.started.elapsed() >= max
        {
            return Some(format!(
                "wall-time budget of {:.1}s used",
                max.as_secs_f64()
            ));
        }
        None
    }

    fn charge_cached(&self) {
        let mut t = lock(&self.totals);
        t.calls += 1;
        t.cached_calls += 1;
    }

    fn charge(&self, attempts: u64, response: Option<&ChatResponse>, price: Option<Price>) {
        let mut t = lock(&self.totals);
        t.calls += attempts;
        if let Some(r) = response {
            t.prompt_tokens += r.usage.prompt_tokens;
            t.completion_tokens += r.usage.completion_tokens;
            if let Some(p) = price {
                t.cost += (r.usage.prompt_tokens as f64 * p.prompt_per_million
                    + r.usage.completion_tokens as f64 * p.completion_per_million)
                    / 1e6;
            }
        }
    }
}

/// A language model with the cache, retries, budgets, usage accounting and
/// (optionally) the concurrency limit of sub-calls.
pub struct ModelClient {
    model: Arc<dyn LanguageModel>,
    cache: Option<CallCache>,
    retry: RetryPolicy,
    price: Option<Price>,
    meter: Arc<Meter>,
    /// The concurrency limit, chosen on first use; `None` for unlimited calls.
    limiter: Option<Limiter>,
}

/// A configured concurrency limit (`None`: ask the server) and the limiter
/// chosen from it on first use.
type Limiter = (Option<usize>, OnceCell<(Fanout, Concurrency)>);

impl std::fmt::Debug for ModelClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelClient")
            .field("model", &self.model.id())
            .field("cached", &self.cache.is_some())
            .finish_non_exhaustive()
    }
}

impl ModelClient {
    /// A client for `model`: no cache, the default retry policy, a meter of its own
    /// with no limits, and no concurrency limit.
    pub fn new(model: Arc<dyn LanguageModel>) -> Self {
        Self {
            model,
            cache: None,
            retry: RetryPolicy::default(),
            price: None,
            meter: Meter::unlimited(),
            limiter: None,
        }
    }

    /// Answer repeated requests from `cache` and store new answers there.
    pub fn with_cache(mut self, cache: Option<CallCache>) -> Self {
        self.cache = cache;
        self
    }

    /// Retry transient errors by `policy`.
    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Charge calls at `price` (for the cost budget).
    pub fn with_price(mut self, price: Option<Price>) -> Self {
        self.price = price;
        self
    }

    /// Charge calls to `meter` (shared with other clients of the same run).
    pub fn with_meter(mut self, meter: Arc<Meter>) -> Self {
        self.meter = meter;
        self
    }

    /// Limit concurrent calls: to `limit`, or (for `None`) to what the server or
    /// the backend kind suggests ([`crate::fanout`]); 429s make it back off.
    pub fn limited(mut self, limit: Option<usize>) -> Self {
        self.limiter = Some((limit, OnceCell::new()));
        self
    }

    /// The model behind the client.
    pub fn model(&self) -> &Arc<dyn LanguageModel> {
        &self.model
    }

    /// The model's id.
    pub fn id(&self) -> String {
        self.model.id()
    }

    /// The meter the client charges.
    pub fn meter(&self) -> &Arc<Meter> {
        &self.meter
    }

    /// The concurrency limit, chosen on first use; `None` for an unlimited client.
    pub async fn concurrency(&self) -> Option<Concurrency> {
        self.fanout().await.map(|(_, c)| *c)
    }

    async fn fanout(&self) -> Option<&(Fanout, Concurrency)> {
        let (limit, cell) = self.limiter.as_ref()?;
        Some(
            cell.get_or_init(|| async {
                let c = fanout::choose(self.model.as_ref(), *limit).await;
                (Fanout::new(c.limit), c)
            })
            .await,
        )
    }

    /// One call: from the cache if it holds the request, else through the
    /// retry policy (and the concurrency limit), bounded by the wall-time
    /// budget; charged to the meter; a complete answer is cached.
    pub async fn chat(&self, request: &ChatRequest) -> CallReport {
        self.chat_accepting(request, |_| true).await
    }

    /// [`Self::chat`] for a caller that can tell a usable reply from a useless
    /// one (a judge that must read a verdict): a cached reply that `usable`
    /// rejects is asked again, and a rejected new reply is not cached.
    pub async fn chat_accepting(
        &self,
        request: &ChatRequest,
        usable: impl Fn(&ChatResponse) -> bool,
    ) -> CallReport {
        let started = Instant::now();
        let report = |result: Result<ChatResponse, CallError>,
                      cached: bool,
                      retries: Vec<RetryNote>| CallReport {
            result,
            cached,
            retries,
            latency: started.elapsed(),
        };
        if let Some(why) = self.meter.exhausted() {
            return report(Err(CallError::Budget(why)), false, Vec::new());
        }
        let key = CallCache::key(&self.model.id(), request);
        if let Some(hit) = self.cache.as_ref().and_then(|c| c.get(&key))
            && usable(&hit)
        {
            self.meter.charge_cached();
            return report(Ok(hit), true, Vec::new());
        }
        let attempt = async {
            match self.fanout().await {
                Some((f, _)) => {
                    chat_with_retry_limited(self.model.as_ref(), request, &self.retry, f).await
                }
                None => chat_with_retry(self.model.as_ref(), request, &self.retry).await,
            }
        };
        // A model call may not outlive the wall-time budget.
        let (result, retries) = match self.meter.time_left() {
            Some(left) => match tokio::time::timeout(left, attempt).await {
                Ok(r) => r,
                Err(_) => {
                    let why = self
                        .meter
                        .exhausted()
                        .unwrap_or_else(|| "wall-time budget used".into());
                    return report(Err(CallError::Budget(why)), false, Vec::new());
                }
            },
            None => attempt.await,
        };
        self.meter
            .charge(1 + retries.len() as u64, result.as_ref().ok(), self.price);
        if let (Ok(r), Some(cache)) = (&result, &self.cache)
            && r.finish != FinishReason::Length
            && usable(r)
        {
            // Which server answered is not part of the entry: the key is
            // the same whichever server of a pool answers, and so is the entry.
            // A cache write failure only costs a repeated call later.
            let entry = ChatResponse {
                server: None,
                ..r.clone()
            };
            let _ = cache.put(&key, &entry);
        }
        report(result.map_err(CallError::Model), false, retries)
    }
}
