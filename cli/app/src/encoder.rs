//! The sentence encoder (`rlmkg-embed`) as the store's [`Embedder`] (issue 46):
//! the store asks for vectors, this loads the installed encoder on first use
//! (once per process) and makes them.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use rlmkg_embed::Encoder;
use rlmkg_ingest::Embedder;

/// The encoder in a model folder, loaded on the first call that needs it.
pub struct EncoderEmbedder {
    dir: PathBuf,
    loaded: OnceLock<Result<Encoder, String>>,
}

impl std::fmt::Debug for EncoderEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EncoderEmbedder")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl EncoderEmbedder {
    /// The encoder in `dir` (loaded on first use).
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            loaded: OnceLock::new(),
        }
    }

    /// The encoder, loaded now if it was not yet.
    pub fn encoder(&self) -> Result<&Encoder, String> {
        self.loaded
            .get_or_init(|| Encoder::load(&self.dir).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl Embedder for EncoderEmbedder {
    fn identity(&self) -> String {
        self.dir
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        self.encoder()?.encode(texts).map_err(|e| e.to_string())
    }
}

/// The installed sentence encoder (`rlmkg model pull encoder`), if any, as
/// an [`Embedder`]; nothing is loaded until it is first used.
pub fn installed_embedder() -> Option<Arc<dyn Embedder>> {
    let dir = rlm_core::embedded::installed_encoder()?;
    Some(Arc::new(EncoderEmbedder::new(dir)))
}

/// The embedder an ingest that names none keeps the store's vectors with:
/// the installed encoder when the store keeps vectors (`settings.embedder`),
/// else none.
pub fn store_embedder(settings: &rlmkg_ingest::Settings) -> Option<Arc<dyn Embedder>> {
    settings
        .embedder
        .as_ref()
        .and_then(|_| installed_embedder())
}
