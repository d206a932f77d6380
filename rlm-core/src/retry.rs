//! Retrying model calls: exponential backoff with jitter, honouring the server's
//! `Retry-After`, for [`ModelError::Transient`] and [`ModelError::RateLimited`] only. Every other class is returned
//! at once: context-length and truncation errors are reported, never retried blindly.

use std::time::Duration;

use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::duration::{clamp_secs, scale};
use crate::fanout::Fanout;
use crate::model::{ChatRequest, ChatResponse, LanguageModel, ModelError};

/// How to retry transient failures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// First backoff.
    pub base_delay: Duration,
    /// Longest single wait (also caps `Retry-After`).
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `attempt` (0-based) after `err`.
    pub fn delay(&self, attempt: u32, err: &ModelError) -> Duration {
        if let Some(s) = err.retry_after_secs() {
            return clamp_secs(s, self.max_delay);
        }
        let exp = self.base_delay.saturating_mul(1u32 << attempt.min(16));
        let jitter = rand::rng().random_range(0.5..1.0);
        scale(exp, jitter).min(self.max_delay)
    }
}

/// One failed attempt that was retried.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryNote {
    /// The error of the attempt.
    pub error: ModelError,
    /// How long we waited before the next attempt.
    pub waited: Duration,
}

/// Call `model` and retry transient failures per `policy`. Returns the result and
/// the retried failures, in order.
pub async fn chat_with_retry(
    model: &dyn LanguageModel,
    request: &ChatRequest,
    policy: &RetryPolicy,
) -> (Result<ChatResponse, ModelError>, Vec<RetryNote>) {
    retry_loop(model, request, policy, None).await
}

/// [`chat_with_retry`] with every attempt holding a slot of `fanout`: the slot is
/// given back before a retry's wait, and a rate-limited attempt makes the fan-out
/// back off.
pub async fn chat_with_retry_limited(
    model: &dyn LanguageModel,
    request: &ChatRequest,
    policy: &RetryPolicy,
    fanout: &Fanout,
) -> (Result<ChatResponse, ModelError>, Vec<RetryNote>) {
    retry_loop(model, request, policy, Some(fanout)).await
}

async fn retry_loop(
    model: &dyn LanguageModel,
    request: &ChatRequest,
    policy: &RetryPolicy,
    fanout: Option<&Fanout>,
) -> (Result<ChatResponse, ModelError>, Vec<RetryNote>) {
    let mut notes = Vec::new();
    let mut attempt = 0u32;
    loop {
        let slot = match fanout {
            Some(f) => f.acquire().await.map(|s| (f, s)),
            None => None,
        };
        let result = model.chat(request).await;
        if let Some((f, s)) = slot {
            f.release(s, result.as_ref().is_err_and(ModelError::is_rate_limited));
        }
        match result {
            Ok(r) => return (Ok(r), notes),
            Err(e) if e.is_retryable() && attempt < policy.max_retries => {
                let waited = policy.delay(attempt, &e);
                tokio::time::sleep(waited).await;
                notes.push(RetryNote { error: e, waited });
                attempt += 1;
            }
            Err(e) => return (Err(e), notes),
        }
    }
}
