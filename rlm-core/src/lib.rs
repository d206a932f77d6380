//! The recursive language model engine: a sandboxed Python REPL, language-model
//! backends and the root loop with recursive sub-calls.
//!
//! `rlm-core` knows nothing of tantivy, oxigraph or the on-disk store: the corpus
//! reaches it through the [`ContextHandle`] trait and models through
//! [`LanguageModel`].
//!
//! - [`Repl`]: the persistent sandboxed Python session (SPEC §5.1).
//! - [`OpenAiModel`]: the OpenAI-compatible HTTP backend (SPEC §6.1);
//!   [`chat_with_retry`] retries transient failures.
//! - [`Rlm`] / [`Session`]: the loop (SPEC §5.3) with budgets, guards, the call
//!   cache ([`CallCache`]) and JSONL trajectories ([`trajectory`]).
//! - [`Profile`]: the prompt profiles (SPEC §5.4).

mod cache;
mod handle;
mod model;
mod openai;
mod prompts;
mod repl;
mod retry;
mod rlm;
pub mod testkit;
pub mod trajectory;

#[cfg(feature = "embedded")]
pub mod embedded;

pub use cache::{CallCache, short_hash};
pub use handle::{ContextHandle, CorpusMetadata, HandleError, HandleFunction};
pub use model::{
    ChatRequest, ChatResponse, FinishReason, LanguageModel, Message, ModelError, Role, Sampling,
    Usage,
};
pub use openai::{OpenAiConfig, OpenAiModel, classify_status, estimate_tokens, strip_think};
pub use prompts::{Profile, PromptFacts, metadata_message, system_prompt};
pub use repl::{
    BlockResult, HostError, HostErrorKind, LimitHit, NoHost, Repl, ReplHost, ReplLimits, from_json,
    to_json, truncate_middle,
};
pub use retry::{RetryNote, RetryPolicy, chat_with_retry};
pub use rlm::{
    Budgets, CallError, CallReport, Ending, FallbackReason, Guards, Price, Rlm, RlmConfig,
    RlmError, RunOutcome, Session, extract_blocks, find_placeholder,
};
pub use trajectory::{Totals, TraceLine, Trajectory};
