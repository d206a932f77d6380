//! The qwen2 path of the embedded model (q/k/v biases, NeoX rotary halves, the
//! qwen2 pre-tokenizer) on a tiny qwen2 GGUF with seeded random weights, written
//! here with candle's GGUF writer: it loads, decodes deterministically, its
//! tokenizer round-trips ChatML specials, the biases matter, and — when
//! llama-cpp-python is available (`RLMKG_LLAMA_PYTHON`, which `.ci/run` sets) —
//! greedy decoding gives exactly llama.cpp's tokens on the same file.
#![cfg(feature = "embedded")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

use candle_core::quantized::gguf_file::{self, Value};
use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::{Device, Tensor};
use rlm_core::embedded::{EmbeddedModel, EmbeddedOptions};

const EMBD: usize = 64;
const HEADS: usize = 4;
const KV_HEADS: usize = 2;
const FF: usize = 128;
const LAYERS: usize = 2;
const SPECIALS: [&str; 3] = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"];

/// GPT-2 byte-to-unicode table: the byte-level BPE alphabet.
fn byte_chars() -> Vec<char> {
    let mut printable: Vec<u32> = (0x21..=0x7e)
        .chain(0xa1..=0xac)
        .chain(0xae..=0xff)
        .collect();
    let mut chars: Vec<u32> = printable.clone();
    let mut n = 0;
    for b in 0..256u32 {
        if !printable.contains(&b) {
            printable.push(b);
            chars.push(256 + n);
            n += 1;
        }
    }
    let mut table = vec![' '; 256];
    for (b, c) in printable.iter().zip(chars) {
        table[*b as usize] = char::from_u32(c).unwrap();
    }
    table
}

/// Deterministic pseudo-random values in [-scale, scale].
struct Rng(u64);
impl Rng {
    fn tensor(&mut self, shape: &[usize], scale: f32) -> QTensor {
        let n: usize = shape.iter().product();
        let v: Vec<f32> = (0..n)
            .map(|_| {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                ((self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) as f32 * scale
            })
            .collect();
        let t = Tensor::from_vec(v, shape, &Device::Cpu).unwrap();
        QTensor::quantize(&t, GgmlDType::F32).unwrap()
    }
    fn ones(&mut self, n: usize) -> QTensor {
        let t = Tensor::ones(n, candle_core::DType::F32, &Device::Cpu).unwrap();
        QTensor::quantize(&t, GgmlDType::F32).unwrap()
    }
}

/// Write the tiny model; `bias_scale` 0 writes zero q/k/v biases.
fn write_model(path: &Path, bias_scale: f32) {
    let mut tokens: Vec<String> = byte_chars().iter().map(|c| c.to_string()).collect();
    let mut types = vec![1i32; tokens.len()];
    for s in SPECIALS {
        tokens.push(s.to_string());
        types.push(3);
    }
    let vocab = tokens.len();
    let head_dim = EMBD / HEADS;
    let s = |x: &str| Value::String(x.to_string());
    let template = "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";
    let md: Vec<(&str, Value)> = vec![
        ("general.architecture", s("qwen2")),
        ("general.name", s("tiny-qwen2-test")),
        ("qwen2.context_length", Value::U32(256)),
        ("qwen2.embedding_length", Value::U32(EMBD as u32)),
        ("qwen2.block_count", Value::U32(LAYERS as u32)),
        ("qwen2.feed_forward_length", Value::U32(FF as u32)),
        ("qwen2.attention.head_count", Value::U32(HEADS as u32)),
        ("qwen2.attention.head_count_kv", Value::U32(KV_HEADS as u32)),
        ("qwen2.attention.layer_norm_rms_epsilon", Value::F32(1e-6)),
        ("qwen2.rope.freq_base", Value::F32(1_000_000.0)),
        ("tokenizer.ggml.model", s("gpt2")),
        ("tokenizer.ggml.pre", s("qwen2")),
        (
            "tokenizer.ggml.tokens",
            Value::Array(tokens.iter().map(|t| s(t)).collect()),
        ),
        (
            "tokenizer.ggml.token_type",
            Value::Array(types.iter().map(|t| Value::I32(*t)).collect()),
        ),
        (
            "tokenizer.ggml.merges",
            Value::Array(vec![s("Ġ t"), s("h e")]),
        ),
        ("tokenizer.ggml.eos_token_id", Value::U32(vocab as u32 - 1)),
        ("tokenizer.ggml.bos_token_id", Value::U32(vocab as u32 - 3)),
        (
            "tokenizer.ggml.padding_token_id",
            Value::U32(vocab as u32 - 3),
        ),
        ("tokenizer.ggml.add_bos_token", Value::Bool(false)),
        ("tokenizer.chat_template", s(template)),
    ];
    // "Ġt" and "he" are the merges' results: add them to the vocabulary too.
    let mut md = md;
    if let Some((_, Value::Array(toks))) =
        md.iter_mut().find(|(k, _)| *k == "tokenizer.ggml.tokens")
    {
        toks.push(s("Ġt"));
        toks.push(s("he"));
    }
    if let Some((_, Value::Array(ty))) = md
        .iter_mut()
        .find(|(k, _)| *k == "tokenizer.ggml.token_type")
    {
        ty.push(Value::I32(1));
        ty.push(Value::I32(1));
    }
    let vocab = vocab + 2;

    let mut r = Rng(0x5eed_1234_abcd_0001);
    let mut tensors: Vec<(String, QTensor)> = vec![
        ("token_embd.weight".into(), r.tensor(&[vocab, EMBD], 0.5)),
        ("output_norm.weight".into(), r.ones(EMBD)),
        ("output.weight".into(), r.tensor(&[vocab, EMBD], 0.5)),
    ];
    for l in 0..LAYERS {
        let n = |x: &str| format!("blk.{l}.{x}");
        let kv = KV_HEADS * head_dim;
        tensors.push((n("attn_norm.weight"), r.ones(EMBD)));
        tensors.push((n("attn_q.weight"), r.tensor(&[EMBD, EMBD], 0.3)));
        tensors.push((n("attn_q.bias"), r.tensor(&[EMBD], bias_scale)));
        tensors.push((n("attn_k.weight"), r.tensor(&[kv, EMBD], 0.3)));
        tensors.push((n("attn_k.bias"), r.tensor(&[kv], bias_scale)));
        tensors.push((n("attn_v.weight"), r.tensor(&[kv, EMBD], 0.3)));
        tensors.push((n("attn_v.bias"), r.tensor(&[kv], bias_scale)));
        tensors.push((n("attn_output.weight"), r.tensor(&[EMBD, EMBD], 0.3)));
        tensors.push((n("ffn_norm.weight"), r.ones(EMBD)));
        tensors.push((n("ffn_gate.weight"), r.tensor(&[FF, EMBD], 0.3)));
        tensors.push((n("ffn_up.weight"), r.tensor(&[FF, EMBD], 0.3)));
        tensors.push((n("ffn_down.weight"), r.tensor(&[EMBD, FF], 0.3)));
    }
    let md_refs: Vec<(&str, &Value)> = md.iter().map(|(k, v)| (*k, v)).collect();
    let t_refs: Vec<(&str, &QTensor)> = tensors.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let mut f = std::fs::File::create(path).unwrap();
    gguf_file::write(&mut f, &md_refs, &t_refs).unwrap();
}

fn load(path: &Path) -> EmbeddedModel {
    let opts = EmbeddedOptions {
        threads: Some(1),
        ..EmbeddedOptions::default()
    };
    EmbeddedModel::load(path, opts).unwrap()
}

/// llama.cpp on the same file: its tokenization of `text` (specials parsed) and the
/// `n` greedy tokens after it; None when llama-cpp-python is not available.
fn llama_cpp(path: &Path, text: &str, n: usize) -> Option<(Vec<u32>, Vec<u32>)> {
    let python = std::env::var("RLMKG_LLAMA_PYTHON")
        .ok()
        .filter(|p| !p.is_empty())?;
    // logits_all: without it `scores` keeps only rows of the last batch.
    let script = r#"
import json, sys
from llama_cpp import Llama
path, text, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
llm = Llama(model_path=path, n_ctx=256, n_batch=256, n_threads=1, n_threads_batch=1,
            logits_all=True, verbose=False)
ids = llm.tokenize(text.encode(), add_bos=False, special=True)
llm.eval(ids)
out = []
for _ in range(n):
    tok = int(llm.scores[llm.n_tokens - 1].argmax())
    out.append(tok)
    llm.eval([tok])
print(json.dumps([ids, out]))
"#;
    let out = Command::new(&python)
        .args(["-c", script])
        .arg(path)
        .arg(text)
        .arg(n.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "llama.cpp could not run the tiny qwen2 model: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn tiny_qwen2_loads_decodes_and_matches_llama_cpp() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny-qwen2.gguf");
    write_model(&path, 0.5);
    let model = load(&path);

    // ChatML specials are single tokens and round-trip.
    let text = "<|im_start|>user\nthe hat<|im_end|>\n";
    let ids = model.encode(text).unwrap();
    assert_eq!(ids[0], model.token_id("<|im_start|>").unwrap(), "{ids:?}");
    assert!(ids.contains(&model.token_id("<|im_end|>").unwrap()));
    assert_eq!(model.decode(&ids).unwrap(), text);

    let prompt_text = "<|im_start|>user\nthe tide<|im_end|>\n";
    let prompt = model.encode(prompt_text).unwrap();
    let ours = model.greedy(&prompt, 16).unwrap();
    assert_eq!(ours.len(), 16);
    assert_eq!(model.greedy(&prompt, 16).unwrap(), ours, "deterministic");

    // The q/k/v biases take part: the same weights without them decode differently.
    let plain = dir.path().join("tiny-qwen2-nobias.gguf");
    write_model(&plain, 0.0);
    assert_ne!(load(&plain).greedy(&prompt, 16).unwrap(), ours);

    match llama_cpp(&path, prompt_text, 16) {
        Some((their_prompt, theirs)) => {
            assert_eq!(prompt, their_prompt, "tokenization differs from llama.cpp");
            assert_eq!(ours, theirs, "greedy tokens differ from llama.cpp");
        }
        None => eprintln!("llama.cpp comparison skipped: RLMKG_LLAMA_PYTHON is not set"),
    }
}
