//! An embedded sentence encoder on the CPU: a BERT model (candle) with its
//! `tokenizers` tokenizer, turning texts into unit-length vectors whose dot
//! product is their cosine similarity (issue 46).
//!
//! A model directory holds the files of a sentence-transformers BERT encoder
//! (all-MiniLM-L6-v2 is the one `rlmkg model pull encoder` installs):
//! `config.json`, `tokenizer.json`, `model.safetensors` and, optionally,
//! `sentence_bert_config.json` (its `max_seq_length` is where texts are cut).
//! [`Encoder::encode`] tokenizes, runs the model in batches of texts of similar
//! length on all cores (rayon), mean-pools the token vectors under the attention
//! mask and L2-normalises the result. Nothing is downloaded here.

mod pool;

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use rayon::prelude::*;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

/// The model's configuration (BERT's `config.json`).
pub const CONFIG_FILE: &str = "config.json";
/// The tokenizer, in the `tokenizers` JSON format.
pub const TOKENIZER_FILE: &str = "tokenizer.json";
/// The weights, in safetensors format.
pub const WEIGHTS_FILE: &str = "model.safetensors";
/// The sentence-transformers settings: `max_seq_length`, the tokens a text is cut to.
/// Optional: without it a text is cut at the model's position limit.
pub const SENTENCE_CONFIG_FILE: &str = "sentence_bert_config.json";
/// The files a model directory must hold.
pub const REQUIRED_FILES: [&str; 3] = [CONFIG_FILE, TOKENIZER_FILE, WEIGHTS_FILE];

/// Texts run through the model together. Texts are sorted by length first, so a
/// batch pads little. Not tuned yet: `rlmkg bench embed` is the measure.
const BATCH_SIZE: usize = 16;

/// Errors of loading an encoder or encoding texts.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// The model directory, or a file it must hold, does not exist.
    #[error(
        "no sentence encoder in {dir}: {} not found (`rlmkg model pull encoder` installs one)",
        missing.display()
    )]
    NotFound {
        /// The model directory.
        dir: PathBuf,
        /// What is missing (the directory itself or one of its files).
        missing: PathBuf,
    },
    /// A file of the model could not be read or makes no sense.
    #[error("{path}: {message}")]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The tokenizer failed on the input.
    #[error("tokenizing failed: {0}")]
    Tokenize(String),
    /// The model failed (a shape or a tensor operation).
    #[error("the encoder failed: {0}")]
    Model(#[from] candle_core::Error),
}

/// A loaded sentence encoder. Cheap to share across threads (`&Encoder` is `Sync`).
pub struct Encoder {
    model: BertModel,
    tokenizer: Tokenizer,
    dim: usize,
    max_tokens: usize,
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder")
            .field("dim", &self.dim)
            .field("max_tokens", &self.max_tokens)
            .finish_non_exhaustive()
    }
}

#[derive(serde::Deserialize)]
struct SentenceConfig {
    max_seq_length: Option<usize>,
}

impl Encoder {
    /// Load the encoder in `dir` (see the crate's documentation for the files).
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let not_found = |missing: PathBuf| EmbedError::NotFound {
            dir: dir.to_path_buf(),
            missing,
        };
        if !dir.is_dir() {
            return Err(not_found(dir.to_path_buf()));
        }
        for file in REQUIRED_FILES {
            let path = dir.join(file);
            if !path.is_file() {
                return Err(not_found(path));
            }
        }
        let config: Config = read_json(&dir.join(CONFIG_FILE))?;
        let sentence = dir.join(SENTENCE_CONFIG_FILE);
        let max_seq = if sentence.is_file() {
            read_json::<SentenceConfig>(&sentence)?.max_seq_length
        } else {
            None
        };
        let max_tokens = max_seq
            .unwrap_or(config.max_position_embeddings)
            .min(config.max_position_embeddings);
        let tokenizer = load_tokenizer(&dir.join(TOKENIZER_FILE), max_tokens)?;

        let weights_path = dir.join(WEIGHTS_FILE);
        let bad_weights = |e: candle_core::Error| EmbedError::BadFile {
            path: weights_path.clone(),
            message: e.to_string(),
        };
        let device = Device::Cpu;
        let tensors =
            candle_core::safetensors::load(&weights_path, &device).map_err(bad_weights)?;
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
        let model = BertModel::load(vb, &config).map_err(bad_weights)?;
        Ok(Self {
            model,
            tokenizer,
            dim: config.hidden_size,
            max_tokens,
        })
    }

    /// The length of every vector [`Encoder::encode`] returns.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The tokens a text is cut to (special tokens included); the rest is not read.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// One unit-length vector of [`Encoder::dim`] numbers per text, in the
    /// order given. Texts longer than [`Encoder::max_tokens`] tokens are cut.
    /// Batches of texts of similar length run in parallel on all cores.
    pub fn encode(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        // Similar lengths side by side: a batch pads to its longest text.
        let mut order: Vec<(usize, &str)> = texts.iter().copied().enumerate().collect();
        order.sort_by_key(|(_, t)| t.len());
        let batches = order
            .par_chunks(BATCH_SIZE)
            .map(|chunk| {
                let batch: Vec<&str> = chunk.iter().map(|(_, t)| *t).collect();
                self.encode_batch(&batch)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut out = vec![Vec::new(); texts.len()];
        for ((i, _), vector) in order.iter().zip(batches.into_iter().flatten()) {
            if let Some(slot) = out.get_mut(*i) {
                *slot = vector;
            }
        }
        Ok(out)
    }

    /// Encode texts as one padded batch.
    fn encode_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Tokenize(e.to_string()))?;
        let rows = encodings.len();
        let width = encodings.first().map_or(0, |e| e.get_ids().len());
        let mut ids = Vec::with_capacity(rows * width);
        let mut mask = Vec::with_capacity(rows * width);
        for e in &encodings {
            ids.extend_from_slice(e.get_ids());
            mask.extend_from_slice(e.get_attention_mask());
        }
        let device = &self.model.device;
        let ids = Tensor::from_vec(ids, (rows, width), device)?;
        let mask = Tensor::from_vec(mask, (rows, width), device)?;
        let types = ids.zeros_like()?;
        let hidden = self.model.forward(&ids, &types, Some(&mask))?;
        Ok(pool::mean_pool_normalised(&hidden, &mask)?.to_vec2::<f32>()?)
    }
}

/// The tokenizer of `path`, cutting at `max_tokens` and padding a batch to its longest text.
fn load_tokenizer(path: &Path, max_tokens: usize) -> Result<Tokenizer, EmbedError> {
    let bad = |message: String| EmbedError::BadFile {
        path: path.to_path_buf(),
        message,
    };
    let mut tokenizer = Tokenizer::from_file(path).map_err(|e| bad(e.to_string()))?;
    let padding = PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        ..tokenizer.get_padding().cloned().unwrap_or_default()
    };
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: max_tokens,
            ..TruncationParams::default()
        }))
        .map_err(|e| bad(e.to_string()))?;
    tokenizer.with_padding(Some(padding));
    Ok(tokenizer)
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, EmbedError> {
    let bad = |message: String| EmbedError::BadFile {
        path: path.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_directory_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("nope");
        let err = Encoder::load(&dir).unwrap_err();
        assert!(
            matches!(&err, EmbedError::NotFound { missing, .. } if *missing == dir),
            "{err:?}"
        );
        let text = err.to_string();
        assert!(
            text.contains("nope") && text.contains("model pull encoder"),
            "{text}"
        );
    }

    #[test]
    fn a_missing_file_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join(CONFIG_FILE), "{}").unwrap();
        let err = Encoder::load(tmp.path()).unwrap_err();
        assert!(
            matches!(&err, EmbedError::NotFound { missing, .. }
                if *missing == tmp.path().join(TOKENIZER_FILE)),
            "{err:?}"
        );
    }

    #[test]
    fn a_bad_config_names_its_file() {
        let tmp = tempfile::tempdir().unwrap();
        for file in REQUIRED_FILES {
            std::fs::write(tmp.path().join(file), "not json").unwrap();
        }
        let err = Encoder::load(tmp.path()).unwrap_err();
        assert!(
            matches!(&err, EmbedError::BadFile { path, .. } if *path == tmp.path().join(CONFIG_FILE)),
            "{err:?}"
        );
    }
}
