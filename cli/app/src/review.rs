//! The review of a root model's answer before the run accepts it
//! ([`rlm_core::ContextHandle::review`], issue 28): an answer that cites ids
//! the run never read, whose claims are none of them carried by what they
//! cite, or that answers a question about the whole collection from part of
//! it goes back to the model with the reason.

use std::collections::HashSet;
use std::sync::Arc;

use rlmkg_citation::{CheckOptions, ReasonKind, Verdict};
use rlmkg_heuristic::Question;
use rlmkg_heuristic::short::{self, AnswerType, ShortAnswer};
use rlmkg_ingest::Store;

use crate::AnswerVerdict;
use crate::spans::StoreSpans;

mod bridge;
mod count;
mod link;
mod reads;
mod verbatim;

pub(crate) use count::map_key;

/// Share of the documents a question about the whole collection must have
/// been read from (the `min_coverage` guard of the background documents).
pub const MIN_COVERAGE: f64 = 0.8;

/// Most sentences [`recite`] tries (it tries pairs of them: the cap bounds
/// the work).
pub const MAX_RECITE_SENTENCES: usize = 24;

/// Re-cite an answer from what the run read: a cited claim that its own
/// citation does not carry but a sentence the run's calls showed does gets
/// that sentence added to its citations (the heuristic's evidence repair, over
/// the run's reads instead of its evidence; uncited claims stay uncited).
/// `None` when nothing changed.
fn recite(
    store: &Store,
    spans: &StoreSpans,
    check: &CheckOptions,
    answer: &str,
    read: &[String],
) -> Option<(String, rlmkg_heuristic::CiteRepair)> {
    let mut evidence: Vec<rlmkg_heuristic::Evidence> = Vec::new();
    let mut seen = HashSet::new();
    // Sentences read one by one first (what the model looked at most
    // closely), then the sentences of chunks a call showed whole.
    let sentences = read.iter().filter(|id| id.contains('.'));
    let chunks = read.iter().filter(|id| !id.contains('.'));
    for id in sentences.chain(chunks) {
        if evidence.len() >= MAX_RECITE_SENTENCES {
            break;
        }
        let Ok(p) = store.read(id) else { continue };
        for s in p.sentences {
            if evidence.len() >= MAX_RECITE_SENTENCES {
                break;
            }
            if seen.insert(s.id.clone()) {
                evidence.push(rlmkg_heuristic::Evidence {
                    id: s.id,
                    chunk: p.chunk.to_string(),
                    title: p.doc.title.clone(),
                    path: p.doc.path.clone(),
                    text: s.text,
                    score: 0.0,
                    about: None,
                });
            }
        }
    }
    let (text, repair) =
        rlmkg_heuristic::complete_citations(answer, &evidence, spans, check).ok()?;
    (repair.cited + repair.repaired > 0).then_some((text, repair))
}

/// Most words of a first claim that [`cite_short_answer`] treats as a short
/// answer (the length [`crate::ask`] shows as one).
pub const SHORT_ANSWER_WORDS: usize = 8;

/// Give a short answer the citation of the answer's own sentence that says
/// it: when the first factual claim is short (the answer alone, "The Kestrel
/// Institute") and not carried by what it cites (uncited, a broken id), try the
/// citations of each supported claim after it; the first that carries it is
/// written after it. Text in brackets that is not a citation is dropped from
/// it. The checker still decides: a short answer no sentence of the answer
/// carries stays as it was. `None` when nothing changed.
fn cite_short_answer(
    spans: &StoreSpans,
    check: &CheckOptions,
    question: &Question,
    answer: &str,
    report: &rlmkg_citation::Report,
) -> Option<String> {
    let mut factual = report
        .claims
        .iter()
        .filter(|c| c.verdict != Verdict::Exempt);
    let first = factual.next()?;
    if answer_carried(first, question) {
        return None;
    }
    let core = without_brackets(&first.text);
    let core = core.trim().trim_end_matches(['.', '!', ';', ',']).trim();
    if core.is_empty() || core.split_whitespace().count() > SHORT_ANSWER_WORDS {
        return None;
    }
    let (start, end) = first.span;
    let (before, after) = (answer.get(..start)?, answer.get(end..)?);
    for later in factual.filter(|c| c.verdict == Verdict::Supported).take(4) {
        let ids: Vec<String> = later
            .citations
            .iter()
            .filter_map(|c| c.id.as_ref().map(|id| format!("[{id}]")))
            .collect();
        if ids.is_empty() {
            continue;
        }
        let candidate = format!("{before}{core} {}.{after}", ids.join(" "));
        let Ok(r) = rlmkg_citation::check(&candidate, spans, check) else {
            continue;
        };
        let carried = r
            .claims
            .iter()
            .find(|c| c.verdict != Verdict::Exempt)
            .is_some_and(|c| answer_carried(c, question));
        if carried {
            return Some(candidate);
        }
    }
    None
}

/// `text` without bracketed tokens (`[d4]`, `[1]`): what a model writes where
/// a citation goes but the checker does not read as one.
fn without_brackets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let tail = &rest[open..];
        match tail.find(']') {
            Some(close) if close <= 32 && !tail[..close].contains(char::is_whitespace) => {
                rest = &tail[close + 1..];
            }
            _ => {
                out.push('[');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An answer after what can be mended from the answer itself, with the
/// checker's report on it ([`mend`]).
pub(crate) struct Mended {
    /// The answer text, mended.
    pub(crate) text: String,
    /// The checker's report on `text`.
    pub(crate) report: rlmkg_citation::Report,
    /// Uncited claims that copy a sentence the run read, given its id
    /// ([`verbatim::cite_verbatim`]).
    pub(crate) verbatim: usize,
    /// Cited claims re-cited from the run's reads ([`recite`]).
    pub(crate) recited: usize,
    /// Whether the short answer took its own sentence's citation
    /// ([`cite_short_answer`]).
    pub(crate) short_cited: bool,
    /// What a count answer was counted from, when its number was checked
    /// against the documents it cites ([`count::count_cited`]).
    pub(crate) counted: Option<String>,
    /// The ids of read sentences written after the answer to carry the
    /// question's year to it ([`bridge::bridge_year`]).
    pub(crate) bridged: Vec<String>,
    /// The ids of read sentences written after the answer to link its
    /// relation to the question's next one ([`link::link`]).
    pub(crate) linked: Vec<String>,
}

impl Mended {
    /// The ids of the read sentences the mends wrote after the answer (the
    /// year's chain and the next step's link): not the model's, so its short
    /// answer is not read from them.
    pub(crate) fn appended(&self) -> Vec<String> {
        self.bridged.iter().chain(&self.linked).cloned().collect()
    }
}

/// Check `answer` and mend what the answer itself can mend: an uncited claim
/// that copies a sentence the run read is given that sentence's id, an answer
/// not all supported is re-cited from the sentences the run read (`read`), then
/// a short answer not carried by its citation is given the citation of the
/// answer's own sentence that says it, and a question's year its answer's
/// citations lack is carried to it by the chain of read sentences that links
/// them ([`bridge`]). One pipeline for the review (judging
/// the answer as the caller will) and for `ask` (which shows it).
pub(crate) fn mend(
    store: &Store,
    spans: &StoreSpans,
    check: &CheckOptions,
    question: &Question,
    answer: &str,
    read: &[String],
) -> Result<Mended, rlmkg_citation::SourceError> {
    let mut text = answer.to_owned();
    let mut report = rlmkg_citation::check(&text, spans, check)?;
    // The run's reads, read from the store once for the mends that need them.
    let reads = reads::Reads::new(store, read);
    let mut verbatim = 0;
    if let Some((cited, n)) = verbatim::cite_verbatim(&text, &report, &reads) {
        text = cited;
        verbatim = n;
        report = rlmkg_citation::check(&text, spans, check)?;
    }
    let mut recited = 0;
    if !report.all_supported()
        && let Some((fixed, repair)) = recite(store, spans, check, &text, read)
    {
        text = fixed;
        recited = repair.repaired;
        report = rlmkg_citation::check(&text, spans, check)?;
    }
    let mut short_cited = false;
    if let Some(cited) = cite_short_answer(spans, check, question, &text, &report) {
        text = cited;
        short_cited = true;
        report = rlmkg_citation::check(&text, spans, check)?;
    }
    let mut bridged = Vec::new();
    if let Some((with_chain, ids)) = bridge::bridge_year(store, question, &text, &report, &reads) {
        text = with_chain;
        bridged = ids;
        report = rlmkg_citation::check(&text, spans, check)?;
    }
    let mut linked = Vec::new();
    if let link::Link::Linked(add) = link::link(store, question, &report, &reads)
        && !add.is_empty()
    {
        let mut with_link = text.trim_end().to_owned();
        for s in &add {
            with_link.push(' ');
            with_link.push_str(&bridge::cited_sentence(&s.text, &s.id));
        }
        text = with_link;
        linked = add.iter().map(|s| s.id.clone()).collect();
        report = rlmkg_citation::check(&text, spans, check)?;
    }
    let counted = count::count_cited(store, question, &mut report);
    Ok(Mended {
        text,
        report,
        verbatim,
        recited,
        short_cited,
        counted,
        bridged,
        linked,
    })
}

/// Why a checked answer does not stand as the RLM's.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Unfit {
    /// Its first claim is not carried by what it cites, or no claim is
    /// ([`not_carried`]'s reason).
    NotCarried(String),
    /// The question asks for a person, place, organization, date or number,
    /// and no verified claim names one.
    NotOfType(AnswerType),
    /// The question names the relation its answer stands in ("… *born*",
    /// "Who *founded* …", see [`rlmkg_heuristic::Question::answer_relation`]) and no
    /// sentence a verified claim cites expresses it: the answer is another
    /// hop's (the founding year for a birth year, the author for a founder).
    OtherRelation(String),
    /// The question is bounded by a year ("… join in 2019") and no sentence
    /// the answer's verified claims cite holds any of its years.
    MissingYear(String),
    /// The answer cites a sentence for the question's answer relation
    /// ("founded"), or holding its answer, that shares no name with any
    /// sentence the run read saying another relation of the question
    /// ("publisher"): it answers about another chain ([`link::link`]).
    Unlinked {
        /// The answer relation, or the short answer.
        answering: String,
        /// The relations that could have linked it.
        next: Vec<String>,
    },
    /// The question asks for a thing that is no time ("Which *category* …")
    /// and the short answer is a date alone ("January 20, 2024").
    DateForThing {
        /// The noun the question asks for ("category").
        asked: String,
        /// The short answer.
        date: String,
    },
    /// The question asks for a kind of place (`asked`: "city") and the
    /// short answer is a place of another kind (`found`: "Skarvik Fjord",
    /// a fjord; [`rlmkg_text::place_kind_clash`]).
    OtherPlace {
        /// The noun the question asks for ("city").
        asked: String,
        /// The short answer.
        name: String,
        /// The kind the short answer's name says ("fjord").
        found: String,
    },
}

impl std::fmt::Display for Unfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotCarried(why) => f.write_str(why),
            Self::NotOfType(kind) => write!(
                f,
                "its verified claims name no {} (what the question asks for)",
                kind.describe()
                    .trim_start_matches("a ")
                    .trim_start_matches("an ")
            ),
            Self::MissingYear(years) => write!(
                f,
                "the question is about {years}, and no sentence its verified claims cite says it"
            ),
            Self::OtherRelation(word) => write!(
                f,
                "the question asks what is \"{word}\", and no sentence its verified claims \
                 cite says \"{word}\" (it answers another step of the question)"
            ),
            Self::Unlinked { answering, next } => write!(
                f,
                "the sentence it cites for \"{answering}\" shares no name with any sentence \
                 the run read that says \"{}\" (it answers about another chain)",
                next.join("\" or \"")
            ),
            Self::OtherPlace { asked, name, found } => write!(
                f,
                "the question asks for a {asked}, and its answer {name} is a {found}, not a {asked}"
            ),
            Self::DateForThing { asked, date } => write!(
                f,
                "the question asks for a {asked}, and its answer \"{date}\" is a date, not a {asked}"
            ),
        }
    }
}

/// Whether a checked answer stands as the RLM's: its short answer (`None`
/// when it makes no claim, or its verified claims hold none for an untyped
/// question), or why not. One rule for the review and for `ask`.
pub(crate) fn standing(
    store: &Store,
    question: &Question,
    report: &rlmkg_citation::Report,
    read: &[String],
    appended: &[String],
) -> Result<Option<ShortAnswer>, Unfit> {
    if let Some(why) = not_carried(report, question) {
        return Err(Unfit::NotCarried(why));
    }
    let short = short_answer(store, question, report, appended);
    let kind = question.answer_type();
    if short.is_none() && !report.claims.is_empty() && typed(kind) {
        return Err(Unfit::NotOfType(kind.clone()));
    }
    if let Some(name) = &short
        && let Some(asked) = question.asked_noun()
        && let Some(found) = rlmkg_text::place_kind_clash(asked, &name.text)
    {
        return Err(Unfit::OtherPlace {
            asked: asked.to_owned(),
            name: name.text.clone(),
            found,
        });
    }
    if let Some(name) = &short
        && *kind == AnswerType::Name
        && short::is_date_only(&name.text)
        && let Some(asked) = question.which_noun()
    {
        return Err(Unfit::DateForThing {
            asked: asked.to_owned(),
            date: name.text.clone(),
        });
    }
    if short.is_some()
        && let Some(word) = question.answer_relation()
        && !relation_cited(report, word)
    {
        return Err(Unfit::OtherRelation(word.to_owned()));
    }
    if short.is_some()
        && let link::Link::Unlinked { answering, next } =
            link::link(store, question, report, &reads::Reads::new(store, read))
    {
        return Err(Unfit::Unlinked { answering, next });
    }
    let years = question.years();
    if short.is_some() && !years.is_empty() && !cites_any(report, years) {
        return Err(Unfit::MissingYear(years.join(" or ")));
    }
    Ok(short)
}

/// Judge `answer` to `question`, given the ids the run's calls showed.
pub(crate) fn review(
    store: &Arc<Store>,
    check: &CheckOptions,
    question: &Question,
    answer: &str,
    read: &[String],
) -> Result<(), String> {
    if answer.trim().is_empty() {
        return Ok(());
    }
    let read_chunks: HashSet<String> = read.iter().map(|id| chunk_of(id).to_string()).collect();
    if question.whole_collection() {
        coverage(store, &read_chunks)?;
    }
    let spans = StoreSpans::new(Arc::clone(store));
    // Judged as the caller will judge it: mended first.
    let Ok(mended) = mend(store, &spans, check, question, answer, read) else {
        return Ok(());
    };
    let (report, appended) = (&mended.report, mended.appended());
    let mut unread: Vec<&str> = Vec::new();
    for c in report.claims.iter().flat_map(|c| &c.citations) {
        let id = c.id.as_deref().unwrap_or(&c.raw);
        if !read_chunks.contains(chunk_of(id)) && !unread.contains(&id) {
            unread.push(id);
        }
    }
    if !unread.is_empty() {
        return Err(format!(
            "it cites {} that none of your calls showed; read what you cite (context.read(id)) \
             and cite only ids you have read",
            unread
                .iter()
                .take(5)
                .copied()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    match standing(store, question, report, read, &appended) {
        Ok(short) => check_sent_back(store, question, short.as_ref(), report),
        Err(Unfit::NotCarried(why)) => Err(format!(
            "{why}; write what the cited sentences say, the answer first, each claim with \
                 the [id] of the sentence that says it"
        )),
        Err(Unfit::OtherRelation(word)) => {
            let next =
                rlmkg_heuristic::unasked_names(store.as_ref(), question, &cited_output(report));
            let search = match next.first() {
                Some(name) => format!(" (e.g. context.search(\"{name} {word}\"))"),
                None => String::new(),
            };
            Err(format!(
                "the question asks what is \"{word}\", and none of the sentences your answer \
                 cites says \"{word}\": they answer another step of the question. Search for \
                 the sentence that says \"{word}\" about what you found{search}, read it, and \
                 answer from it"
            ))
        }
        Err(Unfit::MissingYear(years)) => Err(format!(
            "the question is about {years}, and none of the sentences your answer cites \
                 says {years}: find the sentence that does (search with the year and the names \
                 of the question), and answer from it"
        )),
        Err(Unfit::Unlinked { answering, next }) => {
            let named = question.name_words();
            let first = next.first().map(String::as_str).unwrap_or_default();
            let search = if named.is_empty() {
                String::new()
            } else {
                format!(" (e.g. context.search(\"{named} {first}\"))")
            };
            Err(format!(
                "the sentence your answer cites for \"{answering}\" names no one that a \
                 sentence you read saying \"{}\" names: it answers about another chain. \
                 Find the sentence that says \"{first}\" about what the question \
                 names{search}, read it, then search for the sentence that answers about \
                 the name it gives, and answer from it",
                next.join("\" or \"")
            ))
        }
        Err(Unfit::OtherPlace { asked, name, found }) => {
            let next =
                rlmkg_heuristic::unasked_names(store.as_ref(), question, &cited_output(report));
            let search = match next.iter().find(|n| **n != name) {
                Some(other) => format!(" (e.g. context.search(\"{other} {asked}\"))"),
                None => String::new(),
            };
            Err(format!(
                "the question asks for a {asked}, and {name} is a {found}, not a {asked}. \
                 Search for the sentence that names the {asked}{search}, read it, and answer \
                 from it"
            ))
        }
        Err(Unfit::DateForThing { asked, date }) => {
            let how = if question.whole_collection() {
                format!(
                    "Read the {asked} from every document ({}) and answer from the tally",
                    rlm_core::map_and_tally(&format!("the {asked}"))
                )
            } else {
                format!("Find the sentence that names the {asked}, read it, and answer from it")
            };
            Err(format!(
                "the question asks for a {asked}, and \"{date}\" is a date, not a {asked}. {how}"
            ))
        }
        Err(Unfit::NotOfType(kind)) => Err(format!(
            "the question asks for {}, and no claim of your answer that its citation \
                 carries names one; find the sentence that does, and begin the answer with it",
            kind.describe()
        )),
    }
}

/// The answer check as a send-back (issue 44): an answer whose cited facts
/// do not lead from the question's names to its short answer goes back to
/// the root with the check's reason and what to cite; `Ok` when it answers.
fn check_sent_back(
    store: &Store,
    question: &Question,
    short: Option<&ShortAnswer>,
    report: &rlmkg_citation::Report,
) -> Result<(), String> {
    let Ok(check) =
        crate::answer_check::check_answer(store, question, short.map(|s| s.text.as_str()), report)
    else {
        return Ok(());
    };
    match check.verdict {
        AnswerVerdict::Answers => Ok(()),
        AnswerVerdict::AboutAnother => Err(format!(
            "{} The sentence you cite gives the value for someone or something else than \
             the question asks about. Find the sentence that says it of the question's own \
             subject (context.facts(name) lists what each sentence states, with its id), \
             read it, and answer from it",
            check.describe()
        )),
        AnswerVerdict::NotShown => Err(format!(
            "{} Cite, for every step from what the question names to your answer, the \
             sentence that states it (context.facts(name) lists what each sentence states, \
             with its id); if no sentence you can find states a step, say that the answer is \
             not shown",
            check.describe()
        )),
    }
}

/// Why an answer does not stand: its first factual claim — the answer
/// itself, which the prompts ask for first — is not carried by what it cites
/// (partly carried counts, unless what is missing is a name, number or date), or no claim is supported at all. `None` when it
/// stands, or when it makes no claim to check (not found).
fn not_carried(report: &rlmkg_citation::Report, question: &Question) -> Option<String> {
    let factual: Vec<_> = report
        .claims
        .iter()
        .filter(|c| c.verdict != Verdict::Exempt)
        .collect();
    let first = factual.first()?;
    let describe = |c: &rlmkg_citation::ClaimReport| {
        let reasons: Vec<String> = c.reasons.iter().map(|r| r.to_string()).collect();
        if reasons.is_empty() {
            format!("\"{}\" is {}", c.text, c.verdict.as_str())
        } else {
            format!(
                "\"{}\" is {} ({})",
                c.text,
                c.verdict.as_str(),
                reasons.join("; ")
            )
        }
    };
    if !answer_carried(first, question) {
        return Some(format!(
            "its answer is not carried by the sentence it cites: {}",
            describe(first)
        ));
    }
    if !factual.iter().any(|c| c.verdict == Verdict::Supported) {
        let why: Vec<String> = factual.iter().take(2).map(|c| describe(c)).collect();
        return Some(format!(
            "none of its claims is carried by the sentence it cites: {}",
            why.join("; ")
        ));
    }
    None
}

/// Whether a sentence that a supported claim of `report` cites expresses
/// the answer relation `word`.
fn relation_cited(report: &rlmkg_citation::Report, word: &str) -> bool {
    supported_evidence(report).any(|e| rlmkg_heuristic::expresses_relation(word, &e.text))
}

/// The sentences the supported claims of `report` cite, claim by claim.
fn supported_evidence(
    report: &rlmkg_citation::Report,
) -> impl Iterator<Item = &rlmkg_citation::Evidence> {
    report
        .claims
        .iter()
        .filter(|c| c.verdict == Verdict::Supported)
        .flat_map(|c| &c.evidence)
}

/// Whether a sentence that a supported claim of `report` cites holds one of
/// `years`.
fn cites_any(report: &rlmkg_citation::Report, years: &[String]) -> bool {
    supported_evidence(report).any(|e| holds_any_year(&e.text, years))
}

/// Whether `text` names one of `years` (as a whole number, not inside a
/// longer one).
pub(crate) fn holds_any_year(text: &str, years: &[String]) -> bool {
    text.split(|c: char| !c.is_ascii_digit())
        .any(|w| years.iter().any(|y| y == w))
}

/// Whether a question of this type is answered by a name, place, date or
/// number (its answer can be read and typed), not by yes/no or free text.
fn typed(kind: &AnswerType) -> bool {
    matches!(
        kind,
        AnswerType::Person
            | AnswerType::Place
            | AnswerType::Organization
            | AnswerType::Date
            | AnswerType::Number
    )
}

/// What a short first claim (`text`, its words without closing punctuation)
/// answers a question asking for `kind` with, when it is of that type: for a
/// person, place or organization the name it says ([`typed_name`]: "The
/// city of Tromsø has 77,000 inhabitants" is answered by Tromsø); for a date
/// or number the claim, when it holds a digit; for any other type the claim.
/// `None` when it is not of the asked type.
fn typed_answer(
    store: &Store,
    question: &Question,
    kind: &AnswerType,
    claim: &rlmkg_citation::ClaimReport,
    text: &str,
) -> Option<String> {
    match kind {
        AnswerType::Date | AnswerType::Number => {
            short::holds_value(kind, &claim.text).then(|| text.to_owned())
        }
        AnswerType::Person | AnswerType::Place | AnswerType::Organization => {
            typed_name(store, question, kind, claim)
        }
        _ => Some(text.to_owned()),
    }
}

/// The first name (or alias; the longest starting there, one written with
/// the entity's own capitals first) of an entity of a kind fitting `kind`
/// that `claim` says, that its cited chunks hold, that a sentence it cites
/// writes (a name only the chunk's heading or another sentence writes is
/// what the cited sentence is about, such as the question's own bridge,
/// not what it says) and that the question does not (the question's own
/// names are not its answer), as the entity spells it: the answer a claim
/// of a person, place or organization names.
fn typed_name(
    store: &Store,
    question: &Question,
    kind: &AnswerType,
    claim: &rlmkg_citation::ClaimReport,
) -> Option<String> {
    let kinds = short::kinds_for(kind);
    let text = claim.text.to_lowercase();
    let asked = question.lower();
    let cited = cited_text(claim);
    claim
        .citations
        .iter()
        .filter_map(|c| c.id.as_deref())
        .filter_map(|id| chunk_of(id).parse::<rlmkg_ids::ChunkId>().ok())
        .filter_map(|c| store.entities_of_chunk(c).ok())
        .flatten()
        .filter(|e| kinds.contains(&e.kind.as_str()))
        .flat_map(|e| std::iter::once(e.name.clone()).chain(e.aliases.clone()))
        .filter_map(|n| {
            let lower = n.to_lowercase();
            let at = text.find(&lower)?;
            let written = claim.text.contains(n.as_str());
            (lower.chars().count() > 1 && !asked.contains(&lower) && cited.contains(&lower))
                .then_some((!written, at, n))
        })
        // A name the claim writes as the entity spells it ("Tromsø", not the
        // "research" of a heading taken for a name), the first it says; of
        // those starting there, the longest.
        .min_by_key(|(unwritten, at, n)| (*unwritten, *at, std::cmp::Reverse(n.chars().count())))
        .map(|(_, _, n)| n)
}

/// The short answer of an RLM answer: its first claim, when it is short,
/// supported and of the asked type (the prompts ask for the short answer
/// first) — for a person, place or organization the name it says —;
/// otherwise what the heuristic's reader picks from the sentences the
/// answer's supported claims cite, in the answer's order. Either way it
/// is read from verified text; `None` when the verified claims hold none.
fn short_answer(
    store: &Store,
    question: &Question,
    report: &rlmkg_citation::Report,
    appended: &[String],
) -> Option<ShortAnswer> {
    let kind = question.answer_type();
    let first = report
        .claims
        .iter()
        .find(|c| c.verdict != Verdict::Exempt)?;
    let text = first.text.trim().trim_end_matches(['.', '!']).trim();
    let short = !text.is_empty()
        && text.split_whitespace().count() <= SHORT_ANSWER_WORDS
        && first.verdict == Verdict::Supported;
    if let Some(answer) = short
        .then(|| typed_answer(store, question, kind, first, text))
        .flatten()
    {
        return Some(ShortAnswer {
            text: answer,
            kind: kind.clone(),
            citation: first
                .citations
                .iter()
                .find_map(|c| c.id.clone())
                .unwrap_or_default(),
        });
    }
    let mut seen = HashSet::new();
    let evidence: Vec<rlmkg_heuristic::Evidence> = supported_evidence(report)
        .filter(|e| !appended.contains(&e.id) && seen.insert(e.id.clone()))
        .map(|e| rlmkg_heuristic::Evidence {
            id: e.id.clone(),
            chunk: chunk_of(&e.id).to_owned(),
            title: String::new(),
            path: e.path.clone(),
            text: e.text.clone(),
            score: 0.0,
            about: None,
        })
        .collect();
    if evidence.is_empty() {
        return None;
    }
    let x = rlmkg_heuristic::Exploration {
        question: question.text().to_owned(),
        question_entities: Vec::new(),
        bridges: Vec::new(),
        chunks: Vec::new(),
        evidence,
    };
    rlmkg_heuristic::short_answer(store, question, &x).1
}

/// Whether the answer's own claim is carried by what it cites: supported,
/// or partly — a paraphrase, not a name, number or date the cited text lacks
/// (that would be the answer itself unsupported) — and saying no word of the
/// question that its cited sentences lack.
fn answer_carried(claim: &rlmkg_citation::ClaimReport, question: &Question) -> bool {
    let overreach = claim.reasons.iter().any(|r| {
        matches!(
            r.kind,
            ReasonKind::Entity
                | ReasonKind::Number
                | ReasonKind::Date
                | ReasonKind::Substitution
                | ReasonKind::EntityOrder
                | ReasonKind::Negation
        )
    });
    !overreach
        && matches!(claim.verdict, Verdict::Supported | Verdict::Partial)
        && !asserts_uncited_question_words(claim, question)
}

/// Whether the checker found `claim` saying a word of the question (its
/// relation: "founded", "publisher") that the sentences it cites lack
/// (compared by match keys): such a claim restates the question without its
/// sources carrying it.
fn asserts_uncited_question_words(
    claim: &rlmkg_citation::ClaimReport,
    question: &Question,
) -> bool {
    let asked: HashSet<&str> = question.content_keys().iter().map(String::as_str).collect();
    claim
        .reasons
        .iter()
        .flat_map(|r| r.missing_words())
        .any(|w| asked.contains(rlmkg_text::match_key(&w.to_lowercase()).as_str()))
}

/// The sentences a report's claims cite, as a handle output shows them
/// (`[c12.s3] text` lines), for [`rlmkg_heuristic::unasked_names`].
fn cited_output(report: &rlmkg_citation::Report) -> String {
    report
        .claims
        .iter()
        .flat_map(|c| &c.evidence)
        .map(|e| format!("[{}] {}\n", e.id, e.text))
        .collect()
}

/// The chunk part of a citation id (`c12.s3` → `c12`).
/// The lowercased text of the sentences `claim` cites, as its evidence
/// holds them: each cited sentence, and every sentence of a chunk cited whole.
fn cited_text(claim: &rlmkg_citation::ClaimReport) -> String {
    let ids: Vec<&str> = claim
        .citations
        .iter()
        .filter_map(|c| c.id.as_deref())
        .collect();
    let mut text = String::new();
    for e in &claim.evidence {
        if ids
            .iter()
            .any(|id| *id == e.id || (*id == chunk_of(&e.id) && !id.contains('.')))
        {
            text.push_str(&e.text.to_lowercase());
            text.push('\n');
        }
    }
    text
}

fn chunk_of(id: &str) -> &str {
    let id = id.trim();
    id.split_once('.').map_or(id, |(c, _)| c)
}

/// Err when the chunks read cover less than [`MIN_COVERAGE`] of the documents.
fn coverage(store: &Store, read_chunks: &HashSet<String>) -> Result<(), String> {
    let Ok(docs) = store.docs() else {
        return Ok(());
    };
    if docs.is_empty() {
        return Ok(());
    }
    let mut covered = 0usize;
    for d in &docs {
        let Ok(chunks) = store.chunk_ids_of_doc(&d.id) else {
            continue;
        };
        if chunks.iter().any(|c| read_chunks.contains(&c.to_string())) {
            covered += 1;
        }
    }
    let share = covered as f64 / docs.len() as f64;
    if share < MIN_COVERAGE {
        return Err(format!(
            "the question is about the whole collection, but your calls read {covered} of its {} \
             documents ({:.0} %, at least {:.0} % needed); use context.map(instruction, \
             over=\"docs\") to read every document, then count in code",
            docs.len(),
            share * 100.0,
            MIN_COVERAGE * 100.0
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_that_are_not_citations_are_dropped() {
        assert_eq!(
            without_brackets("The Kestrel Institute [d4]."),
            "The Kestrel Institute ."
        );
        assert_eq!(without_brackets("a [b c] d"), "a [b c] d");
        assert_eq!(without_brackets("open [ only"), "open [ only");
        assert_eq!(without_brackets("é[x]ü"), "éü");
    }

    #[test]
    fn chunk_of_reads_sentence_ids() {
        assert_eq!(chunk_of("c12.s3"), "c12");
        assert_eq!(chunk_of("c12"), "c12");
        assert_eq!(chunk_of(" c4.s2-s5 "), "c4");
    }
}
