//! How a run ends: its outcome, the reason to answer another way, its errors.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::model::ModelError;
use crate::trajectory::{Totals, TraceError};

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// Executed `FINAL(text)`.
    Final,
    /// Executed `FINAL_VAR(name)`.
    FinalVar,
    /// `answer["ready"] = True`.
    AnswerDict,
    /// The last turn after the budget, or a repair turn answered in prose.
    BestEffort,
    /// A budget (tokens, time, cost) stopped the run without an answer.
    Budget,
    /// The turns ran out and the last turn gave no answer.
    NoAnswer,
    /// The root model failed.
    ModelError,
}

/// Why a run's result must not be shown as the root model's answer, so the
/// caller answers another way (the heuristic strategy, SPEC §5.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum FallbackReason {
    /// No code block ran in the whole run, so nothing the model said was looked up.
    NoCodeExecuted {
        /// Root turns the run took.
        turns: u32,
    },
    /// The root model failed for good (after retries) part-way through the run,
    /// and the run had no answer to show.
    RootModelFailed {
        /// Root turns the run took, the failing one included.
        turns: u32,
        /// The model error.
        error: String,
    },
    /// The root model wrote the same reply again and again, whatever it was
    /// told, so more turns would not have changed it.
    Repeating {
        /// Root turns the run took.
        turns: u32,
        /// Replies in a row that repeated the one before.
        repeats: u32,
    },
    /// The run's answer does not stand: the answer itself (its first claim),
    /// or every claim, is not carried by the text it cites (ids that do not
    /// resolve, unsupported claims, overreach).
    UnsupportedAnswer {
        /// Why, per failing claim.
        why: String,
    },
    /// The turns ran out with no answer that stands: the model gave none, or
    /// the review sent back every one it gave.
    NoAnswer {
        /// Root turns the run took.
        turns: u32,
        /// Answers the review sent back.
        rejected: u32,
    },
}

impl std::fmt::Display for FallbackReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoCodeExecuted { turns } => write!(
                f,
                "the root model ran no code in {turns} turn(s), so its prose is not an answer"
            ),
            Self::RootModelFailed { turns, error } => write!(
                f,
                "the root model failed at turn {turns} ({error}) and the run had no answer yet"
            ),
            Self::Repeating { turns, repeats } => write!(
                f,
                "the root model repeated the same reply {repeats} time(s) in a row (turn {turns}), \
                 whatever it was told"
            ),
            Self::UnsupportedAnswer { why } => {
                write!(f, "the root model's answer does not stand: {why}")
            }
            Self::NoAnswer { turns, rejected } => write!(
                f,
                "the root model gave no answer that stands in {turns} turn(s) \
                 ({rejected} sent back by the review)"
            ),
        }
    }
}

/// The result of a run (or a repair turn).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    /// The accepted answer, if any (never set when `fallback` is).
    pub answer: Option<String>,
    /// Set when the caller should answer another way; the run gave no usable answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<FallbackReason>,
    /// How the run ended.
    pub ending: Ending,
    /// Why it stopped, in words.
    pub stop_reason: String,
    /// Usage totals so far.
    pub usage: Totals,
    /// Chunk / sentence ids passed to `context.read` or returned by searches, first seen first.
    pub read_ids: Vec<String>,
    /// The trajectory file, if one is written.
    pub trajectory: Option<PathBuf>,
    /// Things that went wrong without stopping the run (e.g. the trajectory could
    /// not be written), for the caller to show.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Errors of a run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RlmError {
    /// The root model failed (after retries).
    #[error("root model failed: {0}")]
    Model(#[from] ModelError),
    /// The trajectory could not be written.
    #[error("trajectory: {0}")]
    Trace(#[from] TraceError),
}
