//! The embedded GGUF model, run in-process on the CPU with candle (SPEC §6.2).
//!
//! [`EmbeddedModel`] loads a llama- or qwen2-architecture GGUF (SmolLM2, Qwen2/2.5),
//! builds its tokenizer and chat template from the file's metadata and implements
//! [`LanguageModel`](crate::LanguageModel). Generation runs on a blocking thread;
//! computed prompt prefixes keep their key/value cache so that later calls sharing
//! a prefix (system prompt + corpus metadata) skip it. [`pull`] and
//! [`list_installed`] manage the per-user model cache.

mod pull;
mod tokenizer;
mod transformer;

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use async_trait::async_trait;
use candle_core::quantized::gguf_file;
use candle_transformers::generation::{LogitsProcessor, Sampling as CandleSampling};

pub use pull::{
    DEFAULT_MODEL_FILE, DEFAULT_MODEL_NAME, ENCODER_DIR, InstalledModel, PullError, PullSource,
    installed_default, installed_encoder, list_installed, model_cache_dir, pull,
};
use tokenizer::ChatTemplate;
use transformer::{Hyper, KvCache, Transformer};

use crate::{
    ChatRequest, ChatResponse, FinishReason, LanguageModel, ModelError, ReplyStart, ToolChoice,
    Usage,
};

/// Default context window when neither the caller nor a smaller trained limit says otherwise.
const DEFAULT_CTX: usize = 4096;

/// Settings of the embedded model.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddedOptions {
    /// CPU threads for candle's kernels; `None` picks 1 on machines with ≤ 2 cores, else
    /// cores − 1. Applied once per process, at the first load (candle sizes its pool then).
    pub threads: Option<usize>,
    /// Context window in tokens; `None` means min(trained limit, 4096). Capped at the
    /// model's trained limit.
    pub ctx: Option<usize>,
    /// Re-quantize Q4/Q5 weights to Q8_0 at load (faster on CPU; default true).
    pub requantize: bool,
    /// Temperature used when a request does not set one.
    pub temperature: f32,
    /// Nucleus mass used when a request does not set one.
    pub top_p: f32,
    /// Top-k used when a request does not set one.
    pub top_k: u32,
    /// Maximum new tokens when a request does not set a limit.
    pub max_tokens: u32,
    /// Seed of the first request that does not set one; each later such
    /// request takes the next (a run is reproducible from its start, but
    /// two turns of a conversation are not sampled from one random stream,
    /// which sent a root round the same replies).
    pub seed: u64,
    /// Penalty on recently seen tokens (1.0 = off).
    pub repeat_penalty: f32,
    /// How many recent tokens the repeat penalty looks at.
    pub repeat_last_n: usize,
    /// How many computed prompt prefixes to keep for reuse (0 = off).
    pub prefix_cache_entries: usize,
}

impl Default for EmbeddedOptions {
    fn default() -> Self {
        Self {
            threads: None,
            ctx: None,
            requantize: true,
            temperature: 0.7,
            top_p: 0.9,
            top_k: 40,
            max_tokens: 512,
            seed: 299_792_458,
            repeat_penalty: 1.1,
            repeat_last_n: 64,
            prefix_cache_entries: 3,
        }
    }
}

/// The default thread count: 1 on ≤ 2 cores (measured faster on a loaded 2-core
/// machine), else all cores but one.
pub fn default_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if cores <= 2 { 1 } else { cores - 1 }
}

/// Statistics of the last generation, for benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GenerationStats {
    /// Prompt tokens.
    pub prompt_tokens: usize,
    /// Prompt tokens taken from a cached prefix instead of being computed.
    pub reused_tokens: usize,
    /// Seconds spent computing the prompt.
    pub prompt_secs: f64,
    /// Tokens generated.
    pub generated_tokens: usize,
    /// Seconds spent generating.
    pub generate_secs: f64,
}

struct CachedPrefix {
    tokens: Vec<u32>,
    cache: KvCache,
}

struct Inner {
    transformer: Transformer,
    tokenizer: tokenizers::Tokenizer,
    template: ChatTemplate,
    end_ids: Vec<u32>,
    ctx: usize,
    name: String,
    /// Parameters in billions, when the file says or its tensors tell.
    size_b: Option<f64>,
    opts: EmbeddedOptions,
    prefixes: Mutex<Vec<CachedPrefix>>,
    /// One generation at a time: candle's CPU pool is shared.
    busy: Mutex<()>,
    last_stats: Mutex<GenerationStats>,
    /// Requests sampled so far without a seed of their own.
    unseeded: std::sync::atomic::AtomicU64,
}

/// A GGUF model run in-process on the CPU.
#[derive(Clone)]
pub struct EmbeddedModel {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for EmbeddedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedModel")
            .field("name", &self.inner.name)
            .field("ctx", &self.inner.ctx)
            .finish()
    }
}

fn permanent(message: impl Into<String>) -> ModelError {
    ModelError::Permanent {
        message: message.into(),
    }
}

/// Size candle's CPU pool before it starts (it reads `CANDLE_NUM_THREADS` once).
fn configure_threads(threads: Option<usize>) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("CANDLE_NUM_THREADS").is_some() {
            return;
        }
        let n = threads.unwrap_or_else(default_threads).max(1);
        // SAFETY: runs once, before any candle kernel has started its pool, and only
        // rlmkg's own code reads this variable; the environment is otherwise only read
        // at start-up by the CLI.
        #[allow(unsafe_code)]
        unsafe {
            std::env::set_var("CANDLE_NUM_THREADS", n.to_string());
        }
    });
}

impl EmbeddedModel {
    /// Load a GGUF file.
    pub fn load(path: &Path, opts: EmbeddedOptions) -> Result<Self, ModelError> {
        configure_threads(opts.threads);
        let file = File::open(path)
            .map_err(|e| permanent(format!("cannot open model {}: {e}", path.display())))?;
        let mut reader = BufReader::new(file);
        let content = gguf_file::Content::read(&mut reader).map_err(|e| {
            permanent(format!(
                "{} is not a readable GGUF file: {e}",
                path.display()
            ))
        })?;
        // The size: the file's own label, else its tensors' parameters.
        let size_b = content
            .metadata
            .get("general.size_label")
            .and_then(|v| v.to_string().ok())
            .and_then(|l| crate::model::size_from_name(l))
            .or_else(|| {
                let params: usize = content
                    .tensor_infos
                    .values()
                    .map(|t| t.shape.elem_count())
                    .sum();
                (params > 0).then(|| params as f64 / 1e9)
            });
        let hyper = Hyper::read(&content.metadata)
            .map_err(|e| permanent(format!("{}: {e}", path.display())))?;
        let tokenizer = tokenizer::from_gguf_metadata(&content.metadata)
            .map_err(|e| permanent(format!("{}: {e}", path.display())))?;
        let template_src = content
            .metadata
            .get("tokenizer.chat_template")
            .and_then(|v| v.to_string().ok())
            .map(String::as_str);
        let template = ChatTemplate::detect(template_src, &tokenizer).ok_or_else(|| {
            permanent(format!(
                "{}: no supported chat template (ChatML or Llama 3)",
                path.display()
            ))
        })?;
        let mut end_ids: Vec<u32> = template
            .end_tokens()
            .iter()
            .filter_map(|t| tokenizer.token_to_id(t))
            .collect();
        if let Some(eos) = content
            .metadata
            .get("tokenizer.ggml.eos_token_id")
            .and_then(|v| v.to_u32().ok())
        {
            end_ids.push(eos);
        }
        end_ids.sort_unstable();
        end_ids.dedup();
        let trained = hyper.trained_ctx.max(1);
        let ctx = opts
            .ctx
            .unwrap_or(DEFAULT_CTX.min(trained))
            .clamp(16, trained.max(16));
        let transformer = Transformer::load(&content, &mut reader, hyper, ctx, opts.requantize)
            .map_err(|e| permanent(format!("loading {}: {e}", path.display())))?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Self {
            inner: Arc::new(Inner {
                transformer,
                tokenizer,
                template,
                end_ids,
                ctx,
                name,
                size_b,
                opts,
                prefixes: Mutex::new(Vec::new()),
                busy: Mutex::new(()),
                last_stats: Mutex::new(GenerationStats::default()),
                unseeded: std::sync::atomic::AtomicU64::new(0),
            }),
        })
    }

    /// The model's name (file stem).
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Token ids of `text`, special tokens (`<|im_start|>` …) recognised as such.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, ModelError> {
        self.inner.encode(text)
    }

    /// Text of `ids`, special tokens kept.
    pub fn decode(&self, ids: &[u32]) -> Result<String, ModelError> {
        self.inner
            .tokenizer
            .decode(ids, false)
            .map_err(|e| permanent(format!("decode: {e}")))
    }

    /// The id of a token, if it is in the vocabulary.
    pub fn token_id(&self, token: &str) -> Option<u32> {
        self.inner.tokenizer.token_to_id(token)
    }

    /// The prompt text for `request` under the model's chat template.
    pub fn render_prompt(&self, request: &ChatRequest) -> String {
        let start = effective_start(request);
        let prefix = start.as_ref().map_or("", |s| s.prefix.as_str());
        self.inner
            .template
            .render(&request.messages, &request.tools, prefix)
    }

    /// Timing of the most recent call.
    pub fn last_stats(&self) -> GenerationStats {
        self.inner.last_stats.lock().map(|s| *s).unwrap_or_default()
    }

    /// Forget all cached prompt prefixes.
    pub fn clear_prefix_cache(&self) {
        if let Ok(mut p) = self.inner.prefixes.lock() {
            p.clear();
        }
    }

    /// Benchmark: compute `prompt` over an empty cache, then decode `decode` tokens
    /// greedily without stopping at end-of-turn (like llama.cpp's `llama-bench`).
    pub fn measure(&self, prompt: &[u32], decode: usize) -> Result<GenerationStats, ModelError> {
        self.run_greedy(prompt, decode).map(|(_, stats)| stats)
    }

    /// The `decode` token ids greedy decoding produces after `prompt` over an empty
    /// cache, without stopping at end-of-turn (to compare with other runtimes).
    pub fn greedy(&self, prompt: &[u32], decode: usize) -> Result<Vec<u32>, ModelError> {
        self.run_greedy(prompt, decode).map(|(tokens, _)| tokens)
    }

    fn run_greedy(
        &self,
        prompt: &[u32],
        decode: usize,
    ) -> Result<(Vec<u32>, GenerationStats), ModelError> {
        let inner = &self.inner;
        let _busy = inner
            .busy
            .lock()
            .map_err(|_| permanent("embedded model lock poisoned"))?;
        if prompt.is_empty() || prompt.len() + decode > inner.ctx {
            return Err(ModelError::ContextLength {
                prompt_tokens: prompt.len() + decode,
                limit: inner.ctx,
            });
        }
        let fail = |e: candle_core::Error| permanent(format!("forward: {e}"));
        let t0 = Instant::now();
        let mut cache = inner
            .transformer
            .new_cache(prompt.len() + decode, None)
            .map_err(fail)?;
        let mut logits = inner
            .transformer
            .forward(prompt, &mut cache)
            .map_err(fail)?;
        let prompt_secs = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        // `decode` comes from settings (max_tokens): grow, do not pre-size from it.
        let mut tokens = Vec::with_capacity(decode.min(4096));
        for _ in 0..decode {
            let next = logits
                .argmax(0)
                .and_then(|t| t.to_scalar::<u32>())
                .map_err(fail)?;
            tokens.push(next);
            logits = inner
                .transformer
                .forward(&[next], &mut cache)
                .map_err(fail)?;
        }
        let stats = GenerationStats {
            prompt_tokens: prompt.len(),
            reused_tokens: 0,
            prompt_secs,
            generated_tokens: decode,
            generate_secs: t1.elapsed().as_secs_f64(),
        };
        Ok((tokens, stats))
    }

    /// Run one chat completion on the current thread (blocking).
    pub fn chat_blocking(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        self.inner.generate(request)
    }
}

impl Inner {
    fn encode(&self, text: &str) -> Result<Vec<u32>, ModelError> {
        self.tokenizer
            .encode(text, false)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| permanent(format!("tokenize: {e}")))
    }

    /// Take the cached prefix sharing the most leading tokens with `prompt`.
    fn best_prefix(&self, prompt: &[u32]) -> Option<(KvCache, usize)> {
        let prefixes = self.prefixes.lock().ok()?;
        prefixes
            .iter()
            .map(|p| {
                let common = p
                    .tokens
                    .iter()
                    .zip(prompt)
                    .take_while(|(a, b)| a == b)
                    .count();
                // At least one prompt token must be computed to get logits.
                (
                    p,
                    common
                        .min(prompt.len().saturating_sub(1))
                        .min(p.cache.len()),
                )
            })
            .filter(|(_, n)| *n > 0)
            .max_by_key(|(_, n)| *n)
            .map(|(p, n)| (p.cache.clone(), n))
    }

    fn remember(&self, tokens: Vec<u32>, cache: KvCache) {
        let max = self.opts.prefix_cache_entries;
        if max == 0 {
            return;
        }
        if let Ok(mut p) = self.prefixes.lock() {
            p.retain(|c| c.tokens != tokens);
            p.insert(0, CachedPrefix { tokens, cache });
            p.truncate(max);
        }
    }

    fn generate(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let _busy = self
            .busy
            .lock()
            .map_err(|_| permanent("embedded model lock poisoned"))?;
        let s = &request.sampling;
        let start = effective_start(request);
        let prefix = start.as_ref().map_or("", |st| st.prefix.as_str());
        let prompt_text = self
            .template
            .render(&request.messages, &request.tools, prefix);
        let stops: Vec<&str> = s
            .stop
            .iter()
            .map(String::as_str)
            .chain(start.as_ref().map(|st| st.end.as_str()))
            .filter(|x| !x.is_empty())
            .collect();
        let prompt = self.encode(&prompt_text)?;
        if prompt.is_empty() {
            return Err(permanent("empty prompt"));
        }
        if prompt.len() >= self.ctx {
            return Err(ModelError::ContextLength {
                prompt_tokens: prompt.len(),
                limit: self.ctx,
            });
        }
        let room = self.ctx - prompt.len();
        let wanted = s.max_tokens.unwrap_or(self.opts.max_tokens) as usize;
        let max_new = wanted.min(room);
        let mut stats = GenerationStats {
            prompt_tokens: prompt.len(),
            ..Default::default()
        };

        let t0 = Instant::now();
        let capacity = (prompt.len() + max_new).min(self.transformer.max_seq());
        let reuse = self.best_prefix(&prompt);
        let mut cache = self
            .transformer
            .new_cache(capacity, reuse.as_ref().map(|(c, n)| (c, *n)))
            .map_err(|e| permanent(format!("KV cache: {e}")))?;
        stats.reused_tokens = cache.len();
        let mut logits = self
            .transformer
            .forward(&prompt[cache.len()..], &mut cache)
            .map_err(|e| permanent(format!("forward: {e}")))?;
        self.remember(prompt.clone(), cache.clone());
        stats.prompt_secs = t0.elapsed().as_secs_f64();

        let temperature = f64::from(s.temperature.unwrap_or(self.opts.temperature));
        let sampling = if temperature <= 0.0 {
            CandleSampling::ArgMax
        } else {
            let k = s.top_k.unwrap_or(self.opts.top_k) as usize;
            let p = f64::from(s.top_p.unwrap_or(self.opts.top_p));
            match (k > 0, p > 0.0 && p < 1.0) {
                (true, true) => CandleSampling::TopKThenTopP { k, p, temperature },
                (true, false) => CandleSampling::TopK { k, temperature },
                (false, true) => CandleSampling::TopP { p, temperature },
                (false, false) => CandleSampling::All { temperature },
            }
        };
        let seed = s.seed.unwrap_or_else(|| {
            let n = self
                .unseeded
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.opts.seed.wrapping_add(n)
        });
        let mut sampler = LogitsProcessor::from_sampling(seed, sampling);

        let t1 = Instant::now();
        let mut generated: Vec<u32> = Vec::new();
        let mut finish = FinishReason::Length;
        let mut text = String::new();
        let mut history: Vec<u32> = prompt.clone();
        let mut ended_by: Option<&str> = None;
        while generated.len() < max_new {
            let penalised = if self.opts.repeat_penalty != 1.0 {
                let start = history.len().saturating_sub(self.opts.repeat_last_n);
                candle_transformers::utils::apply_repeat_penalty(
                    &logits,
                    self.opts.repeat_penalty,
                    &history[start..],
                )
                .map_err(|e| permanent(format!("sampling: {e}")))?
            } else {
                logits.clone()
            };
            let next = sampler
                .sample(&penalised)
                .map_err(|e| permanent(format!("sampling: {e}")))?;
            if self.end_ids.contains(&next) {
                finish = FinishReason::Stop;
                break;
            }
            generated.push(next);
            history.push(next);
            text = self
                .tokenizer
                .decode(&generated, true)
                .map_err(|e| permanent(format!("decode: {e}")))?;
            if let Some((cut, stop)) = stops
                .iter()
                .filter_map(|x| text.find(x).map(|at| (at, *x)))
                .min()
            {
                text.truncate(cut);
                finish = FinishReason::Stop;
                ended_by = Some(stop);
                break;
            }
            if generated.len() >= max_new {
                break;
            }
            logits = self
                .transformer
                .forward(&[next], &mut cache)
                .map_err(|e| permanent(format!("forward: {e}")))?;
        }
        stats.generated_tokens = generated.len();
        stats.generate_secs = t1.elapsed().as_secs_f64();
        if let Ok(mut l) = self.last_stats.lock() {
            *l = stats;
        }
        // The reply as the model "wrote" it: the started prefix, what it
        // generated, and the end it stopped at.
        let started = start.is_some();
        if let Some(st) = &start {
            text = st.wrap(&text, ended_by == Some(st.end.as_str()));
        }
        let (reasoning, content) = split_reasoning(&text);
        let (content, tool_calls) = if request.tools.is_empty() {
            (content, Vec::new())
        } else {
            crate::tools::parse_calls(&content)
        };
        Ok(ChatResponse {
            content,
            reasoning,
            usage: Usage {
                prompt_tokens: prompt.len() as u64,
                completion_tokens: generated.len() as u64,
            },
            finish,
            model: self.name.clone(),
            tool_calls,
            started,
            server: None,
        })
    }
}

/// How the reply is started for the model: as the request asks, or, when a
/// tool call is required, with the call opened ([`crate::tools::FORCED_CALL_PREFIX`]).
fn effective_start(request: &ChatRequest) -> Option<ReplyStart> {
    if !request.tools.is_empty() && request.tool_choice == ToolChoice::Required {
        return Some(ReplyStart {
            prefix: crate::tools::FORCED_CALL_PREFIX.to_owned(),
            end: crate::tools::CALL_CLOSE.to_owned(),
        });
    }
    request.start.clone()
}

/// Split a leading `<think>…</think>` block from the reply.
fn split_reasoning(text: &str) -> (Option<String>, String) {
    let trimmed = text.trim_start();
    if let Some(rest) = trimmed.strip_prefix("<think>")
        && let Some(end) = rest.find("</think>")
    {
        let reasoning = rest[..end].trim().to_owned();
        let content = rest[end + "</think>".len()..].trim_start().to_owned();
        return (Some(reasoning), content);
    }
    (None, text.to_owned())
}

#[async_trait]
impl LanguageModel for EmbeddedModel {
    fn id(&self) -> String {
        format!("embedded:{}", self.inner.name)
    }

    fn context_window(&self) -> Option<usize> {
        Some(self.inner.ctx)
    }

    fn default_concurrency(&self) -> usize {
        // One in-process CPU model: parallel calls would only split the cores.
        1
    }

    fn size_billions(&self) -> Option<f64> {
        self.inner.size_b
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.inner
            .encode(text)
            .map_or_else(|_| text.len().div_ceil(4), |ids| ids.len())
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let inner = Arc::clone(&self.inner);
        let request = request.clone();
        tokio::task::spawn_blocking(move || inner.generate(&request))
            .await
            .map_err(|e| permanent(format!("embedded model task failed: {e}")))?
    }
}

/// The path the embedded model would load by default: the pulled default model.
pub fn default_model_path() -> Option<PathBuf> {
    installed_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_is_split() {
        let (r, c) = split_reasoning("<think>hmm</think>\nAnswer");
        assert_eq!(r.as_deref(), Some("hmm"));
        assert_eq!(c, "Answer");
        assert_eq!(split_reasoning("plain"), (None, "plain".to_owned()));
    }

    #[test]
    fn pull_source_parses() {
        assert_eq!(PullSource::parse(None).ok(), Some(PullSource::Default));
        assert_eq!(
            PullSource::parse(Some("smollm2")).ok(),
            Some(PullSource::Default)
        );
        assert_eq!(
            PullSource::parse(Some(
                "hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q8_0.gguf"
            ))
            .ok(),
            Some(PullSource::HuggingFace {
                repo: "Qwen/Qwen2.5-0.5B-Instruct-GGUF".into(),
                file: "qwen2.5-0.5b-instruct-q8_0.gguf".into()
            })
        );
        for name in ["encoder", "all-MiniLM-L6-v2", " Encoder "] {
            assert_eq!(
                PullSource::parse(Some(name)).ok(),
                Some(PullSource::Encoder),
                "{name}"
            );
        }
        assert!(PullSource::parse(Some("nonsense")).is_err());
    }

    #[test]
    fn chatml_renders() {
        let msgs = vec![crate::Message::system("S"), crate::Message::user("U")];
        assert_eq!(
            ChatTemplate::ChatMl.render(&msgs, &[], ""),
            "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n"
        );
    }
}
