//! Trajectories: the JSONL record of one run (SPEC §5.3.6).
//!
//! # Format
//!
//! One JSON object per line, each with a `"type"` tag:
//!
//! 1. `{"type":"header", …}` — [`TraceHeader`]: format version, run id, start time,
//!    question, profile, root and sub model ids, budgets, the system prompt and the
//!    metadata message (so the exact conversation can be rebuilt), and the sub-call
//!    fan-out chosen (`concurrency`: limit and source).
//! 2. `{"type":"iteration", …}` — [`TraceIteration`], one per root-model turn: the
//!    reply (reasoning kept apart), every executed code block with its output,
//!    error and limit, every sub-call ([`SubCallRecord`]: kind, model, prompt and
//!    response hashes, tokens, latency, cache hit, retries, error, the server
//!    that answered when the sub-model is a pool, and for `rlm_query` the
//!    child's own iterations), events ([`TraceEvent`]: retries,
//!    model errors, guard rejections, budget notes) and the user message the loop
//!    sent back (`feedback`).
//! 3. `{"type":"final", …}` — [`TraceFinal`]: answer, how the run ended, the
//!    verification the caller attached, usage totals and the ids the run read.
//!
//! Readers should ignore unknown fields; [`TRACE_VERSION`] changes on incompatible edits.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::Usage;
use crate::repl::LimitHit;

/// Version of the trajectory format.
pub const TRACE_VERSION: u32 = 1;

/// One line of a trajectory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TraceLine {
    /// The first line.
    Header(TraceHeader),
    /// One root-model turn.
    Iteration(TraceIteration),
    /// The last line.
    Final(TraceFinal),
}

/// The first line of a trajectory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceHeader {
    /// [`TRACE_VERSION`].
    pub version: u32,
    /// A unique id of the run.
    pub run_id: String,
    /// Start time, seconds since the Unix epoch.
    pub started_at: u64,
    /// The question.
    pub question: String,
    /// The prompt profile (`kg`, `paper`, `dict`, or `custom`).
    pub profile: String,
    /// Root model id.
    pub root_model: String,
    /// Sub-call model id.
    pub sub_model: String,
    /// Budgets in force.
    pub budgets: serde_json::Value,
    /// The system prompt sent.
    pub system_prompt: String,
    /// The metadata message sent.
    pub metadata_message: String,
    /// The sub-call fan-out chosen for the run and where it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<crate::fanout::Concurrency>,
}

/// One executed code block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceBlock {
    /// The code.
    pub code: String,
    /// Output shown to the model (already cut).
    pub output: String,
    /// Characters cut from the output.
    #[serde(default)]
    pub cut_chars: usize,
    /// The Python error, if the block raised.
    #[serde(default)]
    pub error: Option<String>,
    /// The limit that stopped the block, if any.
    #[serde(default)]
    pub limit: Option<LimitHit>,
    /// Wall time in milliseconds (including host calls).
    pub elapsed_ms: u64,
}

/// One sub-call made from the REPL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubCallRecord {
    /// `llm_query`, `llm_query_batched`, `rlm_query`, or `rlm_query_plain` (at max depth).
    pub kind: String,
    /// Model id.
    pub model: String,
    /// Short hash of the prompt.
    pub prompt_hash: String,
    /// Characters in the prompt.
    pub prompt_chars: usize,
    /// Short hash of the response (empty on error).
    #[serde(default)]
    pub response_hash: String,
    /// Token usage.
    #[serde(default)]
    pub usage: Usage,
    /// Latency in milliseconds.
    pub latency_ms: u64,
    /// Answered from the cache.
    #[serde(default)]
    pub cached: bool,
    /// Retries before the final attempt.
    #[serde(default)]
    pub retries: u32,
    /// The error returned to the code, if the call failed.
    #[serde(default)]
    pub error: Option<String>,
    /// The server that answered, when the sub-model is a pool of servers
    /// (`--sub-base-url` given more than once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// For `rlm_query`: the child run's iterations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub child: Vec<TraceIteration>,
}

/// Something notable in an iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceEvent {
    /// `retry`, `model_error`, `guard`, `budget`, `no_code`, `truncated_reply`, `cache_hit`, …
    pub kind: String,
    /// Details in words.
    pub message: String,
}

/// One root-model turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceIteration {
    /// 1-based turn number.
    pub iteration: u32,
    /// Recursion depth (0 for the root run).
    #[serde(default)]
    pub depth: u32,
    /// The reply with reasoning removed.
    pub reply: String,
    /// The reasoning block, if the model produced one.
    #[serde(default)]
    pub reasoning: Option<String>,
    /// Executed blocks in order.
    #[serde(default)]
    pub blocks: Vec<TraceBlock>,
    /// Sub-calls made by those blocks.
    #[serde(default)]
    pub sub_calls: Vec<SubCallRecord>,
    /// Root-call token usage.
    #[serde(default)]
    pub usage: Usage,
    /// Root-call latency in milliseconds.
    #[serde(default)]
    pub latency_ms: u64,
    /// Root call answered from the cache.
    #[serde(default)]
    pub cached: bool,
    /// The server that answered the root call, when the root model is a pool
    /// of servers (`--base-url` given more than once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Events.
    #[serde(default)]
    pub events: Vec<TraceEvent>,
    /// The user message sent back after this turn (empty when the run ended).
    #[serde(default)]
    pub feedback: String,
}

/// Usage totals of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Model calls (root and sub, including cache hits).
    pub calls: u64,
    /// Calls answered from the cache.
    pub cached_calls: u64,
    /// Sub-calls made from the REPL.
    pub sub_calls: u64,
    /// Prompt tokens (not counting cache hits).
    pub prompt_tokens: u64,
    /// Completion tokens (not counting cache hits).
    pub completion_tokens: u64,
    /// Cost in the configured currency unit.
    pub cost: f64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Root iterations.
    pub iterations: u32,
    /// Calls of the handle's functions (`context.search`, `context.map`, …)
    /// from the root's code or tool calls.
    #[serde(default)]
    pub handle_calls: u64,
}

impl Totals {
    /// Prompt plus completion tokens.
    pub fn tokens(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }
}

/// The last line of a trajectory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceFinal {
    /// The answer, if any.
    pub answer: Option<String>,
    /// How the run ended.
    pub ending: crate::rlm::Ending,
    /// Why, in words.
    pub stop_reason: String,
    /// Whatever the caller attached (citation verdicts).
    #[serde(default)]
    pub verification: serde_json::Value,
    /// Usage totals.
    pub totals: Totals,
    /// Chunk / sentence ids the run read or was shown.
    #[serde(default)]
    pub read_ids: Vec<String>,
}

/// A parsed trajectory.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trajectory {
    /// The header, if present.
    pub header: Option<TraceHeader>,
    /// Iterations in order.
    pub iterations: Vec<TraceIteration>,
    /// The final line, if the run finished.
    pub final_line: Option<TraceFinal>,
}

/// Errors reading a trajectory.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not a trajectory line.
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        message: String,
    },
}

impl Trajectory {
    /// Read a trajectory file.
    pub fn read(path: &Path) -> Result<Self, TraceError> {
        let io = |source| TraceError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let mut t = Trajectory::default();
        for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.map_err(io)?;
            if line.trim().is_empty() {
                continue;
            }
            let parsed: TraceLine = serde_json::from_str(&line).map_err(|e| TraceError::Parse {
                path: path.to_path_buf(),
                line: i + 1,
                message: e.to_string(),
            })?;
            match parsed {
                TraceLine::Header(h) => t.header = Some(h),
                TraceLine::Iteration(it) => t.iterations.push(it),
                TraceLine::Final(f) => t.final_line = Some(f),
            }
        }
        Ok(t)
    }
}

/// Appends lines to a trajectory file, flushing each.
#[derive(Debug)]
pub(crate) struct TraceWriter {
    path: PathBuf,
    file: std::fs::File,
}

impl TraceWriter {
    pub(crate) fn create(path: &Path) -> Result<Self, TraceError> {
        let io = |source| TraceError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let file = std::fs::File::create(path).map_err(io)?;
        Ok(Self {
            path: path.to_path_buf(),
            file,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn write(&mut self, line: &TraceLine) -> Result<(), TraceError> {
        let io = |source| TraceError::Io {
            path: self.path.clone(),
            source,
        };
        let mut s = serde_json::to_string(line).map_err(|e| io(std::io::Error::other(e)))?;
        s.push('\n');
        self.file.write_all(s.as_bytes()).map_err(io)?;
        self.file.flush().map_err(io)
    }
}
