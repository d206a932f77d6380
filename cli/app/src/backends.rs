//! Building the models a run uses from a typed [`BackendConfig`]: the library's
//! one way to construct backends (the binary maps its layered settings onto this
//! struct and nothing else).
//!
//! The choice: an HTTP root model (OpenAI-compatible) when one is given, with
//! its own sub-model endpoint when that differs; else the embedded GGUF model
//! (the given file, or the installed default) as the sub-model, and as the root
//! model too when asked; else no model. An HTTP model served by several
//! servers ([`HttpModel::replicas`]) is a [`PoolModel`] over one client per
//! server: each call goes to the least busy healthy one, and a server that
//! fails is skipped for a cool-down while the call goes to another.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rlm_core::embedded::{EmbeddedModel, EmbeddedOptions, installed_default};
use rlm_core::{LanguageModel, OpenAiConfig, OpenAiModel, PoolModel, Sampling, ServerKind};

use crate::ask::Models;

/// One OpenAI-compatible endpoint and model.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpModel {
    /// Base URL (`http://127.0.0.1:8000/v1`).
    pub base_url: String,
    /// Base URLs of further servers of the same model: with any, calls are
    /// spread over all of them ([`PoolModel`]).
    pub replicas: Vec<String>,
    /// Model name the server knows.
    pub model: String,
    /// API key, if the server needs one.
    pub api_key: Option<String>,
    /// Context window in tokens, when known (else the server is asked).
    pub context_window: Option<usize>,
    /// The kind of server, when known (else the server is asked).
    pub server: Option<ServerKind>,
}

/// The embedded in-process model.
#[derive(Debug, Clone, Default)]
pub struct EmbeddedChoice {
    /// The GGUF file; `None` uses the installed default model, if there is one.
    pub path: Option<PathBuf>,
    /// Threads and context window (sampling defaults come from
    /// [`BackendConfig::sampling`]).
    pub options: EmbeddedOptions,
    /// Use it as the root model as well as the sub-model.
    pub as_root: bool,
}

/// Which models to build, typed.
#[derive(Debug, Clone, Default)]
pub struct BackendConfig {
    /// The HTTP root model (and the sub-model unless [`Self::sub_http`] is set).
    pub http: Option<HttpModel>,
    /// A different HTTP sub-model (only with [`Self::http`]).
    pub sub_http: Option<HttpModel>,
    /// The embedded model, used when no HTTP model is given.
    pub embedded: Option<EmbeddedChoice>,
    /// Sampling for every model.
    pub sampling: Sampling,
    /// Per-request timeout of HTTP models (`None`: the client's default).
    pub timeout: Option<Duration>,
}

/// Errors building a backend.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// The HTTP client could not be built.
    #[error("HTTP model {model} at {base_url}: {message}")]
    Http {
        /// The endpoint.
        base_url: String,
        /// The model.
        model: String,
        /// Why.
        message: String,
    },
    /// The embedded model could not be loaded.
    #[error("loading embedded model {}: {message}", path.display())]
    Embedded {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

/// The models built, and what was chosen in words (for logs and `config show`).
#[derive(Clone)]
pub struct Backends {
    /// The root and sub models.
    pub models: Models,
    /// What was chosen, in words.
    pub description: String,
}

impl std::fmt::Debug for Backends {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backends")
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

impl BackendConfig {
    /// Build the models this configuration selects (see the module documentation).
    pub fn build(&self) -> Result<Backends, BackendError> {
        if let Some(root_cfg) = &self.http {
            let root = self.http_model(root_cfg)?;
            let sub = match &self.sub_http {
                Some(s) if s != root_cfg => self.http_model(s)?,
                _ => Arc::clone(&root),
            };
            return Ok(Backends {
                description: format!("HTTP root {}, sub {}", root.id(), sub.id()),
                models: Models {
                    root: Some(root),
                    sub: Some(sub),
                },
            });
        }
        let Some(choice) = &self.embedded else {
            return Ok(no_model());
        };
        let Some(path) = choice.path.clone().or_else(installed_default) else {
            return Ok(no_model());
        };
        let m: Arc<dyn LanguageModel> = Arc::new(
            EmbeddedModel::load(&path, self.embedded_options(&choice.options)).map_err(|e| {
                BackendError::Embedded {
                    path: path.clone(),
                    message: e.to_string(),
                }
            })?,
        );
        let description = if choice.as_root {
            format!("embedded {} as root and sub model", path.display())
        } else {
            format!("embedded {} as sub-model; no root model", path.display())
        };
        Ok(Backends {
            models: Models {
                root: choice.as_root.then(|| Arc::clone(&m)),
                sub: Some(m),
            },
            description,
        })
    }

    /// The model at `h`: one client, or a pool of one client per server.
    fn http_model(&self, h: &HttpModel) -> Result<Arc<dyn LanguageModel>, BackendError> {
        let first = self.http_client(h, &h.base_url)?;
        if h.replicas.is_empty() {
            return Ok(first);
        }
        let mut members = vec![first];
        for url in &h.replicas {
            members.push(self.http_client(h, url)?);
        }
        let pool = PoolModel::new(members).map_err(|e| BackendError::Http {
            base_url: h.base_url.clone(),
            model: h.model.clone(),
            message: e.to_string(),
        })?;
        Ok(Arc::new(pool))
    }

    /// One client of the model at `h`, on the server at `base_url`.
    fn http_client(
        &self,
        h: &HttpModel,
        base_url: &str,
    ) -> Result<Arc<dyn LanguageModel>, BackendError> {
        let mut cfg = OpenAiConfig::new(base_url, &h.model);
        cfg.api_key.clone_from(&h.api_key);
        cfg.sampling = self.sampling.clone();
        cfg.context_window = h.context_window;
        cfg.server = h.server;
        if let Some(t) = self.timeout {
            cfg.timeout = t;
        }
        let m = OpenAiModel::new(cfg).map_err(|e| BackendError::Http {
            base_url: base_url.to_owned(),
            model: h.model.clone(),
            message: e.to_string(),
        })?;
        Ok(Arc::new(m))
    }

    /// The embedded model's options: the given ones, with this configuration's
    /// sampling where it sets a value.
    fn embedded_options(&self, base: &EmbeddedOptions) -> EmbeddedOptions {
        let mut o = base.clone();
        let s = &self.sampling;
        if let Some(t) = s.temperature {
            o.temperature = t;
        }
        if let Some(t) = s.top_p {
            o.top_p = t;
        }
        if let Some(t) = s.top_k {
            o.top_k = t;
        }
        if let Some(t) = s.max_tokens {
            o.max_tokens = t;
        }
        if let Some(t) = s.seed {
            o.seed = t;
        }
        o
    }
}

fn no_model() -> Backends {
    Backends {
        models: Models::default(),
        description: "no model configured".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(base: &str, model: &str) -> HttpModel {
        HttpModel {
            base_url: base.into(),
            replicas: Vec::new(),
            model: model.into(),
            api_key: None,
            context_window: None,
            server: None,
        }
    }

    #[test]
    fn http_root_and_sub_share_a_client_unless_they_differ() {
        let cfg = BackendConfig {
            http: Some(http("http://127.0.0.1:9/v1", "m")),
            sub_http: Some(http("http://127.0.0.1:9/v1", "m")),
            ..Default::default()
        };
        let b = cfg.build().unwrap();
        let (root, sub) = (b.models.root.unwrap(), b.models.sub.unwrap());
        assert!(Arc::ptr_eq(&root, &sub));
        let cfg = BackendConfig {
            sub_http: Some(http("http://127.0.0.1:9/v1", "small")),
            ..cfg
        };
        let b = cfg.build().unwrap();
        assert_eq!(
            b.models.root.unwrap().id(),
            "openai:http://127.0.0.1:9/v1:m"
        );
        assert_eq!(
            b.models.sub.unwrap().id(),
            "openai:http://127.0.0.1:9/v1:small"
        );
        assert_eq!(
            b.description,
            "HTTP root openai:http://127.0.0.1:9/v1:m, sub openai:http://127.0.0.1:9/v1:small"
        );
    }

    #[test]
    fn replicas_make_a_pool_shared_by_root_and_sub() {
        let pooled = HttpModel {
            replicas: vec!["http://127.0.0.1:10/v1".into()],
            ..http("http://127.0.0.1:9/v1", "m")
        };
        let cfg = BackendConfig {
            http: Some(pooled.clone()),
            sub_http: Some(pooled),
            ..Default::default()
        };
        let b = cfg.build().unwrap();
        let (root, sub) = (b.models.root.unwrap(), b.models.sub.unwrap());
        assert!(Arc::ptr_eq(&root, &sub));
        assert_eq!(
            root.id(),
            "pool[openai:http://127.0.0.1:10/v1:m,openai:http://127.0.0.1:9/v1:m]"
        );
    }

    #[test]
    fn nothing_configured_is_no_model_and_a_missing_file_is_an_error() {
        let b = BackendConfig::default().build().unwrap();
        assert!(b.models.root.is_none() && b.models.sub.is_none());
        assert_eq!(b.description, "no model configured");
        let cfg = BackendConfig {
            embedded: Some(EmbeddedChoice {
                path: Some("/nonexistent/model.gguf".into()),
                ..Default::default()
            }),
            ..Default::default()
        };
        let err = cfg.build().unwrap_err();
        assert!(matches!(err, BackendError::Embedded { .. }), "{err}");
    }
}
