//! Model backends, apart from the traits they implement (`crate::model`):
//! the OpenAI-compatible HTTP client, the pool that spreads calls over several
//! servers of one model (`pool`) and, behind the `embedded` feature, the
//! in-process GGUF model with its downloader (`embedded::pull`). A new backend
//! is a module here implementing [`crate::LanguageModel`], plus its
//! construction in the library's `BackendConfig::build` (`cli/app/src/backends.rs`).

#[cfg(feature = "embedded")]
pub mod embedded;
pub mod openai;
pub mod pool;
