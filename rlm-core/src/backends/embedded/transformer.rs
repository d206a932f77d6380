//! A decoder-only transformer over GGUF weights (llama and qwen2 architectures).
//!
//! The weights are immutable and shared; the key/value cache lives outside the
//! model ([`KvCache`]) so that a computed prompt prefix can be kept and reused by
//! later calls. Weights stored as Q4_0/Q4_1/Q5_0/Q5_1 are re-quantized to Q8_0 at
//! load: candle has no fast CPU kernel for Q4_1 and Q8_0 measured about 4× faster.

use std::collections::HashMap;
use std::io::{Read, Seek};

use candle_core::quantized::gguf_file::{Content, Value};
use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{DType, Device, IndexOp, Module, Result, Tensor};
use candle_transformers::quantized_nn::RmsNorm;

/// Tokens per forward pass while filling the prompt (bounds the attention matrix).
const PREFILL_CHUNK: usize = 256;

/// Shape and architecture facts read from GGUF metadata.
#[derive(Debug, Clone)]
pub(crate) struct Hyper {
    /// `general.architecture`.
    pub arch: String,
    /// Trained context length.
    pub trained_ctx: usize,
    n_layer: usize,
    n_head: usize,
    n_kv_head: usize,
    head_dim: usize,
    rope_dim: usize,
    rope_base: f32,
    eps: f64,
}

fn md_u(md: &HashMap<String, Value>, key: &str) -> Result<usize> {
    match md.get(key) {
        Some(v) => Ok(v.to_u32()? as usize),
        None => candle_core::bail!("GGUF metadata lacks {key}"),
    }
}

impl Hyper {
    /// Read the hyper-parameters of a llama or qwen2 GGUF.
    pub(crate) fn read(md: &HashMap<String, Value>) -> Result<Self> {
        let arch = md
            .get("general.architecture")
            .and_then(|v| v.to_string().ok())
            .cloned()
            .unwrap_or_else(|| "llama".to_owned());
        if !matches!(arch.as_str(), "llama" | "qwen2") {
            candle_core::bail!(
                "unsupported GGUF architecture {arch:?} (llama and qwen2 are supported)"
            )
        }
        let p = |k: &str| format!("{arch}.{k}");
        let n_head = md_u(md, &p("attention.head_count"))?;
        let n_kv_head = md_u(md, &p("attention.head_count_kv")).unwrap_or(n_head);
        let embd = md_u(md, &p("embedding_length"))?;
        if n_head == 0 || n_kv_head == 0 || n_head % n_kv_head != 0 || embd % n_head != 0 {
            candle_core::bail!("inconsistent head counts in GGUF metadata")
        }
        let head_dim = embd / n_head;
        let n_layer = md_u(md, &p("block_count"))?;
        if n_layer == 0 || n_layer > 1024 {
            candle_core::bail!("implausible block_count {n_layer} in GGUF metadata")
        }
        Ok(Self {
            trained_ctx: md_u(md, &p("context_length")).unwrap_or(2048),
            n_layer,
            n_head,
            n_kv_head,
            head_dim,
            rope_dim: md_u(md, &p("rope.dimension_count")).unwrap_or(head_dim),
            rope_base: md
                .get(&p("rope.freq_base"))
                .and_then(|v| v.to_f32().ok())
                .unwrap_or(10_000.0),
            eps: md
                .get(&p("attention.layer_norm_rms_epsilon"))
                .and_then(|v| v.to_f32().ok())
                .map_or(1e-5, f64::from),
            arch,
        })
    }
}

struct Layer {
    wq: QMatMul,
    wk: QMatMul,
    wv: QMatMul,
    wo: QMatMul,
    bq: Option<Tensor>,
    bk: Option<Tensor>,
    bv: Option<Tensor>,
    attn_norm: RmsNorm,
    ffn_norm: RmsNorm,
    gate: QMatMul,
    up: QMatMul,
    down: QMatMul,
}

/// The model weights.
pub(crate) struct Transformer {
    hyper: Hyper,
    embed: Tensor,
    layers: Vec<Layer>,
    norm: RmsNorm,
    output: QMatMul,
    cos: Tensor,
    sin: Tensor,
    neox: bool,
    max_seq: usize,
    device: Device,
}

/// Per-call key/value cache with room for `capacity` positions.
#[derive(Clone)]
pub(crate) struct KvCache {
    k: Vec<Tensor>,
    v: Vec<Tensor>,
    len: usize,
    capacity: usize,
}

impl KvCache {
    /// Positions filled.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

struct Loader<'a, R> {
    ct: &'a Content,
    reader: &'a mut R,
    device: &'a Device,
    requantize: bool,
}

impl<R: Read + Seek> Loader<'_, R> {
    fn raw(&mut self, name: &str) -> Result<QTensor> {
        self.ct.tensor(self.reader, name, self.device)
    }

    fn has(&self, name: &str) -> bool {
        self.ct.tensor_infos.contains_key(name)
    }

    /// A weight for matrix products, re-quantized to Q8_0 when it is a slow type.
    fn matmul(&mut self, name: &str) -> Result<QMatMul> {
        let t = self.raw(name)?;
        let slow = matches!(
            t.dtype(),
            GgmlDType::Q4_0 | GgmlDType::Q4_1 | GgmlDType::Q5_0 | GgmlDType::Q5_1
        );
        let divisible = t.shape().dims().last().is_some_and(|d| d % 32 == 0);
        if self.requantize && slow && divisible {
            let f = t.dequantize(self.device)?;
            return QMatMul::from_qtensor(QTensor::quantize(&f, GgmlDType::Q8_0)?);
        }
        QMatMul::from_qtensor(t)
    }

    fn norm(&mut self, name: &str, eps: f64) -> Result<RmsNorm> {
        RmsNorm::from_qtensor(self.raw(name)?, eps)
    }

    fn bias(&mut self, name: &str) -> Result<Option<Tensor>> {
        if self.has(name) {
            Ok(Some(self.raw(name)?.dequantize(self.device)?))
        } else {
            Ok(None)
        }
    }
}

impl Transformer {
    /// Load the weights; `max_seq` bounds the positions the model will see.
    pub(crate) fn load<R: Read + Seek>(
        ct: &Content,
        reader: &mut R,
        hyper: Hyper,
        max_seq: usize,
        requantize: bool,
    ) -> Result<Self> {
        let device = Device::Cpu;
        let mut l = Loader {
            ct,
            reader,
            device: &device,
            requantize,
        };
        let embed_q = l.raw("token_embd.weight")?;
        let embed = embed_q.dequantize(&device)?;
        let output = if l.has("output.weight") {
            l.matmul("output.weight")?
        } else if requantize
            && embed_q.dtype() != GgmlDType::Q8_0
            && embed_q.dtype() != GgmlDType::F32
        {
            QMatMul::from_qtensor(QTensor::quantize(&embed, GgmlDType::Q8_0)?)?
        } else {
            QMatMul::from_qtensor(embed_q)?
        };
        let norm = l.norm("output_norm.weight", hyper.eps)?;
        let mut layers = Vec::with_capacity(hyper.n_layer);
        for i in 0..hyper.n_layer {
            let n = |s: &str| format!("blk.{i}.{s}");
            layers.push(Layer {
                wq: l.matmul(&n("attn_q.weight"))?,
                wk: l.matmul(&n("attn_k.weight"))?,
                wv: l.matmul(&n("attn_v.weight"))?,
                wo: l.matmul(&n("attn_output.weight"))?,
                bq: l.bias(&n("attn_q.bias"))?,
                bk: l.bias(&n("attn_k.bias"))?,
                bv: l.bias(&n("attn_v.bias"))?,
                attn_norm: l.norm(&n("attn_norm.weight"), hyper.eps)?,
                ffn_norm: l.norm(&n("ffn_norm.weight"), hyper.eps)?,
                gate: l.matmul(&n("ffn_gate.weight"))?,
                up: l.matmul(&n("ffn_up.weight"))?,
                down: l.matmul(&n("ffn_down.weight"))?,
            });
        }
        let (cos, sin) = rope_tables(hyper.rope_dim, hyper.rope_base, max_seq, &device)?;
        // llama GGUFs have q/k permuted for interleaved rotary; qwen2 keeps the halves layout.
        let neox = hyper.arch == "qwen2";
        Ok(Self {
            hyper,
            embed,
            layers,
            norm,
            output,
            cos,
            sin,
            neox,
            max_seq,
            device,
        })
    }

    /// The largest number of positions this instance supports.
    pub(crate) fn max_seq(&self) -> usize {
        self.max_seq
    }

    /// An empty cache for `capacity` positions, seeded with the first `keep` positions of `from`.
    pub(crate) fn new_cache(
        &self,
        capacity: usize,
        from: Option<(&KvCache, usize)>,
    ) -> Result<KvCache> {
        let capacity = capacity.min(self.max_seq);
        let shape = (1, self.hyper.n_kv_head, capacity, self.hyper.head_dim);
        let mut k = Vec::with_capacity(self.layers.len());
        let mut v = Vec::with_capacity(self.layers.len());
        let mut len = 0;
        for i in 0..self.layers.len() {
            let kb = Tensor::zeros(shape, DType::F32, &self.device)?;
            let vb = Tensor::zeros(shape, DType::F32, &self.device)?;
            if let Some((src, keep)) = from {
                let keep = keep.min(src.len).min(capacity);
                if keep > 0 {
                    kb.slice_set(&src.k[i].narrow(2, 0, keep)?.contiguous()?, 2, 0)?;
                    vb.slice_set(&src.v[i].narrow(2, 0, keep)?.contiguous()?, 2, 0)?;
                }
                len = keep;
            }
            k.push(kb);
            v.push(vb);
        }
        Ok(KvCache {
            k,
            v,
            len,
            capacity,
        })
    }

    /// Feed `tokens` after the cached positions; returns the logits of the last token.
    pub(crate) fn forward(&self, tokens: &[u32], cache: &mut KvCache) -> Result<Tensor> {
        if tokens.is_empty() {
            candle_core::bail!("forward with no tokens")
        }
        if cache.len + tokens.len() > cache.capacity {
            candle_core::bail!(
                "KV cache overflow: {} + {} > {}",
                cache.len,
                tokens.len(),
                cache.capacity
            )
        }
        let mut logits = None;
        for chunk in tokens.chunks(PREFILL_CHUNK) {
            logits = Some(self.forward_chunk(chunk, cache)?);
        }
        match logits {
            Some(l) => Ok(l),
            None => candle_core::bail!("forward with no tokens"),
        }
    }

    fn forward_chunk(&self, tokens: &[u32], cache: &mut KvCache) -> Result<Tensor> {
        let h = &self.hyper;
        let seq = tokens.len();
        let pos = cache.len;
        let ids = Tensor::new(tokens, &self.device)?;
        let mut x = self.embed.index_select(&ids, 0)?.unsqueeze(0)?; // (1, seq, embd)
        let n_rep = h.n_head / h.n_kv_head;
        let mask = if seq > 1 {
            let m = candle_transformers::utils::build_causal_mask(seq, pos, &self.device)?;
            // Queries are grouped (kv head, rep, seq): repeat the mask for each rep.
            Some(Tensor::cat(&vec![&m; n_rep], 0)?)
        } else {
            None
        };
        let cos = self.cos.narrow(0, pos, seq)?;
        let sin = self.sin.narrow(0, pos, seq)?;
        let scale = 1.0 / (h.head_dim as f64).sqrt();
        for (i, layer) in self.layers.iter().enumerate() {
            let residual = x.clone();
            let xn = layer.attn_norm.forward(&x)?;
            let q = add_bias(layer.wq.forward(&xn)?, layer.bq.as_ref())?;
            let k = add_bias(layer.wk.forward(&xn)?, layer.bk.as_ref())?;
            let v = add_bias(layer.wv.forward(&xn)?, layer.bv.as_ref())?;
            let q = q
                .reshape((1, seq, h.n_head, h.head_dim))?
                .transpose(1, 2)?
                .contiguous()?;
            let k = k
                .reshape((1, seq, h.n_kv_head, h.head_dim))?
                .transpose(1, 2)?
                .contiguous()?;
            let v = v
                .reshape((1, seq, h.n_kv_head, h.head_dim))?
                .transpose(1, 2)?
                .contiguous()?;
            let (q, k) = if self.neox {
                (
                    candle_nn::rotary_emb::rope(&q, &cos, &sin)?,
                    candle_nn::rotary_emb::rope(&k, &cos, &sin)?,
                )
            } else {
                (
                    candle_nn::rotary_emb::rope_i(&q, &cos, &sin)?,
                    candle_nn::rotary_emb::rope_i(&k, &cos, &sin)?,
                )
            };
            cache.k[i].slice_set(&k, 2, pos)?;
            cache.v[i].slice_set(&v, 2, pos)?;
            let keys = cache.k[i].narrow(2, 0, pos + seq)?;
            let values = cache.v[i].narrow(2, 0, pos + seq)?;
            // Grouped-query attention without copying the cache: fold the query heads
            // that share a kv head into the row dimension.
            let qg = q.reshape((1, h.n_kv_head, n_rep * seq, h.head_dim))?;
            let att = (qg.matmul(&keys.t()?)? * scale)?;
            let att = match &mask {
                Some(m) => {
                    let m = m.broadcast_as(att.shape())?;
                    let neg =
                        Tensor::new(f32::NEG_INFINITY, &self.device)?.broadcast_as(att.shape())?;
                    m.where_cond(&neg, &att)?
                }
                None => att,
            };
            let att = candle_nn::ops::softmax_last_dim(&att)?;
            let y = att.matmul(&values)?; // (1, n_kv, n_rep*seq, d)
            let y = y
                .reshape((1, h.n_head, seq, h.head_dim))?
                .transpose(1, 2)?
                .reshape((1, seq, h.n_head * h.head_dim))?;
            let x1 = (layer.wo.forward(&y)? + residual)?;
            let xn = layer.ffn_norm.forward(&x1)?;
            let gate = candle_nn::ops::silu(&layer.gate.forward(&xn)?)?;
            let mlp = layer.down.forward(&(gate * layer.up.forward(&xn)?)?)?;
            x = (mlp + x1)?;
        }
        cache.len = pos + seq;
        let last = x.i((.., seq - 1, ..))?;
        let last = self.norm.forward(&last)?;
        self.output
            .forward(&last)?
            .squeeze(0)?
            .to_dtype(DType::F32)?
            .flatten_all()
    }
}

fn add_bias(x: Tensor, b: Option<&Tensor>) -> Result<Tensor> {
    match b {
        Some(b) => x.broadcast_add(b),
        None => Ok(x),
    }
}

fn rope_tables(dim: usize, base: f32, max_seq: usize, device: &Device) -> Result<(Tensor, Tensor)> {
    let inv: Vec<f32> = (0..dim)
        .step_by(2)
        .map(|i| 1.0 / base.powf(i as f32 / dim as f32))
        .collect();
    let n = inv.len();
    let inv = Tensor::from_vec(inv, (1, n), device)?;
    let t = Tensor::arange(0u32, max_seq as u32, device)?
        .to_dtype(DType::F32)?
        .reshape((max_seq, 1))?;
    let freqs = t.matmul(&inv)?;
    Ok((freqs.cos()?, freqs.sin()?))
}
