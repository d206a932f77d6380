//! The recursive language model engine: a sandboxed Python REPL, language-model
//! backends and the root loop with recursive sub-calls.
//!
//! `rlm-core` knows nothing of tantivy, oxigraph or the on-disk store: the corpus
//! reaches it through the [`ContextHandle`] trait and models through
//! [`LanguageModel`].

mod handle;
mod model;
mod repl;

#[cfg(feature = "embedded")]
pub mod embedded;

pub use handle::{ContextHandle, CorpusMetadata, HandleError, HandleFunction};
pub use model::{
    ChatRequest, ChatResponse, FinishReason, LanguageModel, Message, ModelError, Role, Sampling,
    Usage,
};
pub use repl::{
    BlockResult, HostError, HostErrorKind, LimitHit, NoHost, Repl, ReplHost, ReplLimits, from_json, to_json,
    truncate_middle,
};
