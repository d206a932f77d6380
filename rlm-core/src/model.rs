//! The provider-neutral language-model interface.
//!
//! Every backend (OpenAI-compatible HTTP, the embedded GGUF model, test doubles)
//! implements [`LanguageModel`]. Provider wire types never leave their backend module.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// Who wrote a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions for the model.
    System,
    /// The user (or the REPL speaking on the user's behalf).
    User,
    /// The model.
    Assistant,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    /// Author of the message.
    pub role: Role,
    /// Text of the message.
    pub content: String,
}

impl Message {
    /// A message with the given role and content.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
        }
    }
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }
}

/// Sampling settings (SPEC §6.1). `None` leaves the backend's default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    /// Softmax temperature.
    pub temperature: Option<f32>,
    /// Nucleus sampling mass.
    pub top_p: Option<f32>,
    /// Top-k cut-off (sent as an extra body field over HTTP).
    pub top_k: Option<u32>,
    /// Maximum tokens to generate.
    pub max_tokens: Option<u32>,
    /// Random seed for reproducible sampling.
    pub seed: Option<u64>,
    /// Stop strings.
    pub stop: Vec<String>,
}

/// A provider-neutral chat request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// Sampling settings.
    pub sampling: Sampling,
}

/// Token usage of one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt.
    pub prompt_tokens: u64,
    /// Tokens generated.
    pub completion_tokens: u64,
}

/// Why generation stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural stop or a stop string.
    Stop,
    /// The token limit was reached: the reply is truncated.
    Length,
    /// Anything else the backend reported.
    Other(String),
}

/// A provider-neutral chat response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The reply with any reasoning block removed.
    pub content: String,
    /// The reasoning block (`<think>…</think>`), kept for the trajectory.
    pub reasoning: Option<String>,
    /// Token usage.
    pub usage: Usage,
    /// Why generation stopped.
    pub finish: FinishReason,
    /// The model name the backend reported.
    pub model: String,
}

/// Errors of a model call, classified where the provider is called (SPEC §6.1).
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum ModelError {
    /// Worth retrying: 429, 5xx, connection failures, timeouts.
    #[error("transient model error: {message}")]
    Transient {
        /// What happened.
        message: String,
        /// Seconds the server asked us to wait, if it said.
        retry_after_secs: Option<f64>,
    },
    /// The server is rate-limiting us (HTTP 429): retried like a transient error,
    /// and fan-out backs off.
    #[error("rate limited: {message}")]
    RateLimited {
        /// What happened.
        message: String,
        /// Seconds the server asked us to wait, if it said.
        retry_after_secs: Option<f64>,
    },
    /// Not worth retrying: other 4xx, bad configuration.
    #[error("model error: {message}")]
    Permanent {
        /// What happened.
        message: String,
    },
    /// The prompt does not fit the model's context window.
    #[error("prompt of {prompt_tokens} tokens exceeds the context window of {limit} tokens")]
    ContextLength {
        /// Tokens in the prompt (measured or estimated).
        prompt_tokens: usize,
        /// The window.
        limit: usize,
    },
    /// The server silently clipped the prompt (it reported far fewer prompt tokens than sent).
    #[error(
        "context truncated: sent about {sent_tokens} prompt tokens, server reported {reported_tokens}"
    )]
    Truncated {
        /// Tokens we estimate we sent.
        sent_tokens: usize,
        /// Tokens the server says it read.
        reported_tokens: usize,
    },
}

impl ModelError {
    /// Whether another attempt may succeed (transient or rate-limited).
    pub fn is_retryable(&self) -> bool {
        matches!(self, Self::Transient { .. } | Self::RateLimited { .. })
    }

    /// The wait the server asked for, if it said.
    pub fn retry_after_secs(&self) -> Option<f64> {
        match self {
            Self::Transient {
                retry_after_secs, ..
            }
            | Self::RateLimited {
                retry_after_secs, ..
            } => *retry_after_secs,
            _ => None,
        }
    }
}

/// A language model, local or remote.
#[async_trait]
pub trait LanguageModel: Send + Sync {
    /// A stable identifier of backend and model (e.g. `openai:http://host/v1:qwen3-8b`),
    /// used in cache keys and trajectories.
    fn id(&self) -> String;

    /// The context window in tokens, when known.
    fn context_window(&self) -> Option<usize>;

    /// Tokens in `text` for this model (exact when a tokenizer is at hand, else an estimate).
    fn count_tokens(&self, text: &str) -> usize;

    /// Run one chat completion.
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError>;

    /// How many requests the server says it serves in parallel (llama.cpp's
    /// `total_slots`), when it says; asked once per run to pick the fan-out.
    async fn server_slots(&self) -> Option<usize> {
        None
    }

    /// Concurrent sub-calls to use when neither the user nor the server says.
    fn default_concurrency(&self) -> usize {
        4
    }
}
