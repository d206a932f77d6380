//! The recursive language model engine: a sandboxed Python REPL, language-model
//! backends and the root loop with recursive sub-calls.
//!
//! `rlm-core` knows nothing of tantivy, oxigraph or the on-disk store: the corpus
//! reaches it through the [`ContextHandle`] trait and models through
//! [`LanguageModel`].
//!
//! - [`Repl`]: the persistent sandboxed Python session (SPEC §5.1).
//! - [`OpenAiModel`]: the OpenAI-compatible HTTP backend (SPEC §6.1).
//! - [`PoolModel`]: several servers of one model as one model (least busy
//!   healthy server first; a failing one skipped for a cool-down).
//! - [`ModelClient`]: the one way every model call goes (root, sub, compose,
//!   judge): the call cache ([`CallCache`]), retries ([`RetryPolicy`]), the
//!   sub-call concurrency limit, budgets and usage ([`Meter`]).
//! - [`Rlm`] / [`Session`]: the loop (SPEC §5.3) with budgets, guards and JSONL
//!   trajectories ([`trajectory`]).
//! - [`Profile`]: the prompt profiles (SPEC §5.4).
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod backends;
mod cache;
mod client;
mod convert;
pub mod duration;
mod fanout;
mod handle;
mod memory;
pub use memory::stop_counting;
mod model;
mod prompts;
mod repl;
mod retry;
mod rlm;
mod steps;
pub mod testkit;
pub mod tools;
pub mod trajectory;

#[cfg(feature = "embedded")]
pub use backends::embedded;

pub use backends::openai::{
    OpenAiConfig, OpenAiModel, ServerKind, classify_status, estimate_tokens, parse_retry_after,
    strip_think,
};
pub use backends::pool::{PoolModel, PoolOptions};
pub use cache::{CallCache, short_hash};
pub use client::{CallError, CallReport, Meter, ModelClient};
pub use convert::{Budget, TooLarge, from_json, to_json, to_json_bounded};
pub use fanout::{
    Concurrency, ConcurrencySource, Fanout, MAX_CONCURRENCY, choose as choose_concurrency,
};
pub use handle::{
    ContextHandle, CorpusMetadata, HandleError, HandleFunction, HandleReply, NextStep, Segment,
};
pub use model::{
    ChatRequest, ChatResponse, FinishReason, LanguageModel, Message, ModelError, ReplyStart, Role,
    Sampling, ServerFailure, ToolCall, ToolChoice, ToolSpec, Usage,
};
pub use prompts::{Profile, PromptFacts, map_and_tally, metadata_message, system_prompt};
pub use repl::{
    BlockResult, HostError, HostErrorKind, LimitHit, NoHost, Repl, ReplHost, ReplLimits,
    truncate_middle,
};
pub use retry::{RetryNote, RetryPolicy, chat_with_retry, chat_with_retry_limited};
pub use rlm::{
    Budgets, DEFAULT_MAX_WALL_TIME, Ending, FallbackReason, Guards, Observer, Price, Protocol, Rlm,
    RlmConfig, RlmError, RunOutcome, Session, extract_blocks, find_placeholder,
};
pub use trajectory::{Totals, TraceLine, Trajectory};
