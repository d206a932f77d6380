//! The OpenAI-compatible chat-completions backend (SPEC §6.1): vLLM, llama.cpp
//! server, Ollama's `/v1`, hosted APIs.
//!
//! One [`LanguageModel::chat`] is one HTTP attempt; the error is classified here,
//! where the provider is called (429/5xx/connection/timeout → transient with any
//! `Retry-After`, malformed, empty or oversized 200 replies → transient;
//! context-length complaints → context length; other 4xx → permanent; far fewer prompt tokens reported than sent →
//! truncated). Retrying is the caller's business: [`crate::chat_with_retry`].
//! Wire types are private to this module.

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::model::{
    ChatRequest, ChatResponse, FinishReason, LanguageModel, Message, ModelError, ReplyStart, Role,
    Sampling, ToolCall, ToolChoice, ToolSpec, Usage,
};

/// Settings of one OpenAI-compatible backend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenAiConfig {
    /// Base URL including the version prefix, e.g. `http://127.0.0.1:8000/v1`.
    pub base_url: String,
    /// Model name as the server knows it.
    pub model: String,
    /// Bearer token, if the server wants one.
    #[serde(skip_serializing)]
    pub api_key: Option<String>,
    /// Sampling defaults merged under each request's own settings.
    pub sampling: Sampling,
    /// Whole-request timeout.
    pub timeout: Duration,
    /// Connect timeout.
    pub connect_timeout: Duration,
    /// The context window in tokens, when known.
    pub context_window: Option<usize>,
    /// A call fails as truncated when the server reports fewer than this fraction
    /// of the prompt tokens we estimate we sent (only for prompts of 500+ estimated tokens).
    pub truncation_ratio: f64,
    /// Largest reply body read, in bytes; a longer one fails as a transient error.
    #[serde(default = "default_max_reply_bytes")]
    pub max_reply_bytes: usize,
    /// Time allowed to read the body once the reply's headers arrived (a
    /// non-streaming server has finished generating by then).
    #[serde(default = "default_body_timeout")]
    pub body_timeout: Duration,
    /// Which server this is, for what the OpenAI API leaves open (starting a
    /// reply for the model, constrained decoding, tool calls); `None` asks the
    /// server once ([`ServerKind::probe`]).
    #[serde(default)]
    pub server: Option<ServerKind>,
}

/// The kind of OpenAI-compatible server, for the features the OpenAI API itself
/// does not have: how a reply is started for the model ([`ReplyStart`]) and how
/// a tool call is required.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ServerKind {
    /// Plain OpenAI API (hosted services): no started replies; native tools.
    Openai,
    /// vLLM: a trailing assistant message continued with
    /// `continue_final_message`; native tools (`tool_choice: "required"`).
    Vllm,
    /// llama.cpp's own `llama-server`: a trailing assistant message is
    /// continued (its default prefill); native tools with `--jinja`.
    LlamaCpp,
    /// llama-cpp-python's server: replies started by a GBNF `grammar`; tool
    /// calls required through a JSON schema (`response_format`), since its
    /// chat formats do not return usable `tool_calls`.
    LlamaCppPython,
    /// Ollama's `/v1`: a trailing assistant message is continued; native tools.
    Ollama,
}

impl ServerKind {
    /// Every kind, in the order they are shown.
    pub const ALL: &[Self] = &[
        Self::Openai,
        Self::Vllm,
        Self::LlamaCpp,
        Self::LlamaCppPython,
        Self::Ollama,
    ];

    /// Its name in settings.
    pub fn name(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Vllm => "vllm",
            Self::LlamaCpp => "llama-cpp",
            Self::LlamaCppPython => "llama-cpp-python",
            Self::Ollama => "ollama",
        }
    }

    /// The kind from what the server says of itself: llama.cpp answers
    /// `GET /props`; otherwise the `owned_by` of `GET /v1/models` names it
    /// (`vllm`, `llamacpp`, `me` for llama-cpp-python, `library` for Ollama).
    fn from_signs(props_ok: bool, owned_by: Option<&str>) -> Self {
        if props_ok {
            return Self::LlamaCpp;
        }
        match owned_by.map(str::to_ascii_lowercase).as_deref() {
            Some("vllm") => Self::Vllm,
            Some("llamacpp") => Self::LlamaCpp,
            Some("me") => Self::LlamaCppPython,
            Some("library" | "ollama") => Self::Ollama,
            _ => Self::Openai,
        }
    }

    /// Whether the server continues a trailing assistant message.
    fn continues(self) -> bool {
        matches!(self, Self::Vllm | Self::LlamaCpp | Self::Ollama)
    }
}

impl std::fmt::Display for ServerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ServerKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        rlmkg_text::one_of(Self::ALL, Self::name, "server kind", s)
    }
}

fn default_max_reply_bytes() -> usize {
    16 * 1024 * 1024
}

fn default_body_timeout() -> Duration {
    Duration::from_secs(30)
}

impl OpenAiConfig {
    /// Settings with defaults for everything but the endpoint and model.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            sampling: Sampling::default(),
            timeout: Duration::from_secs(300),
            connect_timeout: Duration::from_secs(10),
            context_window: None,
            truncation_ratio: 0.4,
            max_reply_bytes: default_max_reply_bytes(),
            body_timeout: default_body_timeout(),
            server: None,
        }
    }
}

/// An OpenAI-compatible chat-completions client.
#[derive(Debug, Clone)]
pub struct OpenAiModel {
    cfg: OpenAiConfig,
    client: reqwest::Client,
    url: String,
    kind: std::sync::Arc<tokio::sync::OnceCell<ServerKind>>,
}

impl OpenAiModel {
    /// Build a client for `cfg`.
    pub fn new(cfg: OpenAiConfig) -> Result<Self, ModelError> {
        // reqwest is built without a bundled TLS provider; install ring once.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(cfg.timeout)
            .connect_timeout(cfg.connect_timeout)
            .build()
            .map_err(|e| ModelError::Permanent {
                message: format!("building HTTP client: {e}"),
            })?;
        let base = cfg.base_url.trim_end_matches('/');
        let url = if base.ends_with("/chat/completions") {
            base.to_string()
        } else {
            format!("{base}/chat/completions")
        };
        let kind = std::sync::Arc::new(match cfg.server {
            Some(k) => tokio::sync::OnceCell::new_with(Some(k)),
            None => tokio::sync::OnceCell::new(),
        });
        Ok(Self {
            cfg,
            client,
            url,
            kind,
        })
    }

    /// The settings.
    pub fn config(&self) -> &OpenAiConfig {
        &self.cfg
    }

    /// The server's root (the base URL without `/v1` or `/chat/completions`).
    fn root(&self) -> &str {
        let base = self.cfg.base_url.trim_end_matches('/');
        let base = base.strip_suffix("/chat/completions").unwrap_or(base);
        base.strip_suffix("/v1").unwrap_or(base)
    }

    /// A small JSON document from `url`, within two seconds, if it answers.
    async fn get_json(&self, url: &str) -> Option<serde_json::Value> {
        let quick = Duration::from_secs(2);
        let mut req = self.client.get(url).timeout(quick);
        if let Some(key) = self.cfg.api_key.as_deref().filter(|k| !k.is_empty()) {
            req = req.bearer_auth(key);
        }
        let resp = req.send().await.ok()?;
        if !resp.status().is_success() {
            return None;
        }
        let text = read_body(resp, 1 << 20, quick).await.ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Which server this is: the configured kind, else asked once
    /// ([`ServerKind::from_signs`]); a server that answers neither question is
    /// taken for the plain OpenAI API.
    pub async fn server_kind(&self) -> ServerKind {
        if let Some(kind) = self.kind.get() {
            return *kind;
        }
        let props = self.get_json(&format!("{}/props", self.root())).await;
        let base = self.cfg.base_url.trim_end_matches('/');
        let base = base.strip_suffix("/chat/completions").unwrap_or(base);
        let models = self.get_json(&format!("{base}/models")).await;
        let owned_by = models.as_ref().and_then(|m| {
            m.get("data")?
                .as_array()?
                .first()?
                .get("owned_by")?
                .as_str()
                .map(str::to_owned)
        });
        let kind = ServerKind::from_signs(
            props
                .as_ref()
                .is_some_and(|p| p.get("total_slots").is_some()),
            owned_by.as_deref(),
        );
        // A server too busy to answer either question (llama-cpp-python
        // serves one request at a time) is asked again at the next call.
        if props.is_some() || models.is_some() {
            let _ = self.kind.set(kind);
        }
        kind
    }
}

/// A rough token count: about four characters per token for English prose,
/// rounded up, plus a few tokens per message for the chat template.
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

fn estimate_messages(messages: &[Message]) -> usize {
    messages
        .iter()
        .map(|m| estimate_tokens(&m.content) + 4)
        .sum()
}

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    messages: Vec<WireOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_k: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop: &'a [String],
    stream: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<&'static str>,
    /// llama.cpp: a GBNF grammar the reply must match.
    #[serde(skip_serializing_if = "Option::is_none")]
    grammar: Option<String>,
    /// llama-cpp-python: `{"type": "json_object", "schema": …}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<serde_json::Value>,
    /// vLLM: continue the trailing assistant message.
    #[serde(skip_serializing_if = "Option::is_none")]
    continue_final_message: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    add_generation_prompt: Option<bool>,
}

/// A message as the OpenAI API writes it.
#[derive(Serialize)]
struct WireOut<'a> {
    role: Role,
    content: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
}

impl<'a> From<&'a Message> for WireOut<'a> {
    fn from(m: &'a Message) -> Self {
        Self {
            role: m.role,
            content: &m.content,
            tool_calls: m
                .tool_calls
                .iter()
                .map(|c| {
                    serde_json::json!({
                        "id": c.id,
                        "type": "function",
                        "function": { "name": c.name, "arguments": c.arguments },
                    })
                })
                .collect(),
            tool_call_id: m.tool_call_id.as_deref(),
        }
    }
}

/// The OpenAI `tools` entry of a tool.
fn wire_tool(t: &ToolSpec) -> serde_json::Value {
    serde_json::json!({
        "type": "function",
        "function": {
            "name": t.name,
            "description": t.description,
            "parameters": t.parameters,
        }
    })
}

/// A JSON schema of one call of any of `tools` (`{"name": …, "arguments": …}`),
/// for servers that require a call by constrained decoding.
fn call_schema(tools: &[ToolSpec]) -> serde_json::Value {
    let variants: Vec<serde_json::Value> = tools
        .iter()
        .map(|t| {
            serde_json::json!({
                "type": "object",
                "properties": {
                    "name": { "const": t.name },
                    "arguments": t.parameters,
                },
                "required": ["name", "arguments"],
            })
        })
        .collect();
    serde_json::json!({ "anyOf": variants })
}

#[derive(Deserialize)]
struct WireResponse {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    choices: Vec<WireChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct WireChoice {
    #[serde(default)]
    message: Option<WireMessage>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireMessage {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<WireCall>,
}

#[derive(Deserialize)]
struct WireCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<WireFunction>,
}

#[derive(Deserialize)]
struct WireFunction {
    #[serde(default)]
    name: String,
    #[serde(default)]
    arguments: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

/// Merge request sampling over backend defaults.
fn merged(over: &Sampling, base: &Sampling) -> Sampling {
    Sampling {
        temperature: over.temperature.or(base.temperature),
        top_p: over.top_p.or(base.top_p),
        top_k: over.top_k.or(base.top_k),
        max_tokens: over.max_tokens.or(base.max_tokens),
        seed: over.seed.or(base.seed),
        stop: if over.stop.is_empty() {
            base.stop.clone()
        } else {
            over.stop.clone()
        },
    }
}

/// Split `<think>…</think>` reasoning from a reply. A closing tag with no opening
/// tag (templates that open the block in the prompt) counts everything before it.
pub fn strip_think(text: &str) -> (String, Option<String>) {
    let mut content = String::new();
    let mut reasoning = Vec::new();
    let mut rest = text;
    if !rest.contains("<think>")
        && let Some(end) = rest.find("</think>")
    {
        reasoning.push(rest[..end].trim().to_string());
        rest = &rest[end + "</think>".len()..];
    }
    while let Some(start) = rest.find("<think>") {
        content.push_str(&rest[..start]);
        let after = &rest[start + "<think>".len()..];
        match after.find("</think>") {
            Some(end) => {
                reasoning.push(after[..end].trim().to_string());
                rest = &after[end + "</think>".len()..];
            }
            None => {
                // Unclosed: the model never left its reasoning; keep it out of the content.
                reasoning.push(after.trim().to_string());
                rest = "";
            }
        }
    }
    content.push_str(rest);
    let reasoning = reasoning
        .into_iter()
        .filter(|r| !r.is_empty())
        .collect::<Vec<_>>();
    let reasoning = (!reasoning.is_empty()).then(|| reasoning.join("\n\n"));
    (content.trim().to_string(), reasoning)
}

/// `Retry-After` in seconds: a number of seconds, or an HTTP date (RFC 9110 §10.2.3)
/// turned into the seconds from now until then (0 when it is past). The value may be
/// absurd (`1e20`); the retry policy clamps it.
pub fn parse_retry_after(value: &str) -> Option<f64> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<f64>() {
        return (!secs.is_nan()).then_some(secs.max(0.0));
    }
    let at = httpdate::parse_http_date(v).ok()?;
    Some(
        at.duration_since(std::time::SystemTime::now())
            .map_or(0.0, |d| d.as_secs_f64()),
    )
}

fn retry_after_header(headers: &reqwest::header::HeaderMap) -> Option<f64> {
    parse_retry_after(headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?)
}

/// Read a reply body of at most `max` bytes within `deadline`; a longer or slower
/// body is a transient failure (the server misbehaved; another attempt may not).
async fn read_body(
    mut resp: reqwest::Response,
    max: usize,
    deadline: Duration,
) -> Result<String, ModelError> {
    let read = async {
        let mut buf: Vec<u8> = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| transport_error(&e))? {
            if buf.len().saturating_add(chunk.len()) > max {
                return Err(ModelError::Transient {
                    message: format!("reply body over {max} bytes; not read further"),
                    retry_after_secs: None,
                });
            }
            buf.extend_from_slice(&chunk);
        }
        Ok(buf)
    };
    let buf = tokio::time::timeout(deadline, read)
        .await
        .map_err(|_| ModelError::Transient {
            message: format!(
                "reply body not complete after {:.0}s; not read further",
                deadline.as_secs_f64()
            ),
            retry_after_secs: None,
        })??;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

fn looks_like_context_length(body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    [
        "context length",
        "context_length",
        "maximum context",
        "context window",
        "too many tokens",
        "prompt is too long",
        "exceeds the available context",
        "exceed_context_size",
    ]
    .iter()
    .any(|p| b.contains(p))
}

/// Classify an HTTP error status and body.
pub fn classify_status(
    status: u16,
    body: &str,
    retry_after_secs: Option<f64>,
    prompt_tokens: usize,
    limit: Option<usize>,
) -> ModelError {
    let snippet: String = body.chars().take(300).collect();
    if (status == 400 || status == 413) && looks_like_context_length(body) {
        return ModelError::ContextLength {
            prompt_tokens,
            limit: limit.unwrap_or(0),
        };
    }
    if status == 429 {
        return ModelError::RateLimited {
            message: format!("HTTP {status}: {snippet}"),
            retry_after_secs,
        };
    }
    if status == 408 || status == 409 || status >= 500 {
        return ModelError::Transient {
            message: format!("HTTP {status}: {snippet}"),
            retry_after_secs,
        };
    }
    ModelError::Permanent {
        message: format!("HTTP {status}: {snippet}"),
    }
}

#[async_trait]
impl LanguageModel for OpenAiModel {
    fn id(&self) -> String {
        format!(
            "openai:{}:{}",
            self.cfg.base_url.trim_end_matches('/'),
            self.cfg.model
        )
    }

    fn context_window(&self) -> Option<usize> {
        self.cfg.context_window
    }

    fn count_tokens(&self, text: &str) -> usize {
        estimate_tokens(text)
    }

    fn endpoint(&self) -> Option<String> {
        Some(self.cfg.base_url.trim_end_matches('/').to_owned())
    }

    async fn server_slots(&self) -> Option<usize> {
        // llama.cpp's server reports its parallel slots at `GET /props` (next to
        // `/v1`); other servers answer 404 or something without `total_slots`.
        let v = self.get_json(&format!("{}/props", self.root())).await?;
        let n = v.get("total_slots")?.as_u64()?;
        usize::try_from(n).ok().filter(|n| *n > 0)
    }

    fn default_concurrency(&self) -> usize {
        // Servers that batch (vLLM, llama.cpp with slots, hosted APIs) take a
        // fan-out; one that cannot queues it, and 429s make us back off.
        16
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let sampling = merged(&request.sampling, &self.cfg.sampling);
        let sent = estimate_messages(&request.messages);
        if let Some(window) = self.cfg.context_window
            && sent > window
        {
            return Err(ModelError::ContextLength {
                prompt_tokens: sent,
                limit: window,
            });
        }
        let kind = if request.start.is_some() || !request.tools.is_empty() {
            Some(self.server_kind().await)
        } else {
            None
        };
        let plan = Plan::new(request, kind);
        let mut stop = sampling.stop.clone();
        if let Some(end) = plan.stop_at {
            stop.push(end.to_owned());
        }
        let mut messages: Vec<WireOut<'_>> = request.messages.iter().map(WireOut::from).collect();
        if let Some(prefix) = plan.trailing {
            messages.push(WireOut {
                role: Role::Assistant,
                content: prefix,
                tool_calls: Vec::new(),
                tool_call_id: None,
            });
        }
        let body = WireRequest {
            model: &self.cfg.model,
            messages,
            temperature: sampling.temperature,
            top_p: sampling.top_p,
            top_k: sampling.top_k,
            max_tokens: sampling.max_tokens,
            seed: sampling.seed,
            stop: &stop,
            stream: false,
            tools: request.tools.iter().map(wire_tool).collect(),
            tool_choice: plan.tool_choice,
            grammar: plan.grammar.clone(),
            response_format: plan.response_format.clone(),
            continue_final_message: plan.continue_final.then_some(true),
            add_generation_prompt: plan.continue_final.then_some(false),
        };
        let mut req = self.client.post(&self.url).json(&body);
        if let Some(key) = self.cfg.api_key.as_deref().filter(|k| !k.is_empty()) {
            req = req.bearer_auth(key);
        }
        let resp = req.send().await.map_err(|e| transport_error(&e))?;
        let status = resp.status().as_u16();
        let retry_after = retry_after_header(resp.headers());
        let text = read_body(resp, self.cfg.max_reply_bytes, self.cfg.body_timeout).await?;
        if !(200..300).contains(&status) {
            return Err(classify_status(
                status,
                &text,
                retry_after,
                sent,
                self.cfg.context_window,
            ));
        }
        // A 200 that is not a completion is garbage from a struggling server or
        // proxy: transient, like a 5xx.
        let wire: WireResponse =
            serde_json::from_str(&text).map_err(|e| ModelError::Transient {
                message: format!(
                    "malformed reply from {}: {e}: {}",
                    self.url,
                    text.chars().take(200).collect::<String>()
                ),
                retry_after_secs: None,
            })?;
        let Some(choice) = wire.choices.into_iter().next() else {
            return Err(ModelError::Transient {
                message: format!("reply from {} has no choices", self.url),
                retry_after_secs: None,
            });
        };
        let msg = choice.message.unwrap_or(WireMessage {
            content: None,
            reasoning_content: None,
            tool_calls: Vec::new(),
        });
        let raw = msg.content.unwrap_or_default();
        let (content, mut reasoning) = strip_think(&raw);
        let (content, started) = plan.restore(content, choice.finish_reason.as_deref());
        let mut tool_calls: Vec<ToolCall> = msg
            .tool_calls
            .into_iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let f = c.function?;
                let arguments = match f.arguments {
                    Some(serde_json::Value::String(s)) => s,
                    Some(other) => other.to_string(),
                    None => "{}".to_owned(),
                };
                Some(ToolCall {
                    id: c.id.unwrap_or_else(|| format!("call_{i}")),
                    name: f.name.trim().trim_end_matches(':').to_owned(),
                    arguments,
                })
            })
            .filter(|c| !c.name.is_empty())
            .collect();
        // Tools offered but none returned as calls: the call may be in the text.
        let content = if tool_calls.is_empty() && !request.tools.is_empty() {
            let (rest, calls) = crate::tools::parse_calls(&content);
            tool_calls = calls;
            rest
        } else {
            content
        };
        if let Some(r) = msg.reasoning_content.filter(|r| !r.trim().is_empty()) {
            reasoning = Some(match reasoning {
                Some(inline) => format!("{r}\n\n{inline}"),
                None => r,
            });
        }
        let usage = wire
            .usage
            .map(|u| Usage {
                prompt_tokens: u.prompt_tokens,
                completion_tokens: u.completion_tokens,
            })
            .unwrap_or_default();
        if usage.prompt_tokens > 0
            && sent >= 500
            && (usage.prompt_tokens as f64) < self.cfg.truncation_ratio * sent as f64
        {
            return Err(ModelError::Truncated {
                sent_tokens: sent,
                reported_tokens: usize::try_from(usage.prompt_tokens).unwrap_or(usize::MAX),
            });
        }
        let finish = match choice.finish_reason.as_deref() {
            None | Some("stop") | Some("eos") | Some("stop_sequence") => FinishReason::Stop,
            Some("length") => FinishReason::Length,
            Some(other) => FinishReason::Other(other.to_string()),
        };
        Ok(ChatResponse {
            content,
            reasoning,
            usage,
            finish,
            model: wire.model.unwrap_or_else(|| self.cfg.model.clone()),
            tool_calls,
            started,
            server: None,
        })
    }
}

/// How one request asks this server for what the OpenAI API leaves open.
#[derive(Default)]
struct Plan<'a> {
    /// The reply start asked for, if the server can honour it.
    start: Option<&'a ReplyStart>,
    /// A trailing assistant message the server continues.
    trailing: Option<&'a str>,
    /// vLLM's flags for continuing it.
    continue_final: bool,
    /// A stop string added for the start's end.
    stop_at: Option<&'a str>,
    /// A grammar the reply must match.
    grammar: Option<String>,
    /// A JSON-schema constraint.
    response_format: Option<serde_json::Value>,
    /// `tool_choice`.
    tool_choice: Option<&'static str>,
    /// The server generates the prefix itself (grammar): it is in the reply.
    prefix_generated: bool,
}

impl<'a> Plan<'a> {
    fn new(request: &'a ChatRequest, kind: Option<ServerKind>) -> Self {
        let mut plan = Plan::default();
        let Some(kind) = kind else {
            return plan;
        };
        if !request.tools.is_empty() {
            let required = request.tool_choice == ToolChoice::Required;
            if required && kind == ServerKind::LlamaCppPython {
                // Its chat formats return no usable calls: constrain the reply to one.
                plan.response_format = Some(serde_json::json!({
                    "type": "json_object",
                    "schema": call_schema(&request.tools),
                }));
            } else {
                plan.tool_choice = Some(if required { "required" } else { "auto" });
            }
            return plan;
        }
        let Some(start) = request.start.as_ref() else {
            return plan;
        };
        if kind.continues() {
            plan.start = Some(start);
            plan.trailing = Some(&start.prefix);
            plan.continue_final = kind == ServerKind::Vllm;
            plan.stop_at = Some(&start.end);
        } else if kind == ServerKind::LlamaCppPython
            && let Some(g) = start.grammar()
        {
            plan.start = Some(start);
            plan.grammar = Some(g);
            plan.prefix_generated = true;
        }
        plan
    }

    /// The reply as the model wrote it: a continued one gets its prefix and
    /// end back. Whether the reply was started as asked.
    fn restore(&self, content: String, finish: Option<&str>) -> (String, bool) {
        let Some(start) = self.start else {
            return (content, false);
        };
        if self.prefix_generated {
            let ok = content.starts_with(&start.prefix);
            return (content, ok);
        }
        // A server that ignored the trailing message wrote a reply of its own.
        if content.trim_start().starts_with(start.prefix.trim_end()) {
            return (content, false);
        }
        (
            start.wrap(&content, matches!(finish, None | Some("stop"))),
            true,
        )
    }
}

fn transport_error(e: &reqwest::Error) -> ModelError {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "connection failed"
    } else {
        "transport error"
    };
    ModelError::Transient {
        message: format!("{kind}: {e}"),
        retry_after_secs: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_classes() {
        assert!(
            matches!(classify_status(429, "", Some(2.0), 10, None), ModelError::RateLimited { retry_after_secs: Some(s), .. } if s == 2.0)
        );
        assert!(matches!(
            classify_status(500, "", None, 10, None),
            ModelError::Transient { .. }
        ));
        assert!(matches!(
            classify_status(503, "", None, 10, None),
            ModelError::Transient { .. }
        ));
        assert!(matches!(
            classify_status(401, "bad key", None, 10, None),
            ModelError::Permanent { .. }
        ));
        assert!(matches!(
            classify_status(404, "", None, 10, None),
            ModelError::Permanent { .. }
        ));
        assert!(matches!(
            classify_status(
                400,
                "This model's maximum context length is 8192 tokens",
                None,
                9000,
                Some(8192)
            ),
            ModelError::ContextLength {
                prompt_tokens: 9000,
                limit: 8192
            }
        ));
        assert!(matches!(
            classify_status(400, "bad request", None, 10, None),
            ModelError::Permanent { .. }
        ));
    }

    #[test]
    fn retry_after_seconds_and_dates() {
        assert_eq!(parse_retry_after(" 2 "), Some(2.0));
        assert_eq!(parse_retry_after("1e20"), Some(1e20));
        assert_eq!(parse_retry_after("-4"), Some(0.0));
        assert_eq!(parse_retry_after("NaN"), None);
        assert_eq!(parse_retry_after("soon"), None);
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(0.0)
        );
        let later = std::time::SystemTime::now() + Duration::from_secs(3600);
        let s = parse_retry_after(&httpdate::fmt_http_date(later)).unwrap();
        assert!((3590.0..=3601.0).contains(&s), "{s}");
    }

    #[test]
    fn think_blocks() {
        assert_eq!(
            strip_think("<think>hmm</think>\nanswer"),
            ("answer".into(), Some("hmm".into()))
        );
        assert_eq!(
            strip_think("plan</think>done"),
            ("done".into(), Some("plan".into()))
        );
        assert_eq!(strip_think("no reasoning"), ("no reasoning".into(), None));
        assert_eq!(
            strip_think("a<think>x</think>b<think>y</think>c"),
            ("abc".into(), Some("x\n\ny".into()))
        );
        assert_eq!(
            strip_think("<think>never closed"),
            ("".into(), Some("never closed".into()))
        );
    }
}
