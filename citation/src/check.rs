//! The checker (SPEC §7.2): resolve each claim's citations, align the claim with
//! the best window of cited sentences, and give it a verdict with a score and the
//! reasons behind it. The rules are documented on [`check`] and [`Totals`].

use std::collections::{BTreeMap, HashSet};

use rlmkg_text::is_name_joiner;
use serde::{Deserialize, Serialize};

use crate::id::CitationId;
use crate::refer::{Named, referent};
use crate::segment::{Claim, claims};
use crate::source::{Referents, Source, SourceError, SpanSource};
use crate::text::{Analysis, DateFact, Kind, analyse, normalize_for_quote};

mod quantity;
mod roles;

/// The verdict on one claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The cited text carries the claim's content.
    Supported,
    /// Some content words are found, none contradicted.
    Partial,
    /// The claim asserts specifics the cited text does not carry.
    Overreach,
    /// The cited text does not carry the claim.
    Unsupported,
    /// A factual claim with no citation.
    Uncited,
    /// A citation id that does not resolve.
    Broken,
    /// A connective sentence without factual content (not checked, not counted).
    Exempt,
}

impl Verdict {
    /// The verdict's name as in the JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Supported => "supported",
            Self::Partial => "partial",
            Self::Overreach => "overreach",
            Self::Unsupported => "unsupported",
            Self::Uncited => "uncited",
            Self::Broken => "broken",
            Self::Exempt => "exempt",
        }
    }
}

/// What kind of problem a [`Reason`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonKind {
    /// Content words the cited text does not carry.
    MissingWords,
    /// A named entity the cited text does not carry.
    Entity,
    /// A number the cited text does not carry.
    Number,
    /// A date the cited text does not carry.
    Date,
    /// The claim negates what the source affirms, or the reverse.
    Negation,
    /// A stronger quantifier than the source's.
    Quantifier,
    /// Certainty where the source hedges.
    Certainty,
    /// A causal link the source does not state.
    Causal,
    /// A quotation not found verbatim.
    Quote,
    /// Two entities in swapped roles.
    EntityOrder,
    /// A name or place where the cited text has a different one in the same role
    /// (or says the role of someone else, or the claim's relative clause of
    /// something else).
    Substitution,
    /// A change in the direction opposite to the cited text's ("fell" for "rose").
    Direction,
    /// A number in another unit than the cited text's ("48 feet" for "48 metres").
    Unit,
    /// Names the cited text carries, related by a role it does not say ("the
    /// publisher of" where it says "a book by").
    Relation,
    /// A citation id that does not resolve.
    BrokenId,
    /// A factual claim without a citation.
    NoCitation,
    /// The model judge's opinion.
    Judge,
}

/// How a [`ReasonKind::MissingWords`] reason's detail begins; the words
/// follow, joined by ", " ([`Reason::missing_words`] reads them back).
pub const MISSING_WORDS: &str = "not in the cited text: ";

/// Why a claim got its verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    /// The kind of problem.
    pub kind: ReasonKind,
    /// A human-readable detail, naming the words, numbers or ids concerned.
    pub detail: String,
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

impl Reason {
    /// The words a [`ReasonKind::MissingWords`] reason names (as the claim
    /// spells them); empty for any other reason.
    pub fn missing_words(&self) -> Vec<&str> {
        if self.kind != ReasonKind::MissingWords {
            return Vec::new();
        }
        self.detail
            .strip_prefix(MISSING_WORDS)
            .map(|l| l.split(", ").filter(|w| !w.is_empty()).collect())
            .unwrap_or_default()
    }

    fn new(kind: ReasonKind, detail: impl Into<String>) -> Self {
        Self {
            kind,
            detail: detail.into(),
        }
    }

    /// Whether this reason makes a claim `overreach` (rather than merely `partial`).
    fn is_specific(&self) -> bool {
        !matches!(
            self.kind,
            ReasonKind::MissingWords
                | ReasonKind::Entity
                | ReasonKind::Judge
                | ReasonKind::Relation
        )
    }
}

/// Settings of the checker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CheckOptions {
    /// Score at or above which a claim with no problem is `supported`.
    pub support_threshold: f64,
    /// Score below which a claim is `unsupported`.
    pub partial_threshold: f64,
    /// Most cited sentences combined to carry one claim.
    pub max_window: usize,
    /// Weight of what the k-th sentence of the window adds, as a power `weight^(k-1)`:
    /// words gathered from many sentences count less than words found together.
    pub extra_sentence_weight: f64,
    /// Share of the claim one cited sentence must carry on its own before a changed
    /// specific (number, date, negation, quantifier, certainty, causal link, quote,
    /// roles) counts as `overreach`: the claim then paraphrases that sentence and
    /// alters it. Below it, the specifics only keep the claim from `supported`.
    pub overreach_alignment: f64,
    /// Term weight (a content word weighs 1, a name, number or date 1.5) that one
    /// cited sentence carrying part of a long claim makes the claim `partial` even
    /// when its score is below [`CheckOptions::partial_threshold`]: that part is
    /// supported.
    pub partial_anchor: f64,
    /// Share of the claim's term weight the best sentences must carry, each term
    /// weighed by inverse sentence frequency over the cited text (see
    /// [`check()`]), below which a claim is `unsupported` whatever its score: a
    /// long cited page that only shares its own subject's words with the claim
    /// does not support it.
    pub idf_floor: f64,
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            support_threshold: 0.65,
            partial_threshold: 0.45,
            max_window: 4,
            extra_sentence_weight: 0.7,
            overreach_alignment: 0.85,
            partial_anchor: 4.0,
            idf_floor: 0.2,
        }
    }
}

/// One citation of a claim, checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CitationCheck {
    /// The id as written.
    pub raw: String,
    /// The canonical id, when it parses.
    pub id: Option<String>,
    /// Whether the id resolved to source text.
    pub resolved: bool,
    /// Whether the citation is precise (ALCE-style, see [`Totals`]).
    pub precise: bool,
    /// Footnote number in the rendered answer (1-based), when resolved.
    pub footnote: Option<usize>,
}

/// A source sentence the claim was aligned with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// Sentence id (`c12.s3`).
    pub id: String,
    /// Sentence text.
    pub text: String,
    /// Document path.
    pub path: String,
    /// First line.
    pub line_start: u32,
    /// Last line.
    pub line_end: u32,
    /// Page, for PDF.
    pub page: Option<u32>,
}

/// The model judge's opinion on a claim, when one was asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeNote {
    /// The lexical verdict before the judge.
    pub lexical: Verdict,
    /// The judge that answered.
    pub judge: String,
    /// Whether the answer came from the cache.
    pub cached: bool,
}

/// One claim, checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimReport {
    /// Position in the answer (0-based).
    pub index: usize,
    /// The claim text, citations removed.
    pub text: String,
    /// Byte range `[start, end)` of the claim in the answer.
    pub span: (usize, usize),
    /// The verdict.
    pub verdict: Verdict,
    /// Weighted share of the claim's terms carried by the evidence (0–1).
    pub score: f64,
    /// The citations attached to the claim.
    pub citations: Vec<CitationCheck>,
    /// The best-matching source sentences, best first.
    pub evidence: Vec<Evidence>,
    /// Why: missing words, numbers, entities, flips.
    pub reasons: Vec<Reason>,
    /// The judge's involvement, if any.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub judge: Option<JudgeNote>,
    /// All cited sentence texts (for the judge), not serialized.
    #[serde(skip)]
    pub(crate) context: Vec<String>,
}

/// A footnote: one distinct resolved citation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Footnote {
    /// Footnote number (1-based).
    pub number: usize,
    /// Canonical citation id.
    pub id: String,
    /// Document path.
    pub path: String,
    /// Document title.
    pub title: Option<String>,
    /// First line of the cited span.
    pub line_start: u32,
    /// Last line of the cited span.
    pub line_end: u32,
    /// Page, for PDF.
    pub page: Option<u32>,
    /// Id of the quoted sentence.
    pub sentence: String,
    /// The quoted source sentence (the one best matching the citing claim).
    pub quote: String,
}

/// Totals over an answer.
///
/// Definitions (ALCE-style):
/// - *claim support rate*: supported claims / claims that cite something;
/// - *citation recall*: supported claims / all factual claims (uncited ones count as
///   not supported; connective sentences are left out);
/// - *citation precision*: precise citations / all citations of factual claims. A
///   citation is precise when its claim is supported by all its citations together
///   and either the citation alone supports the claim or the others without it do not
///   (it is needed). Broken citations are never precise.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Claims found (connective ones included).
    pub claims: usize,
    /// Factual claims (connective ones left out).
    pub factual: usize,
    /// Claims per verdict.
    pub verdicts: BTreeMap<Verdict, usize>,
    /// Supported / claims that cite something.
    pub support_rate: Option<f64>,
    /// Precise citations / all citations.
    pub citation_precision: Option<f64>,
    /// Supported / factual claims.
    pub citation_recall: Option<f64>,
}

/// The checker's report on one answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The answer as given.
    pub answer: String,
    /// Claims in order.
    pub claims: Vec<ClaimReport>,
    /// Footnotes in order of first citation.
    pub footnotes: Vec<Footnote>,
    /// Totals.
    pub totals: Totals,
}

impl Report {
    /// Whether every factual claim is supported.
    pub fn all_supported(&self) -> bool {
        self.claims
            .iter()
            .all(|c| matches!(c.verdict, Verdict::Supported | Verdict::Exempt))
    }

    /// Recompute the totals from the claims (after a judge changed verdicts).
    pub fn recompute_totals(&mut self) {
        self.totals = totals(&self.claims);
    }
}

/// A term of a claim.
#[derive(Debug, Clone)]
struct Term {
    key: String,
    shown: String,
    weight: f64,
    class: TermClass,
    /// The acronym this word is (`dnc`) or is part of (`us` for "United States").
    acronym: Option<String>,
    /// Whether the claim writes the acronym (`DNC`) rather than spelling it out.
    acronym_written: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum TermClass {
    Word,
    Entity,
    Number(f64),
    Date(DateFact),
}

/// An analysed source sentence.
struct SentenceView {
    text: String,
    analysis: Analysis,
    stems: HashSet<String>,
    /// Stems of what the sentence refers to (a leading pronoun's referent).
    referred: HashSet<String>,
    /// What the sentence refers to, when it opens with a pronoun or a definite
    /// description that resolves.
    referent: Option<Named>,
    /// Acronyms it writes ("DNC", "Sactwu").
    acronyms: HashSet<String>,
    /// Initials of the names it spells out ("Democratic National Committee").
    spelled: HashSet<String>,
}

impl SentenceView {
    fn new(text: &str, refs: Option<&Referents>) -> Self {
        let analysis = analyse(text);
        let stems = analysis
            .tokens
            .iter()
            .filter(|t| matches!(t.kind, Kind::Word))
            .map(|t| t.stem.clone())
            .collect();
        let referent = refs.and_then(|r| referent(&analysis, r));
        let referred = referent
            .iter()
            .flat_map(|n| n.stems.iter().cloned())
            .collect();
        let acronyms = acronyms_in(&analysis);
        let spelled = acronym_of_tokens(&analysis).into_values().collect();
        Self {
            text: text.to_owned(),
            analysis,
            stems,
            referred,
            referent,
            acronyms,
            spelled,
        }
    }

    fn clone_view(&self) -> Self {
        Self {
            text: self.text.clone(),
            analysis: self.analysis.clone(),
            stems: self.stems.clone(),
            referred: self.referred.clone(),
            referent: self.referent.clone(),
            acronyms: self.acronyms.clone(),
            spelled: self.spelled.clone(),
        }
    }
}

fn claim_terms(a: &Analysis) -> Vec<Term> {
    let mut terms: Vec<Term> = Vec::new();
    let mut seen = HashSet::new();
    let run_acronyms = acronym_of_tokens(a);
    for (i, t) in a.tokens.iter().enumerate() {
        if !t.is_content() || !seen.insert(t.stem.clone()) {
            continue;
        }
        let entity = i > 0 && t.is_entity();
        let acronym = if t.upper {
            Some(dotless(&t.lower))
        } else {
            run_acronyms.get(&i).cloned()
        };
        terms.push(Term {
            key: t.stem.clone(),
            shown: t.lower.clone(),
            weight: if entity { 1.5 } else { 1.0 },
            class: if entity {
                TermClass::Entity
            } else {
                TermClass::Word
            },
            acronym,
            acronym_written: t.upper,
        });
    }
    for n in &a.numbers {
        let key = format!("#{n}");
        if seen.insert(key.clone()) {
            terms.push(Term {
                key,
                shown: fmt_number(*n),
                weight: 1.5,
                class: TermClass::Number(*n),
                acronym: None,
                acronym_written: false,
            });
        }
    }
    for d in &a.dates {
        let key = format!("@{}", d.normalized());
        if seen.insert(key.clone()) {
            terms.push(Term {
                key,
                shown: d.normalized(),
                weight: 1.5,
                class: TermClass::Date(*d),
                acronym: None,
                acronym_written: false,
            });
        }
    }
    terms
}

/// A word with its dots dropped (`u.s` → `us`).
fn dotless(w: &str) -> String {
    w.chars().filter(|c| *c != '.').collect()
}

/// For each token inside a name of two capitalized words or more ("Democratic
/// National Committee"), the name's initials (`dnc`).
fn acronym_of_tokens(a: &Analysis) -> BTreeMap<usize, String> {
    let mut out = BTreeMap::new();
    let mut i = 0;
    while i < a.tokens.len() {
        let Some((lo, hi)) = name_run_from(a, i) else {
            i += 1;
            continue;
        };
        let caps: Vec<usize> = (lo..hi)
            .filter(|k| a.tokens[*k].capitalized && a.tokens[*k].is_content())
            .collect();
        if caps.len() >= 2 {
            let initials: String = caps
                .iter()
                .filter_map(|k| a.tokens[*k].lower.chars().next())
                .collect();
            for k in caps {
                out.insert(k, initials.clone());
            }
        }
        i = hi;
    }
    out
}

/// The acronyms a sentence writes (`DNC`, `U.S.`, or as a word: `Sactwu`),
/// lowercased without dots.
fn acronyms_in(a: &Analysis) -> HashSet<String> {
    let mut out: HashSet<String> = a
        .tokens
        .iter()
        .filter(|t| t.upper)
        .map(|t| dotless(&t.lower))
        .collect();
    // An acronym written as a word ("Sactwu", "Nasa"): a capitalized single word
    // standing for a name of three words or more.
    out.extend(
        a.tokens
            .iter()
            .filter(|t| t.capitalized && !t.upper && t.lower.chars().count() >= 3)
            .map(|t| t.lower.clone()),
    );
    out
}

fn fmt_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn same_number(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Whether sentence `s` carries `term`; `window_years` are years stated anywhere in the window.
fn carries(term: &Term, s: &SentenceView, window_years: &[i32]) -> bool {
    match term.class {
        TermClass::Word | TermClass::Entity => {
            s.stems.contains(&term.key)
                || s.referred.contains(&term.key)
                || fuzzy(&term.key, &s.stems)
                || (term.class == TermClass::Entity
                    && s.stems.iter().any(|x| one_edit(&term.key, x)))
                || term
                    .acronym
                    .as_ref()
                    // A written acronym matches a name spelled out; a name spelled out
                    // matches only a written acronym, not another name with its initials.
                    .is_some_and(|x| {
                        s.acronyms.contains(x) || (term.acronym_written && s.spelled.contains(x))
                    })
        }
        TermClass::Number(n) => {
            s.analysis.numbers.iter().any(|m| same_number(n, *m))
                || s.analysis.dates.iter().any(|d| {
                    d.month.is_none() && d.year.is_some_and(|y| same_number(n, f64::from(y)))
                })
        }
        TermClass::Date(d) => {
            s.analysis.dates.iter().any(|sd| {
                d.carried_by(sd)
                    || (sd.year.is_none()
                        && d.carried_by(&DateFact {
                            year: d.year.filter(|y| window_years.contains(y)),
                            ..*sd
                        }))
            }) || (d.month.is_none()
                && d.year.is_some_and(|y| {
                    s.analysis
                        .numbers
                        .iter()
                        .any(|m| same_number(*m, f64::from(y)))
                }))
        }
    }
}

/// Stems sharing a long prefix (`publisher`/`publication`) count as the same word.
fn fuzzy(key: &str, stems: &HashSet<String>) -> bool {
    let kc: Vec<char> = key.chars().collect();
    if kc.len() < 5 || kc.iter().any(char::is_ascii_digit) {
        return false;
    }
    stems.iter().any(|s| {
        let sc: Vec<char> = s.chars().collect();
        if sc.len() < 5 {
            return false;
        }
        let common = kc.iter().zip(&sc).take_while(|(a, b)| a == b).count();
        common >= 5 && common * 4 >= kc.len().min(sc.len()) * 3
    })
}

/// Shortest name that may be spelt with one letter more, less or changed and
/// still count as the same ("Harberton" / "Haberton"): transliterations and
/// typos of long names, not short ones ("Jonas" / "Jonah" differ).
const ONE_EDIT_MIN_CHARS: usize = 7;

/// Whether two words of at least [`ONE_EDIT_MIN_CHARS`] letters differ by one
/// inserted, deleted or substituted letter (not the first).
fn one_edit(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().min(b.len()) < ONE_EDIT_MIN_CHARS || a.len().abs_diff(b.len()) > 1 || a == b {
        return false;
    }
    if a.first() != b.first() {
        return false;
    }
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    // One edit: what is left between the common head and tail is at most one
    // letter on each side.
    head + tail + 1 >= a.len().max(b.len())
}

/// Weighted share of `terms` carried by any of `sentences`.
fn coverage(terms: &[Term], sentences: &[&SentenceView], years: &[i32]) -> f64 {
    let total: f64 = terms.iter().map(|t| t.weight).sum();
    if total <= 0.0 {
        return 0.0;
    }
    terms
        .iter()
        .filter(|t| sentences.iter().any(|s| carries(t, s, years)))
        .map(|t| t.weight)
        .sum::<f64>()
        / total
}

/// Terms of the part of a claim before its causal connective ("X because Y" → X),
/// when it has one: an added reason must not hide that X paraphrases the source.
fn main_clause_terms(claim_text: &str) -> Option<Vec<Term>> {
    // ASCII lowercasing keeps byte offsets (the markers are ASCII).
    let lower = claim_text.to_ascii_lowercase();
    let cut = [
        " because ",
        " due to ",
        " owing to ",
        " thanks to ",
        " as a result of ",
        " since ",
        ", so ",
    ]
    .iter()
    .filter_map(|m| lower.find(m))
    .min()?;
    let prefix = claim_text.get(..cut)?;
    let terms = claim_terms(&analyse(prefix));
    (!terms.is_empty()).then_some(terms)
}

/// Sentences a cited text is taken to have on top of its own when terms are
/// weighed by inverse sentence frequency: a few cited sentences that share a word
/// say little about it, a long page that repeats it on every line does.
const IDF_PRIOR_SENTENCES: f64 = 20.0;

/// Share of the claim's term weight that the `window` carries when each term also
/// weighs by how rare it is among all cited `sentences` (its `idf` factor, from
/// [`idf_multipliers`]): one the text repeats (the page's own subject) weighs less.
fn idf_coverage(
    terms: &[Term],
    idf: &[f64],
    sentences: &[SentenceView],
    window: &[usize],
    years: &[i32],
) -> f64 {
    let mut total = 0.0;
    let mut carried = 0.0;
    for (t, m) in terms.iter().zip(idf) {
        let w = t.weight * m;
        total += w;
        if window
            .iter()
            .any(|i| sentences.get(*i).is_some_and(|s| carries(t, s, years)))
        {
            carried += w;
        }
    }
    if total > 0.0 { carried / total } else { 1.0 }
}

/// Per term, the factor inverse sentence frequency over the cited `sentences`
/// gives its weight: 1 for a term in one sentence or none, less for one the text
/// repeats (`ln(N'/(df+1)) / ln(N'/2)`, `N'` the sentence count plus
/// [`IDF_PRIOR_SENTENCES`]), a twentieth at least.
fn idf_multipliers(terms: &[Term], sentences: &[SentenceView], years: &[i32]) -> Vec<f64> {
    let n = sentences.len() as f64 + IDF_PRIOR_SENTENCES;
    let base = (n / 2.0).ln();
    terms
        .iter()
        .map(|t| {
            let df = sentences.iter().filter(|s| carries(t, s, years)).count() as f64;
            if df > 1.0 && base > 0.0 {
                ((n / (df + 1.0)).ln() / base).clamp(0.05, 1.0)
            } else {
                1.0
            }
        })
        .collect()
}

/// The outcome of aligning one claim with a set of sentences.
struct Assessment {
    verdict: Verdict,
    score: f64,
    window: Vec<usize>,
    reasons: Vec<Reason>,
}

/// Align and judge one claim against `sentences` (all cited sentences of the claim).
fn assess(
    claim_text: &str,
    claim: &Analysis,
    antecedents: &[Named],
    sentences: &[SentenceView],
    full_text: &str,
    opts: &CheckOptions,
) -> Assessment {
    let terms = claim_terms(claim);
    let total: f64 = terms.iter().map(|t| t.weight).sum();
    let all_years: Vec<i32> = sentences
        .iter()
        .flat_map(|s| s.analysis.dates.iter().filter_map(|d| d.year))
        .collect();
    // Greedy window.
    let mut covered = vec![false; terms.len()];
    let mut window: Vec<usize> = Vec::new();
    let mut carried = 0.0;
    // What each term weighs in choosing sentences: rare terms first.
    let idf = idf_multipliers(&terms, sentences, &all_years);
    // Term weight the best sentence carries on its own.
    let mut anchor = 0.0;
    while window.len() < opts.max_window.max(1) {
        let mut best: Option<(usize, f64, f64)> = None;
        for (si, s) in sentences.iter().enumerate() {
            if window.contains(&si) {
                continue;
            }
            let (gain, rank): (f64, f64) = terms
                .iter()
                .zip(&covered)
                .zip(&idf)
                .filter(|((t, c), _)| !**c && carries(t, s, &all_years))
                .map(|((t, _), m)| (t.weight, t.weight * m))
                .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
            if gain > 0.0 && best.is_none_or(|(_, _, r)| rank > r) {
                best = Some((si, gain, rank));
            }
        }
        let Some((si, gain, _)) = best else { break };
        // A further sentence must add at least one full content word.
        if !window.is_empty() && gain < 1.0 {
            break;
        }
        for (t, c) in terms.iter().zip(covered.iter_mut()) {
            if !*c && carries(t, &sentences[si], &all_years) {
                *c = true;
            }
        }
        if window.is_empty() {
            anchor = gain;
        }
        carried += gain * opts.extra_sentence_weight.powi(window.len() as i32);
        window.push(si);
    }
    let score = if total > 0.0 { carried / total } else { 1.0 };
    let idf_score = idf_coverage(&terms, &idf, sentences, &window, &all_years);

    let mut reasons = Vec::new();
    let missing = |class: fn(&TermClass) -> bool| -> Vec<&Term> {
        terms
            .iter()
            .zip(&covered)
            .filter(|(t, c)| !**c && class(&t.class))
            .map(|(t, _)| t)
            .collect()
    };
    let words = missing(|c| matches!(c, TermClass::Word));
    if !words.is_empty() {
        let list: Vec<&str> = words.iter().map(|t| t.shown.as_str()).collect();
        reasons.push(Reason::new(
            ReasonKind::MissingWords,
            format!("{MISSING_WORDS}{}", list.join(", ")),
        ));
    }
    let entities = missing(|c| matches!(c, TermClass::Entity));
    if !entities.is_empty() {
        let list: Vec<&str> = entities.iter().map(|t| t.shown.as_str()).collect();
        let kind = ReasonKind::Entity;
        reasons.push(Reason::new(
            kind,
            format!("names not in the cited text: {}", list.join(", ")),
        ));
    }
    let win: Vec<&SentenceView> = window.iter().map(|i| &sentences[*i]).collect();
    let window_numbers: Vec<String> = win
        .iter()
        .flat_map(|s| {
            s.analysis
                .numbers
                .iter()
                .map(|n| fmt_number(*n))
                .chain(s.analysis.dates.iter().map(DateFact::normalized))
        })
        .collect::<Vec<_>>();
    let has_text = |needle: &str| {
        if window_numbers.is_empty() {
            String::new()
        } else {
            format!(" (cited text has {})", needle)
        }
    };
    for t in missing(|c| matches!(c, TermClass::Number(_))) {
        reasons.push(Reason::new(
            ReasonKind::Number,
            format!(
                "number {} not in the cited text{}",
                t.shown,
                has_text(&window_numbers.join(", "))
            ),
        ));
    }
    for t in missing(|c| matches!(c, TermClass::Date(_))) {
        reasons.push(Reason::new(
            ReasonKind::Date,
            format!(
                "date {} not in the cited text{}",
                t.shown,
                has_text(&window_numbers.join(", "))
            ),
        ));
    }

    // How much of the claim's wording (numbers and dates aside: those are what may
    // have been changed) the best sentence carries on its own.
    // The best sentence with the one before it (where a pronoun's name usually is).
    let context: Vec<&SentenceView> = window
        .first()
        .map(|p| sentences[p.saturating_sub(1)..=*p].iter().collect())
        .unwrap_or_default();
    let aligned = if context.is_empty() {
        0.0
    } else {
        let main = main_clause_terms(claim_text).unwrap_or_else(|| terms.clone());
        coverage(&wording(&terms), &context, &all_years).max(coverage(
            &wording(&main),
            &context,
            &all_years,
        ))
    };
    // Negation, quantifier, certainty, causal and role checks compare the claim with
    // the sentence it paraphrases; against loosely related sentences they are noise.
    if !win.is_empty() && aligned >= opts.overreach_alignment {
        // Against the clauses of each sentence that carry the claim's words: a hedge
        // or negation in another clause ("…, who wanted a place where they could
        // work") says nothing about this claim.
        let narrowed: Vec<SentenceView> = win
            .iter()
            .map(|s| carrying_clauses(&terms, s, &all_years))
            .collect();
        let narrowed: Vec<&SentenceView> = narrowed.iter().collect();
        structural_checks(claim, &narrowed, &mut reasons);
    }
    // A name the window lacks where the best sentence has another in the same slot
    // ("by Jonas Berg" against "by Mira Okafor"): overreach when the rest aligns.
    let missing_names: HashSet<&str> = entities
        .iter()
        .map(|t| t.key.as_str())
        .chain(words.iter().map(|t| t.key.as_str()))
        .collect();
    let mut substituted = false;
    if let Some(first) = window.first() {
        let subs = substitutions(claim, &missing_names, &sentences[*first].analysis);
        if !subs.is_empty() {
            let swapped: HashSet<&str> = subs
                .iter()
                .flat_map(|s| s.2.iter().map(String::as_str))
                .collect();
            let rest: Vec<Term> = wording(&terms)
                .into_iter()
                .filter(|t| !swapped.contains(t.key.as_str()))
                .collect();
            if !rest.is_empty() && coverage(&rest, &context, &all_years) >= opts.overreach_alignment
            {
                substituted = true;
                for (claim_name, source_name, _) in &subs {
                    reasons.push(Reason::new(
                        ReasonKind::Substitution,
                        format!("the claim names \"{claim_name}\" where the cited text has \"{source_name}\""),
                    ));
                }
            }
        }
    }
    // Issue 32: roles moved between names, changed directions and units, a
    // relative clause about something else, relations the text does not say.
    let al = Aligned {
        claim_text,
        claim,
        terms: &terms,
        sentences,
        window: &window,
        context: &context,
        years: &all_years,
    };
    let (moved, role_moved) = al.moved_roles(opts);
    reasons.extend(moved);
    let changed = al.changed_quantities(&win, opts);
    let shifted = !changed.is_empty();
    reasons.extend(changed);
    if aligned >= opts.overreach_alignment
        && let Some(r) = al.other_subject(antecedents)
    {
        substituted = true;
        reasons.push(r);
    }
    let unsaid = roles::unsaid_relation(claim_text, claim, &words, &missing_names);
    let related = unsaid.is_none();
    reasons.extend(unsaid);
    // Stronger quantifiers and certainty than any cited sentence carries are
    // overreach even when the claim only partly paraphrases its sources.
    let strong = aligned < opts.overreach_alignment
        && score >= opts.partial_threshold
        && strong_assertion(claim, sentences, &mut reasons);
    // A quote whose words are mostly in one cited sentence, but not verbatim, is a misquote.
    let misquoted = quote_check(claim_text, full_text, &mut reasons)
        .iter()
        .any(|q| {
            let qt = claim_terms(&analyse(q));
            win.iter().any(|s| coverage(&qt, &[s], &all_years) >= 0.6)
        });

    let specific = reasons.iter().any(Reason::is_specific);
    let verdict = if substituted
        || strong
        || shifted
        || role_moved
        || (specific && aligned >= opts.overreach_alignment)
    {
        // The wording is the source's; what differs is a specific.
        Verdict::Overreach
    } else if (score < opts.partial_threshold && anchor < opts.partial_anchor)
        || idf_score < opts.idf_floor
    {
        Verdict::Unsupported
    } else if specific && misquoted {
        Verdict::Overreach
    } else if score >= opts.support_threshold && entities.is_empty() && !specific && related {
        Verdict::Supported
    } else {
        Verdict::Partial
    };
    Assessment {
        verdict,
        score,
        window,
        reasons,
    }
}

/// The claim's wording: its words and names (numbers and dates aside: those are
/// what may have been changed), or all its terms when it has no words.
fn wording(ts: &[Term]) -> Vec<Term> {
    let w: Vec<Term> = ts
        .iter()
        .filter(|t| matches!(t.class, TermClass::Word | TermClass::Entity))
        .cloned()
        .collect();
    if w.is_empty() { ts.to_vec() } else { w }
}

/// What the checks of issue 32 look at: a claim aligned with its cited sentences.
struct Aligned<'a> {
    claim_text: &'a str,
    claim: &'a Analysis,
    terms: &'a [Term],
    sentences: &'a [SentenceView],
    window: &'a [usize],
    /// The best sentence with the one before it.
    context: &'a [&'a SentenceView],
    years: &'a [i32],
}

impl Aligned<'_> {
    /// Whether the context carries the claim's wording but for the words of
    /// `changed` (stems): the claim paraphrases it and changes those.
    fn aligned_but(&self, changed: &[String], opts: &CheckOptions) -> bool {
        let rest: Vec<Term> = wording(self.terms)
            .into_iter()
            .filter(|t| !changed.contains(&t.key))
            .collect();
        !rest.is_empty() && coverage(&rest, self.context, self.years) >= opts.overreach_alignment
    }

    /// A changed direction or unit of a quantity the context otherwise carries
    /// (issue 32, kinds c and d): the reasons, always `overreach`.
    fn changed_quantities(&self, win: &[&SentenceView], opts: &CheckOptions) -> Vec<Reason> {
        let mut out = Vec::new();
        if let Some((r, stem)) = quantity::reversed_direction(self.claim, win)
            && self.aligned_but(&[stem], opts)
        {
            out.push(r);
        }
        for (r, stem) in quantity::changed_units(self.claim_text, self.claim, win) {
            if self.aligned_but(&stem.into_iter().collect::<Vec<_>>(), opts) {
                out.push(r);
            }
        }
        out
    }

    /// Roles moved to a name the window carries elsewhere (issue 32, kinds a and
    /// b): the reasons, and whether the window carries all the claim's wording
    /// (it was assembled from the cited text, so `overreach`).
    fn moved_roles(&self, opts: &CheckOptions) -> (Vec<Reason>, bool) {
        let moved = roles::moved_roles(
            self.claim_text,
            self.claim,
            self.terms,
            self.sentences,
            self.window,
            self.years,
        );
        let win: Vec<&SentenceView> = self
            .window
            .iter()
            .filter_map(|i| self.sentences.get(*i))
            .collect();
        let whole = !moved.is_empty()
            && coverage(&wording(self.terms), &win, self.years) >= opts.overreach_alignment;
        (moved, whole)
    }

    /// A relative clause said of something other than what its best sentence is
    /// about (see [`roles::other_subject`]).
    fn other_subject(&self, antecedents: &[Named]) -> Option<Reason> {
        let first = self.sentences.get(*self.window.first()?)?;
        if antecedents.is_empty() {
            return None;
        }
        roles::other_subject(self.claim, antecedents, first)
    }
}

/// The part of sentence `s` made of its clauses that carry some of `terms`
/// (the whole sentence when it has one clause or none carries any).
fn carrying_clauses(terms: &[Term], s: &SentenceView, years: &[i32]) -> SentenceView {
    let source = s.text.as_str();
    let clauses = crate::segment::clauses_of(source);
    if clauses.len() < 2 {
        return s.clone_view();
    }
    let kept: Vec<&str> = clauses
        .iter()
        .copied()
        .filter(|c| {
            let v = SentenceView::new(c, None);
            terms.iter().any(|t| {
                matches!(t.class, TermClass::Word | TermClass::Entity) && carries(t, &v, years)
            })
        })
        .collect();
    if kept.is_empty() {
        return s.clone_view();
    }
    let mut v = SentenceView::new(&kept.join(" "), None);
    v.referred = s.referred.clone();
    v.referent = s.referent.clone();
    v
}

/// Universal quantifiers that assert more than any paraphrase of a weaker source.
const UNIVERSAL: &[&str] = &[
    "all",
    "always",
    "everyone",
    "everything",
    "universally",
    "invariably",
];

/// Words claiming proof or certainty.
const PROOF: &[&str] = &[
    "prove",
    "proves",
    "proved",
    "proven",
    "definitely",
    "undoubtedly",
    "conclusively",
    "certainly",
];

/// A universal quantifier ("all", "always") or a proof word ("proves") that no
/// cited sentence carries: pushes the reason.
fn strong_assertion(
    claim: &Analysis,
    sentences: &[SentenceView],
    reasons: &mut Vec<Reason>,
) -> bool {
    let has = |a: &Analysis, words: &[&str]| {
        a.tokens
            .iter()
            .find(|t| words.contains(&t.lower.as_str()))
            .map(|t| t.lower.clone())
    };
    let mut found = false;
    if let Some(w) = has(claim, UNIVERSAL)
        && !sentences
            .iter()
            .any(|s| has(&s.analysis, UNIVERSAL).is_some())
    {
        let src_q = sentences
            .iter()
            .map(|s| s.analysis.quantifier)
            .max()
            .unwrap_or(0);
        reasons.push(Reason::new(
            ReasonKind::Quantifier,
            format!(
                "the claim says \"{w}\" where the cited text says {}",
                source_quant(src_q)
            ),
        ));
        found = true;
    }
    if let Some(w) = has(claim, PROOF)
        && !sentences.iter().any(|s| has(&s.analysis, PROOF).is_some())
    {
        reasons.push(Reason::new(
            ReasonKind::Certainty,
            format!("\"{w}\" is stronger than the cited text"),
        ));
        found = true;
    }
    found
}

/// The capitalized run (names joined by joiners) of `a` starting at token `i`.
fn name_run_from(a: &Analysis, i: usize) -> Option<(usize, usize)> {
    let is_name = |k: usize| {
        a.tokens
            .get(k)
            .is_some_and(|t| t.capitalized && t.is_content())
    };
    if !is_name(i) {
        return None;
    }
    let mut end = i + 1;
    loop {
        if is_name(end) {
            end += 1;
        } else if a.tokens.get(end).is_some_and(|t| is_name_joiner(&t.lower)) && is_name(end + 1) {
            end += 2;
        } else {
            break;
        }
    }
    Some((i, end))
}

/// The capitalized run of `a` ending just before token `j`.
fn name_run_before(a: &Analysis, j: usize) -> Option<(usize, usize)> {
    let is_name = |k: usize| {
        a.tokens
            .get(k)
            .is_some_and(|t| t.capitalized && t.is_content())
    };
    if j == 0 || !is_name(j - 1) {
        return None;
    }
    let mut start = j - 1;
    while start > 0 && is_name(start - 1) {
        start -= 1;
    }
    Some((start, j))
}

fn run_text(a: &Analysis, (lo, hi): (usize, usize)) -> String {
    a.tokens[lo..hi]
        .iter()
        .map(|t| t.lower.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Names of the claim that the cited text lacks (`missing` stems) and that the
/// primary sentence replaces in the same slot: after the same lower-case word ("by",
/// "in", "at") or before the same verb. Returns (claim name, source name, claim stems).
fn substitutions(
    claim: &Analysis,
    missing: &HashSet<&str>,
    primary: &Analysis,
) -> Vec<(String, String, Vec<String>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < claim.tokens.len() {
        let Some((lo, hi)) = name_run_from(claim, i) else {
            i += 1;
            continue;
        };
        i = hi;
        let stems: Vec<String> = claim.tokens[lo..hi]
            .iter()
            .filter(|t| t.is_content())
            .map(|t| t.stem.clone())
            .collect();
        if !stems.iter().all(|s| missing.contains(s.as_str())) {
            continue;
        }
        let differs = |(a, b): (usize, usize)| {
            primary.tokens[a..b]
                .iter()
                .filter(|t| t.is_content())
                .all(|t| !stems.contains(&t.stem))
        };
        let before = lo
            .checked_sub(1)
            .and_then(|k| claim.tokens.get(k))
            .filter(|t| !t.capitalized && matches!(t.kind, Kind::Word));
        let after = claim
            .tokens
            .get(hi)
            .filter(|t| !t.capitalized && t.is_content());
        let mut found: Option<(usize, usize)> = None;
        for (p, t) in primary.tokens.iter().enumerate() {
            if let Some(b) = before
                && t.lower == b.lower
                && let Some(r) = name_run_from(primary, p + 1)
                && differs(r)
            {
                found = Some(r);
                break;
            }
            if let Some(a) = after
                && t.stem == a.stem
                && let Some(r) = name_run_before(primary, p)
                && differs(r)
            {
                found = Some(r);
                break;
            }
        }
        if let Some(r) = found {
            out.push((run_text(claim, (lo, hi)), run_text(primary, r), stems));
        }
    }
    out
}

/// Content words a negation marker governs: the next few after it.
const NEGATION_SCOPE: usize = 4;

/// Whether a negation in `source` governs a word the claim states ("did not
/// open a factory" against "opened a factory"), not something else the sentence
/// says ("would not start the race a day after killing a driver" against "killed
/// a driver").
fn negates_claim(source: &Analysis, claim: &Analysis) -> bool {
    let claim_stems: HashSet<&str> = claim
        .tokens
        .iter()
        .filter(|t| t.is_content())
        .map(|t| t.stem.as_str())
        .collect();
    source.negation_at.iter().any(|&i| {
        source
            .tokens
            .iter()
            .skip(i + 1)
            .filter(|t| t.is_content() || !matches!(t.kind, Kind::Word))
            .take(NEGATION_SCOPE)
            .any(|t| claim_stems.contains(t.stem.as_str()))
    })
}

/// Negation, quantifier, certainty, causal and role checks against the window.
fn structural_checks(claim: &Analysis, win: &[&SentenceView], reasons: &mut Vec<Reason>) {
    let primary = &win[0].analysis;
    let claim_neg = claim.negations % 2 == 1;
    let any_neg = win.iter().any(|s| s.analysis.negations > 0);
    if claim_neg && !any_neg {
        reasons.push(Reason::new(
            ReasonKind::Negation,
            "the claim negates what the cited text states",
        ));
    } else if !claim_neg && primary.negations % 2 == 1 && negates_claim(primary, claim) {
        reasons.push(Reason::new(
            ReasonKind::Negation,
            "the cited text negates what the claim states",
        ));
    }
    let src_q = win.iter().map(|s| s.analysis.quantifier).max().unwrap_or(0);
    if claim.quantifier >= 2 && claim.quantifier > src_q && (claim.quantifier == 4 || src_q > 0) {
        reasons.push(Reason::new(
            ReasonKind::Quantifier,
            format!(
                "the claim says \"{}\" where the cited text says {}",
                quantifier_word(claim),
                source_quant(src_q)
            ),
        ));
    }
    let src_hedges: Vec<&String> = win.iter().flat_map(|s| s.analysis.hedges.iter()).collect();
    if claim.hedges.is_empty() && !src_hedges.is_empty() {
        reasons.push(Reason::new(
            ReasonKind::Certainty,
            format!(
                "the cited text hedges (\"{}\"); the claim states it as fact",
                src_hedges[0]
            ),
        ));
    } else if let Some(w) = certainty_word(claim) {
        let src_certain = win.iter().any(|s| certainty_word(&s.analysis).is_some());
        if !src_certain {
            reasons.push(Reason::new(
                ReasonKind::Certainty,
                format!("\"{w}\" is stronger than the cited text"),
            ));
        }
    }
    if !claim.causal.is_empty() && win.iter().all(|s| s.analysis.causal.is_empty()) {
        reasons.push(Reason::new(
            ReasonKind::Causal,
            format!(
                "the cited text states no causal link (\"{}\")",
                claim.causal[0]
            ),
        ));
    }
    if let Some(detail) = swapped_roles(claim, primary) {
        reasons.push(Reason::new(ReasonKind::EntityOrder, detail));
    }
}

fn quantifier_word(a: &Analysis) -> String {
    const WORDS: &[&str] = &[
        "all",
        "every",
        "always",
        "each",
        "entire",
        "entirely",
        "everyone",
        "everything",
        "universally",
        "invariably",
        "most",
        "usually",
        "majority",
        "generally",
        "mostly",
        "many",
        "often",
        "frequently",
        "numerous",
        "commonly",
    ];
    a.tokens
        .iter()
        .find(|t| WORDS.contains(&t.lower.as_str()))
        .map(|t| t.lower.clone())
        .unwrap_or_default()
}

fn source_quant(level: u8) -> &'static str {
    match level {
        0 => "no such quantifier",
        1 => "\"some\" or fewer",
        2 => "\"many\"",
        _ => "\"most\"",
    }
}

fn certainty_word(a: &Analysis) -> Option<String> {
    a.tokens
        .iter()
        .find(|t| {
            matches!(
                t.stem.as_str(),
                "prove" | "proven" | "definit" | "certain" | "undoubt" | "conclus"
            ) || matches!(
                t.lower.as_str(),
                "proves" | "proved" | "demonstrates" | "demonstrated" | "confirms" | "confirmed"
            )
        })
        .map(|t| t.lower.clone())
}

/// Two entities in the claim appear in the primary sentence in the opposite order,
/// with a shared content word between them in both and the same voice: their roles
/// are swapped ("A acquired B" against "B acquired A").
fn swapped_roles(claim: &Analysis, primary: &Analysis) -> Option<String> {
    let ents: Vec<(usize, &str)> = claim
        .tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.is_content() && t.capitalized)
        .map(|(i, t)| (i, t.stem.as_str()))
        .collect();
    let pos_in = |a: &Analysis, stem: &str| {
        a.tokens
            .iter()
            .position(|t| t.stem == stem && t.capitalized)
    };
    for (x, &(ci, a)) in ents.iter().enumerate() {
        for &(cj, b) in &ents[x + 1..] {
            if a == b {
                continue;
            }
            let (Some(pi), Some(pj)) = (pos_in(primary, a), pos_in(primary, b)) else {
                continue;
            };
            if pi < pj {
                continue;
            }
            let between = |an: &Analysis, lo: usize, hi: usize| -> (HashSet<String>, bool) {
                let toks = &an.tokens[lo + 1..hi];
                let words = toks
                    .iter()
                    .filter(|t| t.is_content() && !t.capitalized)
                    .map(|t| t.stem.clone())
                    .collect();
                (words, toks.iter().any(|t| t.lower == "by"))
            };
            let (cw, cby) = between(claim, ci, cj);
            let (pw, pby) = between(primary, pj, pi);
            if cby == pby && !cw.is_empty() && cw.intersection(&pw).next().is_some() {
                return Some(format!(
                    "\"{}\" and \"{}\" appear in swapped roles in the cited text",
                    claim.tokens[ci].lower, claim.tokens[cj].lower
                ));
            }
        }
    }
    None
}

/// Elision marks inside a quotation.
const ELISIONS: &[&str] = &["[...]", "[…]", "(...)", "...", "…"];

/// Text in double quotes (two words or more) must appear verbatim, modulo whitespace,
/// quote style, case and punctuation, in the cited text; an elided quotation piece by
/// piece. Returns the failing quotes.
fn quote_check(claim_text: &str, full_text: &str, reasons: &mut Vec<Reason>) -> Vec<String> {
    let mut bad = Vec::new();
    let norm_claim = normalize_for_quote(claim_text);
    let norm_src = normalize_for_quote(full_text);
    let loose_src = loose(&norm_src);
    let mut parts = norm_claim.split('"');
    parts.next();
    while let Some(q) = parts.next() {
        // Every other piece is inside quotes; a trailing unmatched quote yields nothing.
        if parts.clone().next().is_none() && !norm_claim.ends_with('"') {
            break;
        }
        let q = q.trim().trim_end_matches([',', '.']);
        // Case and punctuation differences (titles restyled, a dropped comma) are
        // tolerated; changed, added or missing words are not.
        // An elided quote ("mature, tasteful, and [...] sexy") must match piece by piece.
        let marked = ELISIONS
            .iter()
            .fold(q.to_string(), |acc, e| acc.replace(e, "\u{1}"));
        let pieces: Vec<&str> = marked
            .split('\u{1}')
            .map(|p| p.trim().trim_end_matches([',', '.']))
            .filter(|p| !p.is_empty())
            .collect();
        let found = |p: &str| norm_src.contains(p) || loose_src.contains(&loose(p));
        // A title with a subtitle ("Maiden Heaven: A Tribute to Iron Maiden") is
        // often cited by its main title alone.
        let by_main_title = main_title(q).is_some_and(found);
        if q.split_whitespace().count() >= 2 && !by_main_title && !pieces.iter().all(|p| found(p)) {
            let detail = format!("quote \"{q}\" is not verbatim in the cited text");
            reasons.push(Reason::new(ReasonKind::Quote, detail));
            bad.push(q.to_string());
        }
        parts.next();
    }
    bad
}

/// The main title of a quoted title with a subtitle: "Main: Sub" or "Main - Sub",
/// both parts capitalized (a quoted sentence goes on in lower case after a colon).
fn main_title(q: &str) -> Option<&str> {
    let (head, tail) = q.split_once(": ").or_else(|| q.split_once(" - "))?;
    let capital = |t: &str| {
        t.trim()
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
    };
    (capital(head) && capital(tail)).then(|| head.trim())
}

/// Lowercased words joined by single spaces, punctuation dropped, padded with spaces.
fn loose(text: &str) -> String {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    format!(" {} ", words.join(" "))
}

/// Check every claim of `answer` against the sources its citations name.
///
/// ## Alignment
/// A claim's *terms* are the stems of its content words (capitalized ones count as
/// named entities and weigh more), its numbers by value and its dates in normalized
/// form. Among the cited sentences the checker greedily picks up to
/// [`CheckOptions::max_window`] sentences, each time the one that carries the most
/// still-uncovered term weight, each term's weight scaled by its inverse sentence
/// frequency over the cited text for this choice (a long page's own subject, on
/// every line, does not pick the sentence). The *score* is the weighted share of
/// terms carried (plain weights),
/// what the k-th sentence adds discounted by [`CheckOptions::extra_sentence_weight`]
/// to the power k-1 (words found together count more than words gathered from a
/// long page). A claim is *aligned* with its best sentence when that sentence (with
/// the one before it, where the name behind a pronoun usually is) carries
/// [`CheckOptions::overreach_alignment`] of its wording (numbers and dates aside;
/// for "X because Y", of X): the claim then paraphrases that sentence.
///
/// ## Verdicts
/// - an aligned claim with a specific the best sentences do not carry — a number,
///   a date, a quote that is not verbatim, a negation flip, a stronger quantifier,
///   certainty where the source hedges, a causal link the source does not state, two
///   entities in swapped roles — is `overreach`;
/// - so is a claim that paraphrases its sentences but for one change (issue 32):
///   a change in the opposite direction with the same numbers ("fell from 40 to
///   55" for "rose"), a number in another unit than the one the cited text gives
///   it ("48 feet" for "48 metres"), a role the cited sentences give someone else
///   (a relation word tied to a name — "Mara Ellison founded", "X was the
///   captain" — where every cited sentence saying the word lacks that name, and
///   one in the window ties it to a name the claim does not mention, while the
///   claim's name is in the window elsewhere), or a relative clause ("…, which is
///   based in Stavanger") whose sentence is about something neither the clause
///   nor the clause before it names;
/// - a claim whose names the cited text carries, related by a role it does not
///   say (an agent noun such as "publisher" between two names, missing from the
///   cited text), is at most `partial`;
/// - otherwise a score below [`CheckOptions::partial_threshold`] is `unsupported`,
///   unless the best sentence alone carries [`CheckOptions::partial_anchor`] of term
///   weight (part of a long claim is stated there): then it is `partial`. A claim
///   of which the window carries less than [`CheckOptions::idf_floor`] once
///   each term is weighed by inverse sentence frequency over the cited text
///   (`ln(N'/(df+1)) / ln(N'/2)` for a term in `df` > 1 of the `N` cited sentences,
///   `N' = N + 20`) is `unsupported` whatever its plain score: it shares little
///   but the page's own subject with the source;
/// - a misquote (a quote whose words are mostly in one cited sentence, but not
///   verbatim) is `overreach`;
/// - a score of at least [`CheckOptions::support_threshold`] with no missing number,
///   date, quote or name is `supported`; anything else `partial`.
/// - a claim with an id that does not resolve is `broken`; one without citations is
///   `uncited` unless it is connective (a question, a lead-in ending in `:`, a
///   heading, or only words about the answer itself), which is `exempt`.
///
/// A source that fails (not merely lacks an id) is an error.
pub fn check(
    answer: &str,
    source: &dyn SpanSource,
    opts: &CheckOptions,
) -> Result<Report, SourceError> {
    let found = claims(answer);
    let mut cache: BTreeMap<CitationId, Option<Source>> = BTreeMap::new();
    for c in &found {
        for r in &c.citations {
            if let Some(id) = r.id
                && let std::collections::btree_map::Entry::Vacant(e) = cache.entry(id)
            {
                e.insert(source.resolve(&id)?.filter(|s| !s.sentences.is_empty()));
            }
        }
    }
    // What each cited sentence refers back to (pronouns, "the institute").
    let mut referents: BTreeMap<String, Referents> = BTreeMap::new();
    for src in cache.values().flatten() {
        for sent in &src.sentences {
            if referents.contains_key(&sent.id) {
                continue;
            }
            if let Ok(id) = sent.id.parse::<CitationId>() {
                let mut r = source.referents(&id)?;
                if r.title.is_none() {
                    r.title.clone_from(&src.title);
                }
                referents.insert(sent.id.clone(), r);
            }
        }
    }
    let mut footnotes: Vec<Footnote> = Vec::new();
    let mut reports = Vec::new();
    for (index, c) in found.iter().enumerate() {
        // A relative clause ("which is based in Stavanger") is about a name of
        // the clause before it.
        let antecedents = match index.checked_sub(1).and_then(|p| found.get(p)) {
            Some(prev) if prev.sentence == c.sentence && roles::is_relative(&c.text) => {
                roles::antecedents(&prev.text)
            }
            _ => Vec::new(),
        };
        reports.push(check_claim(
            index,
            c,
            &antecedents,
            &cache,
            &referents,
            &mut footnotes,
            opts,
        ));
    }
    let totals = totals(&reports);
    Ok(Report {
        answer: answer.to_string(),
        claims: reports,
        footnotes,
        totals,
    })
}

fn check_claim(
    index: usize,
    c: &Claim,
    antecedents: &[Named],
    resolved: &BTreeMap<CitationId, Option<Source>>,
    referents: &BTreeMap<String, Referents>,
    footnotes: &mut Vec<Footnote>,
    opts: &CheckOptions,
) -> ClaimReport {
    let mut report = ClaimReport {
        index,
        text: c.text.clone(),
        span: (c.span.start, c.span.end),
        verdict: Verdict::Exempt,
        score: 0.0,
        citations: Vec::new(),
        evidence: Vec::new(),
        reasons: Vec::new(),
        judge: None,
        context: Vec::new(),
    };
    if c.citations.is_empty() {
        if !c.connective {
            report.verdict = Verdict::Uncited;
            report.reasons.push(Reason::new(
                ReasonKind::NoCitation,
                "a factual claim without a citation",
            ));
        }
        return report;
    }
    let claim_analysis = analyse(&c.text);
    // Per-citation sources (deduplicated by id, in order).
    let mut cited: Vec<(usize, &Source)> = Vec::new(); // (citation index, source)
    for r in &c.citations {
        let src =
            r.id.and_then(|id| resolved.get(&id).and_then(Option::as_ref));
        report.citations.push(CitationCheck {
            raw: r.raw.clone(),
            id: r.id.map(|i| i.to_string()),
            resolved: src.is_some(),
            precise: false,
            footnote: None,
        });
        if let Some(s) = src {
            cited.push((report.citations.len() - 1, s));
        }
    }
    let broken: Vec<&str> = report
        .citations
        .iter()
        .filter(|x| !x.resolved)
        .map(|x| x.raw.as_str())
        .collect();
    for b in &broken {
        report.reasons.push(Reason::new(
            ReasonKind::BrokenId,
            format!("[{b}] does not resolve"),
        ));
    }

    // Sentences of all resolved citations, deduplicated, with their owner.
    let mut views: Vec<SentenceView> = Vec::new();
    let mut owners: Vec<Vec<usize>> = Vec::new(); // citation indices per sentence
    let mut meta: Vec<Evidence> = Vec::new();
    for (ci, src) in &cited {
        for s in &src.sentences {
            if let Some(k) = meta.iter().position(|m| m.id == s.id) {
                owners[k].push(*ci);
                continue;
            }
            views.push(SentenceView::new(&s.text, referents.get(&s.id)));
            owners.push(vec![*ci]);
            meta.push(Evidence {
                id: s.id.clone(),
                text: s.text.clone(),
                path: src.path.clone(),
                line_start: s.line_start,
                line_end: s.line_end,
                page: s.page,
            });
        }
    }
    let full_text: String = meta
        .iter()
        .map(|m| m.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let a = assess(
        &c.text,
        &claim_analysis,
        antecedents,
        &views,
        &full_text,
        opts,
    );
    report.score = round3(a.score);
    if !views.is_empty() {
        report.reasons.extend(a.reasons);
    }
    report.evidence = a.window.iter().map(|i| meta[*i].clone()).collect();
    report.context = judge_context(&meta, &a.window);
    report.verdict = if !broken.is_empty() {
        Verdict::Broken
    } else {
        a.verdict
    };

    // ALCE-style precision: needed or sufficient citations of a supported claim.
    if a.verdict == Verdict::Supported && broken.is_empty() {
        let subset = |keep: &dyn Fn(usize) -> bool| -> bool {
            let idx: Vec<usize> = (0..views.len())
                .filter(|k| owners[*k].iter().any(|ci| keep(*ci)))
                .collect();
            if idx.is_empty() {
                return false;
            }
            let sub: Vec<SentenceView> = idx
                .iter()
                .map(|k| SentenceView::new(&meta[*k].text, referents.get(&meta[*k].id)))
                .collect();
            let text: String = idx
                .iter()
                .map(|k| meta[*k].text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            assess(&c.text, &claim_analysis, antecedents, &sub, &text, opts).verdict
                == Verdict::Supported
        };
        let n = report.citations.len();
        for ci in 0..n {
            let precise = n == 1 || subset(&|x| x == ci) || !subset(&|x| x != ci);
            report.citations[ci].precise = precise;
        }
    }

    // Footnotes: one per distinct resolved id, quoting the best sentence it contributed.
    for (ci, src) in &cited {
        let number = match footnotes.iter().find(|f| f.id == src.id) {
            Some(f) => f.number,
            None => {
                let best = a
                    .window
                    .iter()
                    .find(|k| owners[**k].contains(ci))
                    .map(|k| &meta[*k])
                    .or_else(|| {
                        meta.iter()
                            .find(|m| src.sentences.iter().any(|s| s.id == m.id))
                    });
                let (line_start, line_end) = src.lines().unwrap_or((0, 0));
                footnotes.push(Footnote {
                    number: footnotes.len() + 1,
                    id: src.id.clone(),
                    path: src.path.clone(),
                    title: src.title.clone(),
                    line_start,
                    line_end,
                    page: src.page(),
                    sentence: best.map(|b| b.id.clone()).unwrap_or_default(),
                    quote: best.map(|b| b.text.clone()).unwrap_or_default(),
                });
                footnotes.len()
            }
        };
        report.citations[*ci].footnote = Some(number);
    }
    report
}

/// Most cited sentences shown to a judge: a whole cited page would drown a small
/// model (and cost a long prompt per claim).
const JUDGE_CONTEXT: usize = 12;

/// The cited sentences a judge sees, in source order: all of them when they are
/// few, else the best window's sentences each with the one before and after it
/// (where a pronoun's referent or the rest of a fact usually is).
fn judge_context(meta: &[Evidence], window: &[usize]) -> Vec<String> {
    if meta.len() <= JUDGE_CONTEXT {
        return meta.iter().map(|m| m.text.clone()).collect();
    }
    let mut keep: Vec<usize> = Vec::new();
    // The window's own sentences first, so they survive the cap.
    for &k in window {
        keep.push(k);
    }
    for &k in window {
        keep.extend([k.checked_sub(1), Some(k + 1)].into_iter().flatten());
    }
    let mut seen = HashSet::new();
    let mut kept: Vec<usize> = keep
        .into_iter()
        .filter(|k| *k < meta.len() && seen.insert(*k))
        .take(JUDGE_CONTEXT)
        .collect();
    kept.sort_unstable();
    kept.iter().map(|k| meta[*k].text.clone()).collect()
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn ratio(num: usize, den: usize) -> Option<f64> {
    (den > 0).then(|| round3(num as f64 / den as f64))
}

pub(crate) fn totals(claims: &[ClaimReport]) -> Totals {
    let mut verdicts = BTreeMap::new();
    for c in claims {
        *verdicts.entry(c.verdict).or_insert(0) += 1;
    }
    let factual: Vec<&ClaimReport> = claims
        .iter()
        .filter(|c| c.verdict != Verdict::Exempt)
        .collect();
    let supported = factual
        .iter()
        .filter(|c| c.verdict == Verdict::Supported)
        .count();
    let cited = factual.iter().filter(|c| !c.citations.is_empty()).count();
    let n_cit: usize = factual.iter().map(|c| c.citations.len()).sum();
    let precise: usize = factual
        .iter()
        .filter(|c| c.verdict == Verdict::Supported)
        .map(|c| c.citations.iter().filter(|x| x.precise).count())
        .sum();
    Totals {
        claims: claims.len(),
        factual: factual.len(),
        verdicts,
        support_rate: ratio(supported, cited),
        citation_precision: ratio(precise, n_cit),
        citation_recall: ratio(supported, factual.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::MemorySource;

    #[test]
    fn main_title_of_a_quoted_title() {
        assert_eq!(
            main_title("Maiden Heaven: A Tribute to Iron Maiden"),
            Some("Maiden Heaven")
        );
        assert_eq!(main_title("Mockingjay - Part 2"), Some("Mockingjay"));
        assert_eq!(main_title("the plan: we lost"), None);
        assert_eq!(main_title("The plan: we lost"), None);
        assert_eq!(main_title("Diamond Eyes"), None);
    }

    fn src() -> MemorySource {
        let mut m = MemorySource::new();
        m.insert(
            1,
            "docs/acme.md",
            vec![
                "Acme Corp was founded in 1998 by Jane Doe in Leeds.".into(),
                "Its revenue grew by 12% in 2020.".into(),
                "Some analysts think the rockets may reach Mars.".into(),
                "The company did not open a factory in Paris.".into(),
            ],
        );
        m.insert(
            2,
            "docs/other.md",
            vec!["Beta Ltd sells bicycles in Norway.".into()],
        );
        m
    }

    fn verdicts(answer: &str) -> Vec<Verdict> {
        let r = check(answer, &src(), &CheckOptions::default()).unwrap();
        r.claims.iter().map(|c| c.verdict).collect()
    }

    #[test]
    fn verdicts_per_case() {
        use Verdict::*;
        let cases: &[(&str, Verdict)] = &[
            ("Jane Doe founded Acme Corp in 1998 [c1.s1].", Supported),
            // A paraphrase by a verb of the same sense is no overreach (issue 44).
            ("Jane Doe established Acme Corp in 1998 [c1.s1].", Supported),
            ("Acme Corp was established by Jane Doe [c1.s1].", Supported),
            (
                "Acme Corp was founded in 1989 by Jane Doe [c1.s1].",
                Overreach,
            ),
            ("Its revenue grew by 21% in 2020 [c1.s2].", Overreach),
            (
                "All analysts think the rockets may reach Mars [c1.s3].",
                Overreach,
            ),
            (
                "Analysts think the rockets will reach Mars [c1.s3].",
                Overreach,
            ),
            ("The company opened a factory in Paris [c1.s4].", Overreach),
            ("Jane Doe founded Acme Corp in 1998 [c2].", Unsupported),
            ("Jane Doe founded Acme Corp in 1998 [c9].", Broken),
            ("Jane Doe founded Acme Corp in 1998.", Uncited),
            ("Here is what the sources say:", Exempt),
            (
                "Acme Corp was founded in 1998 because Jane Doe liked rockets [c1.s1].",
                Overreach,
            ),
        ];
        for (answer, want) in cases {
            assert_eq!(verdicts(answer), vec![*want], "{answer}");
        }
    }

    #[test]
    fn one_sentence_carrying_part_of_a_long_claim_makes_it_partial() {
        let answer = "Jane Doe founded Acme Corp, maker of boats, kites, trains, wagons, engines and lamps sold in nineteen cities [c1.s1].";
        let r = check(answer, &src(), &CheckOptions::default()).unwrap();
        assert_eq!(r.claims.len(), 1);
        assert!(r.claims[0].score < CheckOptions::default().partial_threshold);
        assert_eq!(r.claims[0].verdict, Verdict::Partial);
        let strict = CheckOptions {
            partial_anchor: f64::INFINITY,
            ..CheckOptions::default()
        };
        let r = check(answer, &src(), &strict).unwrap();
        assert_eq!(r.claims[0].verdict, Verdict::Unsupported);
    }

    #[test]
    fn acronyms_and_months_alone_match() {
        let mut m = MemorySource::new();
        m.insert(
            1,
            "n.md",
            vec![
                "The DNC announced twelve debates on 20 December 2018.".into(),
                "Troops of the United States left Kabul.".into(),
            ],
        );
        let v =
            |answer: &str| check(answer, &m, &CheckOptions::default()).unwrap().claims[0].verdict;
        assert_eq!(
            v("The Democratic National Committee announced twelve debates in December [c1.s1]."),
            Verdict::Supported
        );
        assert_eq!(v("U.S. troops left Kabul [c1.s2]."), Verdict::Supported);
        assert_eq!(
            v("The Democratic National Committee announced twelve debates in March [c1.s1]."),
            Verdict::Overreach
        );
    }

    #[test]
    fn title_case_acronyms_and_one_letter_spellings_of_long_names_match() {
        let mut m = MemorySource::new();
        m.insert(
            1,
            "n.md",
            vec![
                "He became a shop steward for Sactwu in Cape Town.".into(),
                "He died in Haberton on 12 September 1875.".into(),
                "In 1990 Jonah Berg sailed to Riga.".into(),
            ],
        );
        let v =
            |answer: &str| check(answer, &m, &CheckOptions::default()).unwrap().claims[0].verdict;
        assert_eq!(
            v(
                "He became a shop steward for the Southern African Clothing and Textile Workers Union in Cape Town [c1.s1]."
            ),
            Verdict::Supported
        );
        assert_eq!(
            v("He died in Harberton on 12 September 1875 [c1.s2]."),
            Verdict::Supported
        );
        // Short names one letter apart are different names.
        assert_ne!(
            v("In 1990 Jonas Berg sailed to Riga [c1.s3]."),
            Verdict::Supported
        );
        assert!(one_edit("harberton", "haberton"));
        assert!(one_edit("montreal", "montreai"));
        assert!(!one_edit("jonas", "jonah"), "too short");
        assert!(!one_edit("harberton", "harbourton"), "two edits");
        assert!(
            !one_edit("karberton", "harberton"),
            "the first letter differs"
        );
    }

    #[test]
    fn a_negation_elsewhere_in_the_sentence_is_not_a_flip() {
        let mut m = MemorySource::new();
        m.insert(
            1,
            "n.md",
            vec!["Stewart would not start the race at Watkins Glen a day after the crash killed a driver.".into()],
        );
        let v =
            |answer: &str| check(answer, &m, &CheckOptions::default()).unwrap().claims[0].verdict;
        assert_eq!(
            v(
                "A day after the crash killed a driver, Stewart did not race at Watkins Glen [c1.s1]."
            ),
            Verdict::Supported
        );
        assert_eq!(
            v(
                "A day after the crash killed a driver, Stewart started the race at Watkins Glen [c1.s1]."
            ),
            Verdict::Overreach
        );
    }

    #[test]
    fn sharing_only_the_page_subject_is_unsupported() {
        let mut page: Vec<String> = (1..=30)
            .map(|k| format!("The Harbor Institute in Tallinn opened wing {k} of its museum."))
            .collect();
        page.push("Its library holds rare maps.".into());
        let mut m = MemorySource::new();
        m.insert(1, "page.md", page);
        let answer =
            "The Harbor Institute museum in Tallinn was bombed by Soviet aircraft in 1944 [c1].";
        let r = check(answer, &m, &CheckOptions::default()).unwrap();
        assert!(r.claims[0].score >= CheckOptions::default().partial_threshold);
        assert_eq!(r.claims[0].verdict, Verdict::Unsupported);
        let lax = CheckOptions {
            idf_floor: 0.0,
            ..CheckOptions::default()
        };
        assert_eq!(
            check(answer, &m, &lax).unwrap().claims[0].verdict,
            Verdict::Partial
        );
    }

    #[test]
    fn totals_alce_style() {
        let r = check(
            "Jane Doe founded Acme Corp in 1998 [c1.s1, c2]. Beta Ltd sells bicycles in Norway [c2]. Acme makes boats.",
            &src(),
            &CheckOptions::default(),
        )
        .unwrap();
        assert_eq!(r.totals.factual, 3);
        assert_eq!(r.totals.support_rate, Some(1.0));
        assert_eq!(r.totals.citation_recall, Some(0.667));
        // c2 is neither sufficient nor needed for the first claim.
        assert_eq!(r.totals.citation_precision, Some(0.667));
        assert_eq!(r.footnotes.len(), 2);
    }
}
