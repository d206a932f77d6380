//! `rlmkg ingest`: files and directories into the store, with a progress bar on
//! a terminal and a summary (`--json` for machine output).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use rlmkg_ingest::{FactReader, IngestOptions, Store, TokenCounter};

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg ingest`.
#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Files and directories to ingest (directories recursively, honouring `.gitignore`).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Exclude paths matching this glob (gitignore syntax; repeatable).
    #[arg(long)]
    pub exclude: Vec<String>,
    /// Keep files that vanished from an ingested directory (default: delete them).
    #[arg(long)]
    pub no_prune: bool,
    /// Target chunk size in tokens [default: the store's setting, 200 for a new store].
    #[arg(long, visible_alias = "target-tokens")]
    pub chunk_tokens: Option<usize>,
    /// Overlap between consecutive chunks, in sentences [default: the store's setting, 1].
    #[arg(long)]
    pub overlap: Option<usize>,
    /// Count tokens with this tokenizer: a tokenizer.json, a .gguf model with a
    /// tokenizer.json beside it, or a Hugging Face repo id found in the local cache
    /// (never downloaded); `approx` for bytes / 4 [default: the store's setting,
    /// bytes / 4 for a new store]. Changing it re-chunks the store's files.
    #[arg(long, value_name = "FILE|GGUF|ORG/NAME|approx")]
    pub tokenizer: Option<String>,
    /// JSONL / JSON field holding the document text.
    #[arg(long, default_value = "text")]
    pub text_field: String,
    /// JSONL / JSON field holding the document title.
    #[arg(long, default_value = "title")]
    pub title_field: String,
    /// Worker threads (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    pub threads: usize,
    /// Skip files larger than this many bytes (each skip is warned and counted).
    #[arg(long, value_name = "BYTES", default_value_t = rlmkg_ingest::DEFAULT_MAX_FILE_BYTES)]
    pub max_file_size: u64,
    /// Input bytes per commit batch (bounds memory; smaller batches commit more often).
    #[arg(long, default_value_t = rlmkg_ingest::DEFAULT_BATCH_BYTES, hide = true)]
    pub batch_bytes: u64,
    /// Write a vector per chunk with the installed sentence encoder (`rlmkg
    /// model pull encoder`), for search by meaning [default: the store's
    /// setting, off for a new store].
    #[arg(long, conflicts_with = "no_embed")]
    pub embed: bool,
    /// Write no vectors (a store that keeps them drops them).
    #[arg(long)]
    pub no_embed: bool,
    /// Who reads facts: the rules alone, or a language model besides them
    /// (`llm`: the configured model — `--base-url` and `--model`, the
    /// settings files and `RLMKG_*`, else the embedded model). The model only
    /// adds facts its sentence holds; what it read is cached by content
    /// [default: the store's setting, the rules for a new store].
    #[arg(
        long,
        value_enum,
        value_name = "rules|llm",
        hide_possible_values = true
    )]
    pub extract: Option<Extract>,
    /// With `--extract llm`: US dollars per million prompt and completion
    /// tokens, for the cost shown before and after [default: 0,0, a local
    /// model].
    #[arg(long, value_name = "IN,OUT", value_parser = parse_price)]
    pub extract_price: Option<(f64, f64)>,
    /// With `--extract llm`: passages read at once (0: the slots a llama.cpp
    /// server says it has, else one; raise it for a server that serves
    /// several requests at once, such as vLLM or a hosted API).
    #[arg(long, default_value_t = 0)]
    pub extract_concurrency: usize,
    /// With `--extract llm`: an OpenAI-compatible server's base URL (as for
    /// `ask`).
    #[arg(long, value_name = "URL")]
    pub base_url: Vec<String>,
    /// With `--extract llm`: the model the server knows.
    #[arg(long)]
    pub model: Option<String>,
    /// With `--extract llm`: a GGUF file for the embedded model.
    #[arg(long, value_name = "FILE")]
    pub model_path: Option<PathBuf>,
}

/// Who reads facts at ingest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Extract {
    /// The rules alone.
    Rules,
    /// A language model besides the rules.
    Llm,
}

/// `IN,OUT` as two non-negative prices.
fn parse_price(s: &str) -> Result<(f64, f64), String> {
    let bad =
        || format!("expected IN,OUT US dollars per million tokens (e.g. 0.15,0.60), got {s:?}");
    let (a, b) = s.split_once(',').ok_or_else(bad)?;
    let p = |x: &str| {
        x.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    Ok((p(a).ok_or_else(bad)?, p(b).ok_or_else(bad)?))
}

/// The fact reader an ingest uses: a model with `--extract llm` (or when
/// the store was read by one and no `--extract` is given), else none.
fn fact_reader_for(
    args: &IngestArgs,
    recorded: &rlmkg_ingest::Settings,
    global: &GlobalArgs,
) -> anyhow::Result<Option<std::sync::Arc<dyn rlmkg_ingest::FactReader>>> {
    let wants = match args.extract {
        Some(e) => e == Extract::Llm,
        None => recorded.fact_reader.is_some(),
    };
    if !wants {
        return Ok(None);
    }
    let model_args = rlmkg_settings::ModelArgs {
        base_url: (!args.base_url.is_empty()).then(|| args.base_url.clone()),
        model: args.model.clone(),
        model_path: args.model_path.clone(),
        ..Default::default()
    };
    let settings = crate::cmd::settings(&model_args, &global.store)?;
    let backends = rlmkg_settings::build_backends(&settings)?;
    let Some(model) = backends.models.sub else {
        if args.extract.is_none() {
            // No model at hand: what the store's model read comes from the
            // cache, and the store keeps its setting.
            return Ok(rlmkg_ingest::CachedFactReader::of(recorded));
        }
        anyhow::bail!(
            "--extract llm needs a model: give --base-url and --model (an OpenAI-compatible \
             server), --model-path FILE.gguf, or install one with `rlmkg model pull`"
        );
    };
    let reader = rlmkg::fact_reader::ModelFactReader::new(model, args.extract_concurrency)
        .map_err(|e| anyhow::anyhow!("starting the fact reader: {e}"))?;
    if args.extract.is_none()
        && let Some(recorded) = &recorded.fact_reader
        && *recorded != reader.identity()
    {
        anyhow::bail!(
            "the store's facts were read by {recorded}, and the model configured now is {}: pass \
             --extract llm to read every file again with it, or --extract rules to keep the \
             rules' facts alone",
            reader.identity()
        );
    }
    Ok(Some(std::sync::Arc::new(reader)))
}

/// The embedder an ingest writes vectors with: the installed encoder with
/// `--embed`, none with `--no-embed`, else the store's setting.
fn embedder_for(
    args: &IngestArgs,
    recorded: &rlmkg_ingest::Settings,
) -> anyhow::Result<Option<std::sync::Arc<dyn rlmkg::Embedder>>> {
    let wants = args.embed || (!args.no_embed && recorded.embedder.is_some());
    if !wants {
        return Ok(None);
    }
    match rlmkg::installed_embedder() {
        Some(e) => Ok(Some(e)),
        None if args.embed => anyhow::bail!(
            "--embed needs the sentence encoder, which is not installed: run `rlmkg model pull encoder`"
        ),
        None => anyhow::bail!(
            "the store keeps vectors made by {}, which is not installed: run `rlmkg model pull \
             encoder`, or pass --no-embed to drop the vectors",
            recorded.embedder.as_deref().unwrap_or_default()
        ),
    }
}

/// Open the store for reading ([`rlmkg::open_store_read`]), saying what to do
/// when there is none.
pub(crate) fn open_read(global: &GlobalArgs) -> anyhow::Result<Store> {
    let dir = &global.store;
    match rlmkg::open_store_read(dir) {
        Err(rlmkg::StoreError::NotFound(_)) => anyhow::bail!(
            "no store at {}: run `rlmkg ingest PATH…` first, or pass --store DIR",
            dir.display()
        ),
        r => anyhow::Context::with_context(r, || format!("opening the store at {}", dir.display())),
    }
}

/// Run `rlmkg ingest`.
pub fn run(args: IngestArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    // This process never runs the REPL: its allocations need not be counted.
    rlm_core::stop_counting();
    let mut stdout = crate::out::stdout();
    // A bad --tokenizer fails before a store is created.
    let explicit = args
        .tokenizer
        .as_deref()
        .map(TokenCounter::resolve)
        .transpose()?;
    let mut store = Store::create_or_open(&global.store)?;
    // Flags not given keep the store's recorded chunking settings.
    let recorded = store.manifest().settings.clone();
    let tokens = match explicit {
        Some(t) => t,
        None => TokenCounter::for_settings(&recorded)?,
    };
    let embedder = embedder_for(&args, &recorded)?;
    store.set_embedder(embedder.clone());
    let fact_reader = fact_reader_for(&args, &recorded, global)?;
    let price = args.extract_price.unwrap_or((0.0, 0.0));
    let opts = IngestOptions {
        exclude: args.exclude,
        prune: !args.no_prune,
        target_tokens: args.chunk_tokens.unwrap_or(recorded.target_tokens),
        overlap_sentences: args.overlap.unwrap_or(recorded.overlap_sentences),
        text_field: args.text_field,
        title_field: args.title_field,
        threads: args.threads,
        batch_bytes: args.batch_bytes,
        tokens,
        max_file_bytes: args.max_file_size,
        embedder,
        fact_reader,
    };
    let progress = crate::out::IngestProgress::new(global.quiet, global.quiet || global.json)
        .with_price(price);
    let s = store.ingest(&args.paths, &opts, &progress)?;
    if global.json {
        let report = crate::json::Ingest::new(&s, rlmkg::usage::peak_rss_mb());
        writeln!(stdout, "{}", serde_json::to_string_pretty(&report)?)?;
    } else if !global.quiet {
        writeln!(
            stdout,
            "{} files: {} ingested, {} unchanged, {} skipped, {} removed; {} documents, {} chunks written; \
             the store holds {} entities, {} facts, {} co-occurrences, {} mentions; {:.2} s, {:.1} MB/s",
            s.files,
            s.ingested,
            s.unchanged,
            s.skipped,
            s.removed,
            s.docs,
            s.chunks,
            s.entities,
            s.facts,
            s.relations.saturating_sub(s.facts),
            s.mentions,
            s.seconds,
            s.mb_per_s
        )?;
        if let Some(m) = &s.model_facts {
            writeln!(stdout, "{}", crate::out::model_facts_line(m, price))?;
        }
        if s.tokenizer != rlmkg_ingest::APPROX_IDENTITY {
            writeln!(stdout, "tokens counted by {}", s.tokenizer)?;
        }
        if global.verbose > 0 {
            let st = &s.stages;
            eprintln!(
                "stages: walk {:.2} s, prepare {:.2} s (overlaps the writing), index {:.2} s, \
                 graph records {:.2} s, commit {:.2} s, view snapshot {:.2} s, vectors {:.2} s",
                st.walk, st.prepare, st.index, st.graph, st.commit, st.view, st.embed
            );
        }
        if s.warnings > 0 {
            eprintln!("{} warnings", s.warnings);
        }
        if let Some(off) = store.dense_off() {
            eprintln!("note: {off}");
        }
    }
    Ok(0)
}
