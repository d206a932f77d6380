//! The built-in "heuristics first" strategy (SPEC §5.5): answer without a root
//! model by combining BM25, the entity graph and sentence scoring, then either
//! let a sub-model compose a cited answer from the evidence in one call, or
//! return an extractive answer made of the evidence sentences.
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod compare;
mod hops;
pub use hops::{expresses_relation, is_relation_verb};
mod question;
pub use question::{Compared, Question};
mod relations;
pub mod short;
mod unasked;
pub use unasked::{MAX_NEXT_CHUNKS, chunk_ids_in, unasked_names};

use std::collections::{BTreeMap, HashSet};

use rlmkg_corpus::{Corpus, EntityInfo, Passage};
use serde::Serialize;

/// Tuning of [`explore`].
#[derive(Debug, Clone)]
pub struct ExploreOptions {
    /// BM25 hits to consider.
    pub search_k: usize,
    /// Graph-ranked chunks to consider.
    pub related_k: usize,
    /// Evidence sentences to keep.
    pub evidence: usize,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        Self {
            search_k: 8,
            related_k: 8,
            evidence: 3,
        }
    }
}

/// One evidence sentence.
#[derive(Debug, Clone, Serialize)]
pub struct Evidence {
    /// Sentence id (`c12.s3`), citable as `[c12.s3]`.
    pub id: String,
    /// Chunk id.
    pub chunk: String,
    /// Document title.
    pub title: String,
    /// Document path.
    pub path: String,
    /// Sentence text.
    pub text: String,
    /// Selection score.
    pub score: f64,
    /// The compared item this sentence was chosen for (comparison questions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub about: Option<String>,
}

/// What [`explore`] found.
#[derive(Debug, Clone, Serialize)]
pub struct Exploration {
    /// The question.
    pub question: String,
    /// Entities recognised in the question (names).
    pub question_entities: Vec<String>,
    /// Bridge entities the chain of evidence went through (names): each is
    /// named by one evidence sentence and reached the next.
    pub bridges: Vec<String>,
    /// Chunks considered, best first.
    pub chunks: Vec<String>,
    /// Chosen evidence sentences, in reasoning order.
    pub evidence: Vec<Evidence>,
}

impl Exploration {
    /// Keep only chunks (and evidence from chunks) that `keep` accepts.
    pub fn restricted(mut self, keep: impl Fn(&str) -> bool) -> Self {
        self.chunks.retain(|c| keep(c));
        self.evidence.retain(|e| keep(&e.chunk));
        self
    }

    /// The exploration as the REPL sees it, with a draft answer.
    pub fn to_python(&self) -> serde_json::Value {
        serde_json::json!({
            "question": self.question,
            "question_entities": self.question_entities,
            "bridges": self.bridges,
            "chunks": self.chunks,
            "evidence": self.evidence,
            "draft_answer": extractive_answer(self),
        })
    }
}

/// A chunk's text with each sentence prefixed by its `[id]`.
pub fn mark_sentences(p: &Passage) -> String {
    let mut out = String::new();
    for s in &p.sentences {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push('[');
        out.push_str(&s.id);
        out.push_str("] ");
        out.push_str(s.text.trim());
    }
    out
}

/// Words the heuristic skips besides `rlmkg-text`'s stop words: `year` ("what
/// year …" says what is asked for, not what it is about).
const EXTRA_STOPWORDS: &[&str] = &["year"];

/// A word the heuristic does not match on: a shared stop word or one of [`EXTRA_STOPWORDS`].
fn is_stopword(w: &str) -> bool {
    rlmkg_text::is_stopword(w) || EXTRA_STOPWORDS.contains(&w)
}

/// Lower-cased content words of `text`, each as its [`rlmkg_text::match_key`].
fn terms(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !is_stopword(w))
        .map(|w| rlmkg_text::match_key(&w))
        .collect()
}

/// Candidate sentence with what it mentions.
#[derive(Debug, Clone)]
struct Candidate {
    ev: Evidence,
    terms: HashSet<String>,
    /// Terms of the sentence before it in the chunk (what "it", "she" refer to).
    context: HashSet<String>,
    lower: String,
    prior: f64,
    /// The first prose sentence of its document (in a document about an
    /// entity, the one that says what it is).
    lead: bool,
}

impl Candidate {
    /// Whether the sentence names one of `names`, itself or, when it opens with a
    /// pronoun, through the sentence before it ("RV Storm Petrel is… She was built…").
    fn refers_back(&self) -> bool {
        self.lower
            .split(|c: char| !c.is_alphanumeric())
            .find(|w| !w.is_empty())
            .is_some_and(rlmkg_text::refers_back)
    }

    fn names_any(&self, names: &[String]) -> bool {
        let refers_back = self.refers_back();
        names.iter().any(|n| {
            let n = n.to_lowercase();
            if self.lower.contains(&n) {
                return true;
            }
            let words = terms(&n);
            refers_back && !words.is_empty() && words.iter().all(|w| self.context.contains(w))
        })
    }
}

/// Find evidence for `question` in the store: question entities and BM25 hits,
/// graph expansion (neighbors, paths, personalized PageRank), then a greedy
/// choice of sentences that cover the question and link through a bridge entity.
pub fn explore<C: Corpus + ?Sized>(
    store: &C,
    question: &Question,
    opts: &ExploreOptions,
) -> Result<Exploration, C::Error> {
    let qterms = question.terms();
    let qlower = question.lower();
    let (q_entities, q_infos) = question_entities(store, question)?;
    // Comparison questions: one sentence about each compared item.
    let wanted = question.answer_type();
    let items = compare::items(question, &q_infos);
    if items.len() >= 2 {
        let cmp = compare::Comparison { question, items };
        if let Some(evidence) = cmp.evidence(store)? {
            return Ok(Exploration {
                question: question.text().to_owned(),
                question_entities: q_entities.into_iter().map(|(_, n, _)| n).collect(),
                bridges: Vec::new(),
                chunks: evidence.iter().map(|e| e.chunk.clone()).collect(),
                evidence,
            });
        }
    }

    let seeds: Vec<String> = q_entities.iter().map(|(id, _, _)| id.clone()).collect();
    let (mut chunk_prior, order) = question_chunks(store, question, &seeds, opts)?;

    let mut candidates = collect_sentences(store, &order, &chunk_prior)?;
    let weights = Weights::of(qterms, &candidates, &q_entities);
    let weight = |t: &String| weights.weight(t);
    let name_terms = &weights.name_terms;
    let mut evidence: Vec<Evidence> = Vec::new();
    let mut covered: HashSet<String> = HashSet::new();
    let mut bridges: Vec<String> = Vec::new();
    let mut hop = hops::Hops::of(question.words(), name_terms);
    let first = best(&candidates, |c| weights.first_hop(c, &q_entities, &hop));
    let Some(first) = first else {
        return Ok(Exploration {
            question: question.text().to_owned(),
            question_entities: q_entities.into_iter().map(|(_, n, _)| n).collect(),
            bridges,
            chunks: order,
            evidence,
        });
    };
    let mut chosen = candidates.remove(first);
    loop {
        covered.extend(chosen.terms.iter().filter(|t| qterms.contains(*t)).cloned());
        hop.cover(&chosen.lower);
        let new_bridges = bridges_of(store, &chosen, qlower, &bridges, &hop)?;
        let answered = hop.all_covered() && has_answer(store, &chosen, wanted, qlower, &[]);
        evidence.push(chosen.ev.clone());
        if evidence.len() >= opts.evidence || new_bridges.is_empty() || answered {
            break;
        }
        let more = bridge_chunks(store, &new_bridges, &mut chunk_prior)?;
        candidates.extend(collect_sentences(store, &more, &chunk_prior)?);
        let used_docs: HashSet<String> = evidence.iter().map(|e| e.path.clone()).collect();
        let bridge_names: Vec<String> = new_bridges
            .iter()
            .flat_map(|b| b.names.iter().cloned())
            .collect();
        // Next hop: about a bridge (the better it fits the question, the better),
        // covers what the question still asks, names an answer of the asked type.
        let answer_noun = hop.answer_noun().map(rlmkg_text::match_key);
        let next = best(&candidates, |c| {
            let Some(fit) = new_bridges
                .iter()
                .filter_map(|b| b.reached_by(c))
                .reduce(f64::max)
            else {
                return f64::NEG_INFINITY;
            };
            let fresh = c.terms.iter().filter(|t| {
                qterms.contains(*t)
                    && !covered.contains(*t)
                    && !name_terms.contains(*t)
                    && Some(t.as_str()) != answer_noun.as_deref()
            });
            let fresh: f64 = fresh.map(weight).sum();
            let fresh_relations = hop.fresh_fit(&c.lower);
            let other_doc = if used_docs.contains(&c.ev.path) {
                0.0
            } else {
                1.0
            };
            let typed = if has_answer(store, c, wanted, qlower, &bridge_names) {
                2.0
            } else {
                0.0
            };
            // A hop brings what the question asks that the chain lacks: its
            // words, or (the first time) an answer of the asked type.
            let brings = if evidence.len() < 2 {
                fresh > 0.0 || fresh_relations > 0.0 || typed > 0.0
            } else {
                fresh_relations > 0.0
            };
            if !brings {
                return f64::NEG_INFINITY;
            }
            2.0 * fresh
                + c.terms.intersection(qterms).map(weight).sum::<f64>() * 0.5
                + 1.5 * fresh_relations
                + other_doc
                + typed
                + c.prior
                + 3.0 * fit
        });
        match next {
            Some(i) => chosen = candidates.remove(i),
            None => break,
        }
        for b in &new_bridges {
            if b.reached_by(&chosen).is_some() && !bridges.contains(&b.names[0]) {
                bridges.push(b.names[0].clone());
            }
        }
    }

    Ok(Exploration {
        question: question.text().to_owned(),
        question_entities: q_entities.into_iter().map(|(_, n, _)| n).collect(),
        bridges,
        chunks: order,
        evidence,
    })
}

/// How much a question's term counts in a sentence.
struct Weights<'q> {
    /// The question's terms.
    qterms: &'q HashSet<String>,
    /// Each term's inverse frequency among the first candidates: rare
    /// question words say more than words every candidate shares.
    idf: std::collections::HashMap<String, f64>,
    /// The terms of the names of the question's entities.
    name_terms: HashSet<String>,
}

impl<'q> Weights<'q> {
    fn of(
        qterms: &'q HashSet<String>,
        candidates: &[Candidate],
        q_entities: &[QuestionEntity],
    ) -> Self {
        let n = candidates.len().max(1) as f64;
        let idf = qterms
            .iter()
            .map(|t| {
                let df = candidates.iter().filter(|c| c.terms.contains(t)).count() as f64;
                (t.clone(), (1.0 + n / (1.0 + df)).ln())
            })
            .collect();
        let name_terms = q_entities
            .iter()
            .flat_map(|(_, _, names)| names.iter().flat_map(|n| terms(n)))
            .collect();
        Self {
            qterms,
            idf,
            name_terms,
        }
    }

    fn weight(&self, t: &String) -> f64 {
        self.idf.get(t).copied().unwrap_or(0.0)
    }

    /// A term's weight on the first hop: words of the question's names
    /// count little (naming the entity is rewarded once, in
    /// [`Weights::first_hop`]); the relation words ("founder", "published",
    /// "born") decide.
    fn hop1_weight(&self, t: &String) -> f64 {
        if self.name_terms.contains(t) {
            0.3 * self.weight(t)
        } else {
            self.weight(t)
        }
    }

    /// The score of `c` as the first hop: the sentence that best covers the
    /// question, naming its entities (`q_entities`) and saying its relations
    /// (`hop`).
    fn first_hop(&self, c: &Candidate, q_entities: &[QuestionEntity], hop: &hops::Hops) -> f64 {
        let qterms = self.qterms;
        // A sentence opening with a pronoun is about what the sentence before named.
        let context_share = if c.refers_back() { 1.0 } else { 0.5 };
        let overlap: f64 = c
            .terms
            .intersection(qterms)
            .map(|t| self.hop1_weight(t))
            .sum::<f64>()
            + context_share
                * c.context
                    .iter()
                    .filter(|t| qterms.contains(*t) && !c.terms.contains(*t))
                    .map(|t| self.hop1_weight(t))
                    .sum::<f64>();
        let in_title = |names: &[String]| {
            names.iter().any(|n| {
                let n = n.to_lowercase();
                n.len() > 2 && c.ev.title.to_lowercase().contains(&n)
            })
        };
        let ent: f64 = q_entities
            .iter()
            .map(|(_, _, names)| {
                if c.names_any(names) {
                    1.5
                } else if in_title(names) {
                    1.0 // in a document whose title names it
                } else {
                    0.0
                }
            })
            .sum();
        // The first hop starts at what the question names: a sentence about
        // none of its entities only shares words with it.
        let anchored = q_entities
            .iter()
            .any(|(_, _, names)| c.names_any(names) || in_title(names));
        let anchor = if q_entities.is_empty() || anchored {
            1.0
        } else {
            0.5
        };
        anchor * (overlap + 0.5 * hop.relation_fit(&c.lower)) + ent + c.prior
    }
}

/// An entity the question names: its id, its name, and its names (the name
/// and its aliases).
type QuestionEntity = (String, String, Vec<String>);

/// The entities `question` names (the store's matches for its text and its
/// capitalized runs, kept when the question writes one of their names as a
/// name), once each, with their records.
fn question_entities<C: Corpus + ?Sized>(
    store: &C,
    question: &Question,
) -> Result<(Vec<QuestionEntity>, Vec<EntityInfo>), C::Error> {
    let mut q_entities: Vec<QuestionEntity> = Vec::new();
    let mut q_found = store.entities(question.text(), 12)?;
    q_found.extend(named_in(store, question.text())?);
    let mut q_infos: Vec<EntityInfo> = Vec::new();
    for e in q_found {
        if q_entities.iter().any(|(id, _, _)| *id == e.id) {
            continue;
        }
        let names: Vec<String> = std::iter::once(e.name.clone())
            .chain(e.aliases.clone())
            .collect();
        if names.iter().any(|n| n.len() > 2 && question.writes_name(n)) {
            q_entities.push((e.id.clone(), e.name.clone(), names));
            q_infos.push(e);
        }
    }
    Ok((q_entities, q_infos))
}

/// Chunks (by id) with their priors.
type ChunkPriors = BTreeMap<String, f64>;

/// The chunks to look in for `question`: BM25 hits, graph-ranked chunks of
/// its entities (`seeds`), and the evidence of paths between them, each
/// with its best prior, and in the order first found.
fn question_chunks<C: Corpus + ?Sized>(
    store: &C,
    question: &Question,
    seeds: &[String],
    opts: &ExploreOptions,
) -> Result<(ChunkPriors, Vec<String>), C::Error> {
    let mut chunk_prior = ChunkPriors::new();
    let mut order: Vec<String> = Vec::new();
    let mut add = |chunk: &str, prior: f64, order: &mut Vec<String>| {
        let e = chunk_prior.entry(chunk.to_owned()).or_insert_with(|| {
            order.push(chunk.to_owned());
            0.0
        });
        *e = e.max(prior);
    };
    for (rank, hit) in store
        .search(question.text(), opts.search_k)?
        .iter()
        .enumerate()
    {
        add(&hit.id.to_string(), 1.0 / (1.0 + rank as f64), &mut order);
    }
    for (rank, c) in store
        .related(seeds, Some(question.text()), opts.related_k)?
        .iter()
        .enumerate()
    {
        add(&c.id.to_string(), 0.8 / (1.0 + rank as f64), &mut order);
    }
    for (i, a) in seeds.iter().enumerate() {
        for b in seeds.iter().skip(i + 1) {
            for path in store.path(a, b, 3).unwrap_or_default().iter().take(3) {
                for step in &path.steps {
                    for chunk in &step.evidence {
                        add(&chunk.to_string(), 0.5, &mut order);
                    }
                }
            }
        }
    }
    Ok((chunk_prior, order))
}

/// Bridge entities: named in the `chosen` sentence, not in the question
/// (`qlower`) nor among the `bridges` so far, each with how well the
/// question's relation words (`hop`) point at it.
fn bridges_of<C: Corpus + ?Sized>(
    store: &C,
    chosen: &Candidate,
    qlower: &str,
    bridges: &[String],
    hop: &hops::Hops,
) -> Result<Vec<Bridge>, C::Error> {
    let mut new_bridges: Vec<Bridge> = Vec::new();
    for e in mentioned(store, &chosen.ev.chunk, &chosen.ev.text)? {
        let names: Vec<String> = std::iter::once(e.name.clone())
            .chain(e.aliases.clone())
            .collect();
        let in_question = names.iter().any(|n| qlower.contains(&n.to_lowercase()));
        // A date or number names no entity a next hop could be about.
        let datum = matches!(e.kind.as_str(), "date" | "number");
        if !in_question && !datum && !bridges.contains(&e.name) {
            let fit = hop.bridge_fit(&chosen.lower, &names, &e.kind);
            new_bridges.push(Bridge {
                id: e.id.clone(),
                names,
                fit,
            });
        }
    }
    Ok(new_bridges)
}

/// The chunks about `bridges` not looked in yet (their own documents
/// first, then their search hits), entered in `chunk_prior` with a low prior.
fn bridge_chunks<C: Corpus + ?Sized>(
    store: &C,
    bridges: &[Bridge],
    chunk_prior: &mut BTreeMap<String, f64>,
) -> Result<Vec<String>, C::Error> {
    let mut more: Vec<String> = Vec::new();
    for b in bridges {
        for chunk in store.chunks_of_entity(&b.id)?.into_iter().take(40) {
            let chunk = chunk.to_string();
            if !chunk_prior.contains_key(&chunk) {
                chunk_prior.insert(chunk.clone(), 0.3);
                more.push(chunk);
            }
        }
        for hit in store.search(&b.names[0], 5)? {
            let id = hit.id.to_string();
            if !chunk_prior.contains_key(&id) {
                chunk_prior.insert(id.clone(), 0.3);
                more.push(id);
            }
        }
    }
    Ok(more)
}

/// An entity the chosen evidence names that the question does not: where the
/// next hop may go.
struct Bridge {
    id: String,
    names: Vec<String>,
    /// How well the question's relation and type words point at it (0 to ~2).
    fit: f64,
}

impl Bridge {
    /// The bridge's fit when `c` is about it (names it, or lies in its own
    /// document, which counts more), else `None`.
    fn reached_by(&self, c: &Candidate) -> Option<f64> {
        let title = short::strip_parenthetical(&c.ev.title).to_lowercase();
        let own_doc = self
            .names
            .iter()
            .any(|n| n.len() > 2 && title.contains(&n.to_lowercase()));
        if own_doc {
            Some(self.fit + if c.lead { 0.7 } else { 0.5 })
        } else if c.names_any(&self.names) {
            Some(self.fit)
        } else {
            None
        }
    }
}

/// Entities the store knows that `text` names: those its chunk mentions, and
/// those whose name or alias is a run of capitalized words of the text (found by
/// name, so that a chunk whose extraction merged "Dr. Mara Ellison for The Salt
/// Atlas" into one mention still names "Mara Ellison" and "The Salt Atlas").
fn mentioned<C: Corpus + ?Sized>(
    store: &C,
    chunk: &str,
    text: &str,
) -> Result<Vec<EntityInfo>, C::Error> {
    let lower = text.to_lowercase();
    let Ok(chunk) = chunk.parse() else {
        return Ok(Vec::new());
    };
    let mut out: Vec<EntityInfo> = store
        .entities_of_chunk(chunk)?
        .into_iter()
        .filter(|e| {
            std::iter::once(&e.name)
                .chain(&e.aliases)
                .any(|n| n.len() > 2 && lower.contains(&n.to_lowercase()))
        })
        .collect();
    for e in named_in(store, text)? {
        if !out.iter().any(|o| o.id == e.id) {
            out.push(e);
        }
    }
    Ok(out)
}

/// Entities whose name or alias is a run of up to five words of `text` that
/// starts and ends with a capitalized word (or a number).
fn named_in<C: Corpus + ?Sized>(store: &C, text: &str) -> Result<Vec<EntityInfo>, C::Error> {
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '\'' | '-' | '.' | '&')))
        .map(|w| {
            let w = w.strip_suffix("'s").unwrap_or(w);
            w.trim_matches(['.', '\''])
        })
        .filter(|w| !w.is_empty())
        .collect();
    let cap = |w: &str| {
        w.chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
    };
    let mut out: Vec<EntityInfo> = Vec::new();
    for i in 0..words.len() {
        if !cap(words[i]) {
            continue;
        }
        for j in i..words.len().min(i + 5) {
            if !cap(words[j]) {
                continue;
            }
            let name = words[i..=j].join(" ");
            if name.len() < 3 {
                continue;
            }
            if let Some(e) = store.entity(&name)?
                && !out.iter().any(|o| o.id == e.id)
            {
                out.push(e);
            }
        }
    }
    Ok(out)
}

fn best(cands: &[Candidate], score: impl Fn(&Candidate) -> f64) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, c) in cands.iter().enumerate() {
        let s = score(c);
        if s.is_finite() && s > 0.0 && best.is_none_or(|(_, b)| s > b) {
            best = Some((i, s));
        }
    }
    best.map(|(i, _)| i)
}

fn collect_sentences<C: Corpus + ?Sized>(
    store: &C,
    chunks: &[String],
    prior: &BTreeMap<String, f64>,
) -> Result<Vec<Candidate>, C::Error> {
    let mut out = Vec::new();
    for chunk in chunks {
        let Ok(p) = store.read(chunk) else { continue };
        let prior = prior.get(chunk).copied().unwrap_or(0.0);
        let mut previous: HashSet<String> = HashSet::new();
        // Only the document's first chunk has its lead sentence.
        let mut first = store
            .chunk_ids_of_doc(&p.doc.id)
            .is_ok_and(|ids| ids.first() == Some(&p.chunk));
        for s in &p.sentences {
            let text = s.text.trim();
            let own: HashSet<String> = terms(text).into_iter().collect();
            let context = std::mem::replace(&mut previous, own.clone());
            let words = text.split_whitespace().count();
            let ends_like_prose = text.ends_with(['.', '!', '?', '"', '\u{201d}', ')', '\'']);
            if text.starts_with('#') || words < 4 || (!ends_like_prose && words < 10) {
                continue; // headings and fragments carry no claim
            }
            let lead = std::mem::replace(&mut first, false);
            out.push(Candidate {
                lead,
                context,
                terms: own,
                lower: s.text.to_lowercase(),
                prior,
                ev: Evidence {
                    id: s.id.clone(),
                    chunk: p.chunk.to_string(),
                    title: p.doc.title.clone(),
                    path: p.doc.path.clone(),
                    text: s.text.trim().to_owned(),
                    score: prior,
                    about: None,
                },
            });
        }
    }
    Ok(out)
}

/// The extractive answer: the evidence sentences, each with its citation. The
/// caller labels it as extractive (`Method::Extractive`); the label is kept out of
/// the text so that every sentence of the text is a checkable claim.
pub fn extractive_answer(x: &Exploration) -> String {
    if x.evidence.is_empty() {
        return String::new();
    }
    let body: Vec<String> = x
        .evidence
        .iter()
        .map(|e| {
            let text = e.text.trim_end_matches(['.', ' ']);
            format!("{text} [{}].", e.id)
        })
        .collect();
    body.join(" ")
}

/// The answer type of the question and the short answer the evidence carries
/// (SPEC §7.3), from the typed mentions of each evidence chunk.
pub fn short_answer<C: Corpus + ?Sized>(
    store: &C,
    question: &Question,
    x: &Exploration,
) -> (short::AnswerType, Option<short::ShortAnswer>) {
    let kind = question.answer_type().clone();
    let mut by_chunk: BTreeMap<&str, Vec<short::Mention>> = BTreeMap::new();
    for e in &x.evidence {
        by_chunk.entry(e.chunk.as_str()).or_insert_with(|| {
            e.chunk
                .parse()
                .map_or_else(|_| Ok(Vec::new()), |c| store.entities_of_chunk(c))
                .unwrap_or_default()
                .into_iter()
                .map(|info| short::Mention {
                    names: std::iter::once(info.name).chain(info.aliases).collect(),
                    kind: info.kind,
                })
                .collect()
        });
    }
    let sentences: Vec<short::EvidenceSentence<'_>> = x
        .evidence
        .iter()
        .map(|e| short::EvidenceSentence {
            id: &e.id,
            text: &e.text,
            mentions: by_chunk.get(e.chunk.as_str()).cloned().unwrap_or_default(),
            about: e.about.as_deref(),
        })
        .collect();
    let picked = short::pick(question, &sentences);
    (kind, picked)
}

/// The answer text opening with the short answer (cited), then the evidence.
pub fn answer_with_short(short: &short::ShortAnswer, x: &Exploration) -> String {
    let opening = match short.kind {
        short::AnswerType::YesNo => {
            let sentence = x
                .evidence
                .iter()
                .find(|e| e.id == short.citation)
                .map(|e| e.text.trim_end_matches(['.', ' ']).to_owned())
                .unwrap_or_default();
            let yes = if short.text == "yes" { "Yes" } else { "No" };
            format!("{yes}: {sentence} [{}].", short.citation)
        }
        _ => format!("{} [{}].", short.text.trim_end_matches('.'), short.citation),
    };
    let rest = extractive_answer(x);
    if rest.is_empty() {
        opening
    } else {
        format!("{opening}\n\n{rest}")
    }
}

/// Whether sentence `c` names an answer of the asked type that neither the
/// question nor `exclude` (the bridges that led here) names: a date, a number,
/// or a typed entity of its chunk named in the sentence.
fn has_answer<C: Corpus + ?Sized>(
    store: &C,
    c: &Candidate,
    wanted: &short::AnswerType,
    qlower: &str,
    exclude: &[String],
) -> bool {
    use short::AnswerType;
    match wanted {
        AnswerType::Date => return !short::dates(&c.ev.text).is_empty(),
        AnswerType::Number => return !short::numbers(&c.ev.text).is_empty(),
        AnswerType::YesNo | AnswerType::Choice(_) => return false,
        _ => {}
    }
    // The asked kind itself: a place question is not answered by an "other".
    let kinds = match wanted {
        AnswerType::Name => short::kinds_for(wanted),
        _ => short::kinds_for(wanted).get(..1).unwrap_or_default(),
    };
    let excluded = |n: &str| exclude.iter().any(|x| x.to_lowercase() == n);
    mentioned(store, &c.ev.chunk, &c.ev.text).is_ok_and(|es| {
        es.iter().any(|e| {
            kinds.contains(&e.kind.as_str())
                && std::iter::once(&e.name).chain(&e.aliases).any(|n| {
                    let n = n.to_lowercase();
                    n.len() > 2 && c.lower.contains(&n) && !qlower.contains(&n) && !excluded(&n)
                })
        })
    })
}

/// What [`cite_from_evidence`] changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CiteRepair {
    /// Uncited claims that got citations.
    pub cited: usize,
    /// Cited claims that were partial or worse and got the missing citations.
    pub repaired: usize,
}

/// Cite, from the evidence the engine holds, the claims of a composed answer that
/// lack what supports them (SPEC §7.3 "evidence repair").
///
/// Small models restate the evidence correctly but drop ids, or cite only the
/// sentence of the last fact. For each claim that is uncited, or cited but not
/// supported, this tries every evidence sentence, then every pair, added to the
/// claim's own citations, and attaches the smallest set with which the checker
/// finds the claim supported (best score first). A claim no such set supports is
/// left alone, so the final check still decides and marks it.
pub fn cite_from_evidence(
    text: &str,
    evidence: &[Evidence],
    source: &dyn rlmkg_citation::SpanSource,
    opts: &rlmkg_citation::CheckOptions,
) -> Result<(String, CiteRepair), rlmkg_citation::SourceError> {
    repair_citations(text, evidence, source, opts, true)
}

/// [`cite_from_evidence`] for the claims that cite something only: a claim
/// its writer left uncited stays uncited (an answer a model was led to by
/// text in the corpus must not gain a citation to that text).
pub fn complete_citations(
    text: &str,
    evidence: &[Evidence],
    source: &dyn rlmkg_citation::SpanSource,
    opts: &rlmkg_citation::CheckOptions,
) -> Result<(String, CiteRepair), rlmkg_citation::SourceError> {
    repair_citations(text, evidence, source, opts, false)
}

fn repair_citations(
    text: &str,
    evidence: &[Evidence],
    source: &dyn rlmkg_citation::SpanSource,
    opts: &rlmkg_citation::CheckOptions,
    cite_uncited: bool,
) -> Result<(String, CiteRepair), rlmkg_citation::SourceError> {
    use rlmkg_citation::Verdict;
    let report = rlmkg_citation::check(text, source, opts)?;
    let ids: Vec<&str> = evidence.iter().map(|e| e.id.as_str()).collect();
    let mut sets: Vec<Vec<&str>> = ids.iter().map(|i| vec![*i]).collect();
    for a in 0..ids.len() {
        for b in a + 1..ids.len() {
            sets.push(vec![ids[a], ids[b]]);
        }
    }
    let mut inserts: Vec<(usize, String)> = Vec::new();
    let mut done = CiteRepair::default();
    for claim in &report.claims {
        let uncited = cite_uncited && claim.verdict == Verdict::Uncited;
        let failing = matches!(
            claim.verdict,
            Verdict::Partial | Verdict::Unsupported | Verdict::Overreach
        ) && !claim.citations.is_empty();
        if !uncited && !failing {
            continue;
        }
        let own: Vec<String> = claim
            .citations
            .iter()
            .filter_map(|c| c.id.clone())
            .collect();
        let own_marks: String = own.iter().map(|id| format!(" [{id}]")).collect();
        let body = claim.text.trim().trim_end_matches(['.', '!', ';', ',']);
        let mut best: Option<(f64, usize)> = None;
        for (i, set) in sets.iter().enumerate() {
            if best.is_some_and(|(_, b)| sets[b].len() < set.len()) {
                break;
            }
            if set.iter().all(|id| own.iter().any(|o| o == id)) {
                continue;
            }
            let marks: String = set.iter().map(|id| format!(" [{id}]")).collect();
            let r = rlmkg_citation::check(&format!("{body}{own_marks}{marks}."), source, opts)?;
            if let [one] = r.claims.as_slice()
                && one.verdict == Verdict::Supported
                && best.is_none_or(|(score, _)| one.score > score)
            {
                best = Some((one.score, i));
            }
        }
        if let Some((_, i)) = best {
            let Some(at) = citation_point(text, claim.span) else {
                continue;
            };
            let marks: String = sets[i]
                .iter()
                .filter(|id| !own.iter().any(|o| o == *id))
                .map(|id| format!(" [{id}]"))
                .collect();
            inserts.push((at, marks));
            if uncited {
                done.cited += 1;
            } else {
                done.repaired += 1;
            }
        }
    }
    Ok((insert_marks(text, inserts), done))
}

/// Where a citation of the claim at `span` (a byte range of `text`, as the
/// checker reports it) is written: after its last word, before its closing
/// punctuation, as writers are asked to. `None` for a span not in `text`.
pub fn citation_point(text: &str, span: (usize, usize)) -> Option<usize> {
    let claim = text.get(span.0..span.1)?;
    Some(
        span.0
            + claim
                .trim_end()
                .trim_end_matches(['.', '!', ';', ','])
                .len(),
    )
}

/// `text` with each `(at, marks)` written at byte position `at` of `text`
/// (positions in any order; one inside a character is skipped).
pub fn insert_marks(text: &str, mut inserts: Vec<(usize, String)>) -> String {
    let mut out = text.to_owned();
    inserts.sort_by_key(|(at, _)| *at);
    for (at, marks) in inserts.into_iter().rev() {
        if out.is_char_boundary(at) {
            out.insert_str(at, &marks);
        }
    }
    out
}

/// Names in the question (capitalized runs after its first word) with a word
/// that the corpus never contains (no chunk text or title matches it): what the
/// question is about but the sources do not carry.
pub fn unmatched_names<C: Corpus + ?Sized>(store: &C, question: &Question) -> Vec<String> {
    let absent = |w: &str| store.search(w, 1).is_ok_and(|hits| hits.is_empty());
    question
        .names()
        .iter()
        .filter(|name| {
            name.split(|c: char| !c.is_alphanumeric())
                .map(str::to_lowercase)
                .filter(|w| w.chars().count() >= 2 && !is_stopword(w))
                .any(|w| absent(&w))
        })
        .cloned()
        .collect()
}

/// A composed reply split into its short answer line and its explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Composed {
    /// The short answer as written (citations kept), if the reply had one.
    pub short: Option<String>,
    /// The model said the evidence does not answer.
    pub not_found: bool,
    /// The explanation (or the whole reply when it did not follow the form).
    pub explanation: String,
}

/// Split a composed reply: "Short answer: X [id]" and "Explanation: …" lines,
/// labels case-insensitive and optional markdown bold; anything else is explanation.
pub fn parse_composed(reply: &str) -> Composed {
    let mut short = None;
    let mut rest: Vec<&str> = Vec::new();
    // Code a model wrote instead of prose (a fenced block and what is inside
    // it) is no part of an answer.
    let mut in_code = false;
    for line in reply.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let t = line.trim().trim_start_matches(['*', '#', '-', ' ']);
        let lower = t.to_ascii_lowercase();
        let label = ["short answer:", "answer:"]
            .iter()
            .find(|l| lower.starts_with(*l))
            .map(|l| l.len());
        if let (None, Some(n)) = (&short, label) {
            let value = t
                .get(n..)
                .unwrap_or("")
                .trim()
                .trim_start_matches(['*', ' ']);
            short = Some(value.to_owned());
            continue;
        }
        let body = if lower.starts_with("explanation:") {
            t.get("explanation:".len()..).unwrap_or("").trim()
        } else {
            line.trim()
        };
        if !body.is_empty() {
            rest.push(body);
        }
    }
    let not_found = short.as_deref().is_some_and(|s| {
        let l = s.to_ascii_lowercase();
        l.starts_with("not found") || l.starts_with("unknown") || l.starts_with("n/a")
    });
    Composed {
        short: short.filter(|s| !s.trim().is_empty() && !not_found),
        not_found,
        explanation: rest.join(" "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composed_replies_lose_the_code_a_model_wrote_into_them() {
        let c = parse_composed(
            "Short answer: Tromsø [c4.s1]\nIt lies in Tromsø [c4.s1].\n```repl\nprint(context.search(\"x\"))\n```\n",
        );
        assert_eq!(c.short.as_deref(), Some("Tromsø [c4.s1]"));
        assert_eq!(c.explanation, "It lies in Tromsø [c4.s1].");
    }
}
