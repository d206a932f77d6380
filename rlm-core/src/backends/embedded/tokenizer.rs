//! The tokenizer and chat template, built from GGUF metadata.
//!
//! candle's own GGUF tokenizer helper mis-handles SmolLM2's pre-tokenizer (it
//! inserts a leading space, so `<|im_start|>user` tokenizes wrongly); this module
//! builds a byte-level BPE with the `tokenizers` crate from `tokenizer.ggml.*`
//! instead, choosing the pre-tokenizer from `tokenizer.ggml.pre`.

use std::collections::HashMap;

use candle_core::quantized::gguf_file::Value;
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::{BPE, Vocab};
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{AddedToken, SplitDelimiterBehavior, Tokenizer};

use crate::{Message, Role, ToolSpec};

/// GGUF `token_type` of control tokens (`<|im_start|>` and friends).
const TOKEN_TYPE_CONTROL: i64 = 3;
/// GGUF `token_type` of user-defined tokens.
const TOKEN_TYPE_USER_DEFINED: i64 = 4;

/// Qwen2's split pattern (single digits).
const QWEN2_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Llama 3's split pattern (digits in groups of up to three).
const LLAMA3_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// How messages are laid out for the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChatTemplate {
    /// `<|im_start|>role\ncontent<|im_end|>\n` (SmolLM2, Qwen).
    ChatMl,
    /// `<|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|>` (Llama 3).
    Llama3,
}

impl ChatTemplate {
    /// Detect the template from `tokenizer.chat_template`, falling back on the vocabulary.
    pub(crate) fn detect(template: Option<&str>, tokenizer: &Tokenizer) -> Option<Self> {
        match template {
            Some(t) if t.contains("<|im_start|>") => Some(Self::ChatMl),
            Some(t) if t.contains("<|start_header_id|>") => Some(Self::Llama3),
            _ if tokenizer.token_to_id("<|im_start|>").is_some() => Some(Self::ChatMl),
            _ if tokenizer.token_to_id("<|start_header_id|>").is_some() => Some(Self::Llama3),
            _ => None,
        }
    }

    /// Render the conversation, ending with the opening of the assistant's turn
    /// and `prefix`, the reply as started for the model. `tools` go into the
    /// system message (Qwen 2.5's layout, [`crate::tools::system_section`]);
    /// an assistant's tool calls are written as it would write them, and
    /// consecutive tool results share one user turn as `<tool_response>` blocks.
    pub(crate) fn render(self, messages: &[Message], tools: &[ToolSpec], prefix: &str) -> String {
        let (open, sep, close, assistant) = match self {
            Self::ChatMl => (
                "<|im_start|>",
                "\n",
                "<|im_end|>\n",
                "<|im_start|>assistant\n",
            ),
            Self::Llama3 => (
                "<|start_header_id|>",
                "<|end_header_id|>\n\n",
                "<|eot_id|>",
                "<|start_header_id|>assistant<|end_header_id|>\n\n",
            ),
        };
        let mut out = String::new();
        if self == Self::Llama3 {
            out.push_str("<|begin_of_text|>");
        }
        let tool_text = (!tools.is_empty()).then(|| crate::tools::system_section(tools));
        let turn = |out: &mut String, role: &str, content: &str| {
            out.push_str(open);
            out.push_str(role);
            out.push_str(sep);
            out.push_str(content);
            out.push_str(close);
        };
        if let Some(t) = &tool_text
            && messages.first().is_none_or(|m| m.role != Role::System)
        {
            turn(&mut out, "system", t.trim_start());
        }
        let mut i = 0;
        while let Some(m) = messages.get(i) {
            match m.role {
                Role::System if i == 0 => {
                    let content = match &tool_text {
                        Some(t) => format!("{}{t}", m.content),
                        None => m.content.clone(),
                    };
                    turn(&mut out, "system", &content);
                }
                Role::Tool => {
                    let mut content = String::new();
                    while let Some(t) = messages.get(i).filter(|t| t.role == Role::Tool) {
                        content.push_str("\n<tool_response>\n");
                        content.push_str(&t.content);
                        content.push_str("\n</tool_response>");
                        i += 1;
                    }
                    turn(&mut out, "user", &content);
                    continue;
                }
                Role::Assistant if !m.tool_calls.is_empty() => {
                    let mut content = m.content.trim().to_owned();
                    for call in &m.tool_calls {
                        if !content.is_empty() {
                            content.push('\n');
                        }
                        content.push_str(&crate::tools::render_call(call));
                    }
                    turn(&mut out, "assistant", &content);
                }
                role => turn(&mut out, role_name(role), &m.content),
            }
            i += 1;
        }
        out.push_str(assistant);
        out.push_str(prefix);
        out
    }

    /// Tokens that end the assistant's turn under this template.
    pub(crate) fn end_tokens(self) -> &'static [&'static str] {
        match self {
            Self::ChatMl => &["<|im_end|>", "<|endoftext|>"],
            Self::Llama3 => &["<|eot_id|>", "<|end_of_text|>"],
        }
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// Why the tokenizer could not be built.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TokenizerBuildError {
    #[error("GGUF metadata lacks {0}")]
    Missing(&'static str),
    #[error("unsupported tokenizer model {0:?} (only byte-level BPE, `gpt2`, is supported)")]
    Unsupported(String),
    #[error("GGUF tokenizer metadata is malformed: {0}")]
    Malformed(String),
}

fn strings(
    md: &HashMap<String, Value>,
    key: &'static str,
) -> Result<Vec<String>, TokenizerBuildError> {
    let v = md.get(key).ok_or(TokenizerBuildError::Missing(key))?;
    let items = v
        .to_vec()
        .map_err(|e| TokenizerBuildError::Malformed(format!("{key}: {e}")))?;
    items
        .iter()
        .map(|x| {
            x.to_string()
                .cloned()
                .map_err(|e| TokenizerBuildError::Malformed(format!("{key}: {e}")))
        })
        .collect()
}

fn int_value(v: &Value) -> Option<i64> {
    match v {
        Value::U8(x) => Some(i64::from(*x)),
        Value::I8(x) => Some(i64::from(*x)),
        Value::U16(x) => Some(i64::from(*x)),
        Value::I16(x) => Some(i64::from(*x)),
        Value::U32(x) => Some(i64::from(*x)),
        Value::I32(x) => Some(i64::from(*x)),
        Value::U64(x) => i64::try_from(*x).ok(),
        Value::I64(x) => Some(*x),
        _ => None,
    }
}

/// Build the tokenizer from `tokenizer.ggml.*` metadata.
pub(crate) fn from_gguf_metadata(
    md: &HashMap<String, Value>,
) -> Result<Tokenizer, TokenizerBuildError> {
    let model = md
        .get("tokenizer.ggml.model")
        .and_then(|v| v.to_string().ok())
        .ok_or(TokenizerBuildError::Missing("tokenizer.ggml.model"))?;
    if model != "gpt2" {
        return Err(TokenizerBuildError::Unsupported(model.clone()));
    }
    let tokens = strings(md, "tokenizer.ggml.tokens")?;
    let merges = strings(md, "tokenizer.ggml.merges")?;
    let types: Vec<i64> = match md.get("tokenizer.ggml.token_type").map(Value::to_vec) {
        Some(Ok(v)) => v.iter().map(|x| int_value(x).unwrap_or(1)).collect(),
        _ => Vec::new(),
    };

    let vocab: Vocab = tokens
        .iter()
        .enumerate()
        .filter_map(|(i, t)| u32::try_from(i).ok().map(|i| (t.clone(), i)))
        .collect();
    let merges: Vec<(String, String)> = merges
        .iter()
        .map(|m| {
            m.split_once(' ')
                .map(|(a, b)| (a.to_owned(), b.to_owned()))
                .ok_or_else(|| TokenizerBuildError::Malformed(format!("merge {m:?}")))
        })
        .collect::<Result<_, _>>()?;
    let bpe = BPE::builder()
        .vocab_and_merges(vocab, merges)
        .build()
        .map_err(|e| TokenizerBuildError::Malformed(e.to_string()))?;

    let mut tokenizer = Tokenizer::new(bpe);
    let pre = md
        .get("tokenizer.ggml.pre")
        .and_then(|v| v.to_string().ok())
        .map(String::as_str);
    let pre_tokenizer: PreTokenizerWrapper = match pre {
        Some("qwen2") => split_then_bytes(QWEN2_PATTERN)?,
        Some("llama-bpe" | "llama3" | "smaug-bpe") => split_then_bytes(LLAMA3_PATTERN)?,
        Some("smollm") | Some("starcoder") => Sequence::new(vec![
            Digits::new(true).into(),
            ByteLevel::new(false, true, true).into(),
        ])
        .into(),
        _ => ByteLevel::new(false, true, true).into(),
    };
    tokenizer.with_pre_tokenizer(Some(pre_tokenizer));
    tokenizer.with_decoder(Some(ByteLevelDecoder::default()));

    let special: Vec<AddedToken> = tokens
        .iter()
        .zip(types.iter())
        .filter(|(_, t)| **t == TOKEN_TYPE_CONTROL || **t == TOKEN_TYPE_USER_DEFINED)
        .map(|(tok, _)| AddedToken::from(tok.clone(), true))
        .collect();
    tokenizer
        .add_special_tokens(special)
        .map_err(|e| TokenizerBuildError::Malformed(e.to_string()))?;
    Ok(tokenizer)
}

fn split_then_bytes(pattern: &str) -> Result<PreTokenizerWrapper, TokenizerBuildError> {
    let split = Split::new(
        SplitPattern::Regex(pattern.to_owned()),
        SplitDelimiterBehavior::Isolated,
        false,
    )
    .map_err(|e| TokenizerBuildError::Malformed(e.to_string()))?;
    Ok(Sequence::new(vec![
        split.into(),
        ByteLevel::new(false, false, false).into(),
    ])
    .into())
}
