//! Claim segmentation and citation verification for rlmkg (SPEC §7).
//!
//! An answer cites source sentences inline (`[c12]`, `[c12.s3]`, `[c12.s2-s4]`,
//! `[c12.s3, c40.s1]`). [`check`] splits the answer into claims, resolves each
//! citation through a [`SpanSource`], aligns the claim with the best window of cited
//! sentences and gives it a [`Verdict`] — `supported`, `partial`, `overreach`,
//! `unsupported`, `uncited` or `broken` — with a score, the best-matching source
//! sentences and the reasons. No model is needed; an optional [`Judge`] can revisit
//! claims left `partial`. The crate knows nothing of the store: the CLI implements
//! [`SpanSource`] over it, and [`MemorySource`] serves everything else.
//!
//! The definitions of the totals (claim support rate, citation precision and
//! recall, ALCE-style) are in the docs of [`Totals`]; the alignment and the verdict
//! rules in the docs of [`check()`] and [`CheckOptions`].
//!
//! Agreement with human labels is measured on WiCE ([`wice`]):
//! `cargo run --release -p rlmkg-citation --example wice -- ../shared/data/wice_dev.jsonl`
//! prints the confusion matrix and macro-F1 (0.714 on the 349 dev claims with the
//! default options; 0.708 on the first half, on which `partial_anchor` and
//! `idf_floor` were chosen, 0.719 on the second; `--halves` prints both; the
//! rules were developed against the whole set, so these are in-sample figures).
//! `rlmkg eval wice_dev.jsonl` gives the same figure, and with `--judge` the
//! figure after the configured model reviewed the clauses left `partial`.
//!
//! ```
//! use rlmkg_citation::{check, render_text, CheckOptions, MemorySource, Verdict};
//!
//! let mut source = MemorySource::new();
//! source.insert(12, "notes/acme.md", vec![
//!     "Acme was founded in 1998 by Jane Doe.".to_string(),
//!     "Some analysts think its rockets may reach Mars.".to_string(),
//! ]);
//! let answer = "Jane Doe founded Acme in 1998 [c12.s1]. Its rockets will reach Mars [c12.s2].";
//! let report = check(answer, &source, &CheckOptions::default()).unwrap();
//! assert_eq!(report.claims[0].verdict, Verdict::Supported);
//! assert_eq!(report.claims[1].verdict, Verdict::Overreach);
//! assert!(render_text(&report).contains("[1] notes/acme.md:1-1 (c12.s1)"));
//! ```
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod check;
mod id;
mod judge;
mod refer;
mod render;
mod segment;
mod source;
mod text;
pub mod wice;

pub use check::{
    CheckOptions, CitationCheck, ClaimReport, Evidence, Footnote, JudgeNote, MISSING_WORDS, Reason,
    ReasonKind, Report, Totals, Verdict, check,
};
pub use id::{ChunkId, CitationId, CitationRef, ParseIdError, SentenceRange, parse_id};
pub use judge::{Judge, JudgeAnswer, JudgeError, JudgeRequest, JudgeVerdict, parse_reply};
pub use render::{mark, render_answer, render_text, to_json};
pub use source::{
    MemoryChunk, MemorySource, Referents, Source, SourceError, SourceSentence, SpanSource,
    referents_in,
};
