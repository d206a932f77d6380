//! What a run is configured with: budgets, guards, prices, sampling, limits.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::protocol::Protocol;
use crate::cache::CallCache;
use crate::client::{Meter, ModelClient};
use crate::model::{LanguageModel, Sampling};
use crate::prompts::Profile;
use crate::repl::ReplLimits;
use crate::retry::RetryPolicy;

/// Run budgets (SPEC §5.3.2). `None` means unlimited.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Budgets {
    /// Root turns before the last "best answer" turn.
    pub max_iterations: u32,
    /// Deepest `rlm_query` nesting; at this depth `rlm_query` is a plain sub-call.
    pub max_depth: u32,
    /// Sub-calls over the whole run (children included).
    pub max_sub_calls: Option<u64>,
    /// Prompt plus completion tokens over the whole run.
    pub max_total_tokens: Option<u64>,
    /// Wall time of the whole run (default [`DEFAULT_MAX_WALL_TIME`]), checked
    /// before every model call and code block and bounding each model call.
    pub max_wall_time: Option<Duration>,
    /// Cost over the whole run (needs prices).
    pub max_cost: Option<f64>,
}

impl Default for Budgets {
    fn default() -> Self {
        Self {
            max_iterations: 30,
            max_depth: 1,
            max_sub_calls: Some(1000),
            max_total_tokens: None,
            max_wall_time: Some(DEFAULT_MAX_WALL_TIME),
            max_cost: None,
        }
    }
}

/// The default bound on a run's wall time: 30 minutes.
pub const DEFAULT_MAX_WALL_TIME: Duration = Duration::from_secs(30 * 60);

/// Answer guards (SPEC §5.3.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Guards {
    /// Reject an answer given before the model has seen any REPL output.
    pub require_repl: bool,
    /// Reject answers longer than this many characters.
    pub max_answer_chars: usize,
    /// Reject answers with unsubstituted placeholders (`{var}`, `[least_common_x]`).
    pub reject_placeholders: bool,
}

impl Default for Guards {
    fn default() -> Self {
        Self {
            require_repl: true,
            max_answer_chars: 8000,
            reject_placeholders: true,
        }
    }
}

/// Price of a model in cost units per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Per million prompt tokens.
    pub prompt_per_million: f64,
    /// Per million completion tokens.
    pub completion_per_million: f64,
}

/// Configuration of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RlmConfig {
    /// Prompt profile; `None` chooses by the root model's size
    /// ([`Profile::for_model_size`]).
    pub profile: Option<Profile>,
    /// A system prompt replacing the profile's (`--system-prompt FILE`).
    pub system_prompt: Option<String>,
    /// Budgets.
    pub budgets: Budgets,
    /// Guards.
    pub guards: Guards,
    /// REPL limits.
    pub repl: ReplLimits,
    /// Directory of the call cache; `None` disables caching.
    pub cache_dir: Option<PathBuf>,
    /// Where to write the trajectory; `None` writes none.
    pub trace_path: Option<PathBuf>,
    /// Sampling of root calls.
    pub root_sampling: Sampling,
    /// Sampling of sub-calls.
    pub sub_sampling: Sampling,
    /// Concurrent sub-calls; `None` picks it from the server or the backend
    /// kind ([`crate::fanout`]), and 429s make it back off either way.
    pub concurrency: Option<usize>,
    /// Retry policy for transient errors.
    pub retry: RetryPolicy,
    /// Price of the root model.
    pub root_price: Option<Price>,
    /// Price of the sub model.
    pub sub_price: Option<Price>,
    /// Largest corpus (characters) materialized as `context` for the `paper` profile.
    pub max_context_chars: usize,
    /// How the root model's actions reach the loop.
    pub protocol: Protocol,
}

impl Default for RlmConfig {
    fn default() -> Self {
        Self {
            profile: None,
            system_prompt: None,
            budgets: Budgets::default(),
            guards: Guards::default(),
            repl: ReplLimits::default(),
            cache_dir: None,
            trace_path: None,
            root_sampling: Sampling::default(),
            sub_sampling: Sampling::default(),
            concurrency: None,
            retry: RetryPolicy::default(),
            root_price: None,
            sub_price: None,
            max_context_chars: 20_000_000,
            protocol: Protocol::Auto,
        }
    }
}

impl RlmConfig {
    /// A client for `model` with this configuration's call cache and retry
    /// policy, charging `meter` at `price` (the loop's root and sub clients, and
    /// the heuristic strategy's composer, are all made here).
    pub fn client(
        &self,
        model: Arc<dyn LanguageModel>,
        price: Option<Price>,
        meter: Arc<Meter>,
    ) -> ModelClient {
        ModelClient::new(model)
            .with_cache(self.cache_dir.clone().map(CallCache::new))
            .with_retry(self.retry.clone())
            .with_price(price)
            .with_meter(meter)
    }
}
