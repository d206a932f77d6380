//! rlmkg: answer questions over large document collections with a recursive
//! language model walking a knowledge graph, and verify every sentence of the
//! answer against the source text it cites.

pub mod cli;
mod cmd;
mod eval;
pub mod model_args;
