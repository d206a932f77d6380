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
    /// The result of a tool call the model made (carries its `tool_call_id`).
    Tool,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    /// Author of the message.
    pub role: Role,
    /// Text of the message.
    pub content: String,
    /// The tool calls of an assistant message (the tool-call protocol).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The call a [`Role::Tool`] message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    /// A message with the given role and content.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
    /// An assistant message making tool calls (with whatever text came with them).
    pub fn assistant_calls(content: impl Into<String>, calls: Vec<ToolCall>) -> Self {
        Self {
            tool_calls: calls,
            ..Self::new(Role::Assistant, content)
        }
    }
    /// The result of tool call `id`.
    pub fn tool(id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(id.into()),
            ..Self::new(Role::Tool, content)
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

/// A call of a tool the model made.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id (the backend's, or one made up where the model gave none).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON text (what the model wrote; may be malformed).
    pub arguments: String,
}

/// A tool offered to the model (an OpenAI-style function).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Its name.
    pub name: String,
    /// What it does, written for the model.
    pub description: String,
    /// A JSON schema of its arguments object.
    pub parameters: serde_json::Value,
}

/// Whether the model must call a tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoice {
    /// It may answer in text instead.
    #[default]
    Auto,
    /// Every reply is a tool call (backends force it: `tool_choice: "required"`,
    /// a constrained decoding, or the call started for the model).
    Required,
}

/// A reply started for the model (the forced-code protocol): it begins with
/// `prefix` and ends at the first `end` after it.
///
/// Backends start it as they can: the embedded model and servers that
/// continue a trailing assistant message generate after `prefix`; servers with
/// grammar-constrained decoding are given [`ReplyStart::grammar`]. The reply a
/// backend returns holds the prefix and the end whenever it honoured the start
/// ([`ChatResponse::started`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ReplyStart {
    /// The text the reply opens with.
    pub prefix: String,
    /// Where the reply ends (a stop string after the prefix).
    pub end: String,
}

impl ReplyStart {
    /// The whole reply from what the model generated after the prefix:
    /// prefix, text and — when generation stopped at it — the end, on a line
    /// of its own if it is a fence (a server may trim the newline before it).
    pub fn wrap(&self, generated: &str, stopped_at_end: bool) -> String {
        if !stopped_at_end {
            return format!("{}{generated}", self.prefix);
        }
        let sep = if self.end.starts_with("```") && !generated.ends_with('\n') {
            "\n"
        } else {
            ""
        };
        format!("{}{generated}{sep}{}", self.prefix, self.end)
    }

    /// A GBNF grammar (llama.cpp's format, which vLLM's xgrammar reads too)
    /// for a reply that opens with the prefix, holds no `end` text, and ends
    /// with `end`; `None` when the end has no single first character to
    /// exclude.
    pub fn grammar(&self) -> Option<String> {
        let first = self.end.chars().next()?;
        if !first.is_ascii_punctuation() || self.end.chars().any(|c| c != first) {
            return None;
        }
        let lit = |t: &str| serde_json::to_string(t).unwrap_or_default();
        Some(format!(
            "root ::= {} [^{}]* {}\n",
            lit(&self.prefix),
            gbnf_class_char(first),
            lit(&self.end)
        ))
    }
}

/// `c` as it may stand inside a GBNF character class.
fn gbnf_class_char(c: char) -> String {
    match c {
        ']' | '\\' | '^' | '-' => format!("\\{c}"),
        other => other.to_string(),
    }
}

/// A model's size in billions of parameters read off its name: the last
/// `<number>b` or `<number>m` word part (`qwen2.5-coder-1.5b-instruct` → 1.5,
/// `SmolLM2-135M` → 0.135, `llama3:8b` → 8); `None` when it names none.
pub fn size_from_name(name: &str) -> Option<f64> {
    let lower = name.to_ascii_lowercase();
    let mut found = None;
    for part in lower.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.')) {
        let (num, scale) = if let Some(n) = part.strip_suffix('b') {
            (n, 1.0)
        } else if let Some(n) = part.strip_suffix('m') {
            (n, 0.001)
        } else {
            continue;
        };
        // `8x7b` (mixtures) counts all experts.
        let (mult, num) = match num.split_once('x') {
            Some((m, n)) => (m.parse::<f64>().ok(), n),
            None => (Some(1.0), num),
        };
        if let (Some(mult), Ok(n)) = (mult, num.parse::<f64>())
            && n.is_finite()
            && n > 0.0
        {
            found = Some(mult * n * scale);
        }
    }
    found
}

/// A provider-neutral chat request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// Sampling settings.
    pub sampling: Sampling,
    /// Tools offered (the tool-call protocol); empty offers none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    /// Whether a tool call is required (only with tools).
    #[serde(default, skip_serializing_if = "is_auto")]
    pub tool_choice: ToolChoice,
    /// The reply started for the model (the forced-code protocol).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<ReplyStart>,
}

fn is_auto(c: &ToolChoice) -> bool {
    *c == ToolChoice::Auto
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
    /// The tool calls of the reply (the tool-call protocol).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The reply was started as the request's [`ChatRequest::start`] asked:
    /// `content` opens with its prefix and closes with its end.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub started: bool,
    /// The server that answered, when a pool of servers chose it
    /// ([`crate::PoolModel`]): its [`LanguageModel::endpoint`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
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
    /// Every server of a pool ([`crate::PoolModel`]) failed the call with a
    /// transient error or overload; each server's last error is named.
    #[error("every model server failed: {}", ServerFailure::list(failures))]
    AllServersFailed {
        /// Each server and its last error, in the pool's order.
        failures: Vec<ServerFailure>,
        /// The shortest wait a server asked for, if any asked.
        retry_after_secs: Option<f64>,
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

/// One server's last error, in [`ModelError::AllServersFailed`].
#[derive(Debug, Clone, PartialEq)]
pub struct ServerFailure {
    /// The server (its [`LanguageModel::endpoint`], else its id).
    pub server: String,
    /// Its last error.
    pub error: Box<ModelError>,
}

impl ServerFailure {
    /// `server: error; server: error`.
    fn list(failures: &[Self]) -> String {
        failures
            .iter()
            .map(|f| format!("{}: {}", f.server, f.error))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

impl ModelError {
    /// Whether another attempt may succeed (transient, rate-limited, or every
    /// server of a pool failing so).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::Transient { .. } | Self::RateLimited { .. } | Self::AllServersFailed { .. }
        )
    }

    /// Whether the server is rate-limiting us (HTTP 429), or every server of
    /// a pool is: the sub-call fan-out backs off ([`crate::Fanout`]).
    pub fn is_rate_limited(&self) -> bool {
        match self {
            Self::RateLimited { .. } => true,
            Self::AllServersFailed { failures, .. } => {
                !failures.is_empty() && failures.iter().all(|f| f.error.is_rate_limited())
            }
            _ => false,
        }
    }

    /// The wait the server asked for, if it said.
    pub fn retry_after_secs(&self) -> Option<f64> {
        match self {
            Self::Transient {
                retry_after_secs, ..
            }
            | Self::RateLimited {
                retry_after_secs, ..
            }
            | Self::AllServersFailed {
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

    /// Where the model is served (an HTTP backend's base URL), when it is
    /// served somewhere: names the server of a pool's calls
    /// ([`ChatResponse::server`]) and its errors.
    fn endpoint(&self) -> Option<String> {
        None
    }

    /// Concurrent sub-calls to use when neither the user nor the server says.
    fn default_concurrency(&self) -> usize {
        4
    }

    /// The model's size in billions of parameters, when known (from the
    /// file's metadata or the model's name); picks the default prompt profile.
    fn size_billions(&self) -> Option<f64> {
        size_from_name(&self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_off_model_names() {
        assert_eq!(
            size_from_name("qwen2.5-coder-1.5b-instruct-q4_k_m"),
            Some(1.5)
        );
        assert_eq!(size_from_name("SmolLM2-135M-Instruct"), Some(0.135));
        assert_eq!(size_from_name("llama3:8b"), Some(8.0));
        assert_eq!(size_from_name("mixtral-8x7b"), Some(56.0));
        assert_eq!(size_from_name("gpt-4o"), None);
        assert_eq!(size_from_name("openai:http://h/v1:qwen3-32b"), Some(32.0));
    }
}
