//! Model backends, apart from the traits they implement (`crate::model`):
//! the OpenAI-compatible HTTP client and, behind the `embedded` feature, the
//! in-process GGUF model with its downloader (`embedded::pull`). A new backend
//! is a module here implementing [`crate::LanguageModel`], plus its
//! construction in the application's settings (`cli/src/model_args.rs`).

#[cfg(feature = "embedded")]
pub mod embedded;
pub mod openai;
