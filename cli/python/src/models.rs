//! What a Python caller says about models and runs, mapped onto the
//! library's typed configuration: [`ModelConfig`] is an [`HttpModel`], the
//! keyword arguments of `ask` and `eval` are a [`RunArgs`], which gives a
//! [`BackendConfig`] and an [`AskOptions`]. Names are parsed by the library's
//! own `FromStr`s; bad values raise `ValueError` with its message.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use rlm_core::{Budgets, Profile, Protocol, RlmConfig, Sampling, ServerKind};
use rlmkg::backends::{BackendConfig, EmbeddedChoice, HttpModel};
use rlmkg::{AskOptions, Strategy};

/// An OpenAI-compatible model endpoint (llama.cpp, vLLM, Ollama, OpenAI, …).
#[pyclass(frozen, module = "rlmkg", from_py_object)]
#[derive(Clone)]
pub struct ModelConfig {
    http: HttpModel,
}

#[pymethods]
impl ModelConfig {
    /// `base_url` ends in `/v1`; `model` is the name the server knows;
    /// `server` (`openai`, `vllm`, `llama-cpp`, `llama-cpp-python`,
    /// `ollama`) and `context_window` are asked of the server when not given;
    /// `replicas` are the base URLs of further servers of the same model,
    /// which share the calls.
    #[new]
    #[pyo3(signature = (base_url, model, api_key=None, context_window=None, server=None, replicas=None))]
    fn new(
        base_url: String,
        model: String,
        api_key: Option<String>,
        context_window: Option<usize>,
        server: Option<&str>,
        replicas: Option<Vec<String>>,
    ) -> PyResult<Self> {
        let server = server
            .map(str::parse::<ServerKind>)
            .transpose()
            .map_err(PyValueError::new_err)?;
        Ok(Self {
            http: HttpModel {
                base_url,
                replicas: replicas.unwrap_or_default(),
                model,
                api_key,
                context_window,
                server,
            },
        })
    }

    /// The base URL.
    #[getter]
    fn base_url(&self) -> &str {
        &self.http.base_url
    }

    /// The base URLs of further servers of the same model.
    #[getter]
    fn replicas(&self) -> Vec<String> {
        self.http.replicas.clone()
    }

    /// The model's name on the server.
    #[getter]
    fn model(&self) -> &str {
        &self.http.model
    }

    /// The API key, if one is set.
    #[getter]
    fn api_key(&self) -> Option<&str> {
        self.http.api_key.as_deref()
    }

    /// The context window in tokens, if given.
    #[getter]
    fn context_window(&self) -> Option<usize> {
        self.http.context_window
    }

    /// The kind of server, if given.
    #[getter]
    fn server(&self) -> Option<&'static str> {
        self.http.server.map(ServerKind::name)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let h = &self.http;
        let repr = |s: &str| -> PyResult<String> { Ok(PyString::new(py, s).repr()?.to_string()) };
        Ok(format!(
            "ModelConfig(base_url={}, model={}, api_key={}, context_window={}, server={}, replicas={})",
            repr(&h.base_url)?,
            repr(&h.model)?,
            // The key itself is never shown.
            if h.api_key.is_some() { "'***'" } else { "None" },
            h.context_window
                .map_or_else(|| "None".to_owned(), |w| w.to_string()),
            match h.server {
                Some(s) => repr(s.name())?,
                None => "None".to_owned(),
            },
            PyList::new(py, &h.replicas)?.repr()?,
        ))
    }
}

/// The model and run keyword arguments of `ask` and `eval`, as given.
#[derive(Default)]
pub(crate) struct RunArgs {
    /// `auto`, `rlm` or `heuristic`.
    pub strategy: String,
    /// The HTTP root model (and sub-model unless `sub_model` is given).
    pub model: Option<ModelConfig>,
    /// A different HTTP sub-model.
    pub sub_model: Option<ModelConfig>,
    /// A GGUF file for the embedded model (else the installed default, if any).
    pub model_path: Option<PathBuf>,
    /// Use the embedded model as the root model too.
    pub embedded_root: bool,
    /// One repair turn for failing claims.
    pub strict: bool,
    /// Root turns.
    pub max_iterations: Option<u32>,
    /// Wall time of a run, in seconds.
    pub max_seconds: Option<f64>,
    /// Sub-calls of a run.
    pub max_sub_calls: Option<u64>,
    /// Tokens of a run.
    pub max_total_tokens: Option<u64>,
    /// `rlm_query` nesting.
    pub max_depth: Option<u32>,
    /// Cost of a run (needs prices).
    pub max_cost: Option<f64>,
    /// Sampling temperature of every model.
    pub temperature: Option<f32>,
    /// Tokens a model call may generate.
    pub max_tokens: Option<u32>,
    /// Sampling seed.
    pub seed: Option<u64>,
    /// Per-request timeout of HTTP models, in seconds.
    pub timeout: Option<f64>,
    /// Prompt profile name.
    pub profile: Option<String>,
    /// Root protocol name.
    pub protocol: Option<String>,
    /// The call cache's directory (none: no cache).
    pub cache_dir: Option<PathBuf>,
    /// Where the trajectory goes (none: not written).
    pub trajectory_path: Option<PathBuf>,
}

/// What [`RunArgs`] settle: which models to build, and the options of a run.
pub(crate) struct RunSetup {
    /// The models to build (when the run starts: loading one may take a while).
    pub backends: BackendConfig,
    /// The options of each `ask`.
    pub opts: AskOptions,
}

/// A positive, finite number of seconds as a duration.
fn seconds(what: &str, s: Option<f64>) -> PyResult<Option<Duration>> {
    s.map(|s| {
        Duration::try_from_secs_f64(s)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| PyValueError::new_err(format!("{what} must be a positive number")))
    })
    .transpose()
}

impl RunArgs {
    /// Check the arguments and settle the models and options.
    pub(crate) fn setup(self) -> PyResult<RunSetup> {
        let strategy: Strategy = self.strategy.parse().map_err(PyValueError::new_err)?;
        if self.max_iterations == Some(0) {
            return Err(PyValueError::new_err("max_iterations must be at least 1"));
        }
        if self.max_cost.is_some_and(|c| !(c.is_finite() && c >= 0.0)) {
            return Err(PyValueError::new_err(
                "max_cost must be a finite number >= 0",
            ));
        }
        let d = Budgets::default();
        let budgets = Budgets {
            max_iterations: self.max_iterations.unwrap_or(d.max_iterations),
            max_depth: self.max_depth.unwrap_or(d.max_depth),
            max_sub_calls: self.max_sub_calls.or(d.max_sub_calls),
            max_total_tokens: self.max_total_tokens,
            max_wall_time: seconds("max_seconds", self.max_seconds)?.or(d.max_wall_time),
            max_cost: self.max_cost,
        };
        let sampling = Sampling {
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            seed: self.seed,
            ..Sampling::default()
        };
        let mut rlm = RlmConfig {
            budgets,
            cache_dir: self.cache_dir,
            trace_path: self.trajectory_path,
            root_sampling: sampling.clone(),
            sub_sampling: sampling.clone(),
            ..RlmConfig::default()
        };
        if let Some(p) = &self.profile {
            rlm.profile = Some(p.parse::<Profile>().map_err(PyValueError::new_err)?);
        }
        if let Some(p) = &self.protocol {
            rlm.protocol = p.parse::<Protocol>().map_err(PyValueError::new_err)?;
        }
        if self.sub_model.is_some() && self.model.is_none() {
            return Err(PyValueError::new_err(
                "sub_model needs a root model: pass model=ModelConfig(...) too",
            ));
        }
        let backends = BackendConfig {
            http: self.model.map(|m| m.http),
            sub_http: self.sub_model.map(|m| m.http),
            embedded: Some(EmbeddedChoice {
                path: self.model_path,
                as_root: self.embedded_root,
                ..EmbeddedChoice::default()
            }),
            sampling,
            timeout: seconds("timeout", self.timeout)?,
        };
        Ok(RunSetup {
            backends,
            opts: AskOptions {
                strategy,
                rlm,
                strict: self.strict,
                ..AskOptions::default()
            },
        })
    }
}
