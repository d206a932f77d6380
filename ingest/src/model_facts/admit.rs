//! The evidence check of proposed facts: a fact is kept only when its
//! sentence says both ends (the subject may be the passage's subject said
//! by a pronoun) and the relation, and then joins the rules' facts.

use std::collections::{HashMap, HashSet};

use rlmkg_graph::{EntityDecl, Predicate, entity_key};
use rlmkg_text::{NAME_JOINERS, PRONOUNS, date_at, is_stopword, is_year, match_key};

use super::{ModelFactStats, ProposedFact};
use crate::extract::{LocalEvidence, LocalMention, LocalRelation};
use crate::pipeline::PDoc;

/// Longest name or relation a proposal may give, in bytes.
const MAX_NAME_BYTES: usize = 120;
/// Most words of a relation outside the vocabulary ("sailed aboard").
const MAX_PHRASE_WORDS: usize = 4;

/// The proposals read from one chunk of a document: the chunk's number,
/// its sentences (byte spans of the document's text) and the facts.
pub(crate) struct ChunkReading<'a> {
    /// The chunk's number in its document.
    pub chunk: usize,
    /// Its sentences, as byte spans of the document's text.
    pub sentences: &'a [(usize, usize)],
    /// The facts proposed for it.
    pub proposals: &'a [ProposedFact],
}

/// Adds to `doc`'s facts those of `readings` that pass the evidence check,
/// counting in `stats`.
pub(crate) fn admit(doc: &mut PDoc, readings: &[ChunkReading<'_>], stats: &mut ModelFactStats) {
    let mut known = Known::of(doc);
    for r in readings {
        // Each sentence's words, read once for all the chunk's proposals.
        let words: Vec<HashSet<String>> = r
            .sentences
            .iter()
            .map(|&(a, b)| words_of(doc.text.get(a..b).unwrap_or("")))
            .collect();
        for p in r.proposals {
            stats.proposed += 1;
            match check(doc, &known, r.chunk, r.sentences, &words, p) {
                Err(reason) => stats.drop_for(reason),
                Ok(facts) => {
                    for fact in facts {
                        if add(doc, &mut known, fact) {
                            stats.added += 1;
                        } else {
                            stats.known += 1;
                        }
                    }
                }
            }
        }
    }
}

/// What a document holds already, for lookups in constant time.
struct Known {
    /// An entity's index by its key and by its aliases' keys.
    entities: HashMap<String, usize>,
    /// (subject, object, label) of every relation.
    relations: HashSet<(String, String, String)>,
    /// (entity, start) of every mention.
    mentions: HashSet<(String, u64)>,
}

impl Known {
    fn of(doc: &PDoc) -> Self {
        let ex = &doc.extraction;
        let mut entities = HashMap::new();
        for (i, e) in ex.entities.iter().enumerate() {
            for a in &e.aliases {
                entities.entry(entity_key(a)).or_insert(i);
            }
        }
        for (i, e) in ex.entities.iter().enumerate() {
            entities.insert(e.key.clone(), i);
        }
        Self {
            entities,
            relations: ex
                .relations
                .iter()
                .map(|r| (r.subject.clone(), r.object.clone(), r.label.clone()))
                .collect(),
            mentions: ex
                .mentions
                .iter()
                .map(|m| (m.entity.clone(), m.start))
                .collect(),
        }
    }
}

/// One end of a fact as the sentence gives it.
struct End {
    key: String,
    name: String,
    kind: &'static str,
    /// Where the sentence names it (none for a subject said by a pronoun).
    span: Option<(usize, usize)>,
}

/// A fact that passed the check.
struct Checked {
    subject: End,
    object: End,
    label: String,
    chunk: usize,
    sentence: (usize, usize),
}

fn check(
    doc: &PDoc,
    known: &Known,
    chunk: usize,
    sentences: &[(usize, usize)],
    words: &[HashSet<String>],
    p: &ProposedFact,
) -> Result<Vec<Checked>, &'static str> {
    let given = p
        .sentence
        .checked_sub(1)
        .filter(|&i| i < sentences.len())
        .ok_or("no such sentence")?;
    if [p.subject.trim(), p.object.trim(), p.relation.trim()]
        .iter()
        .any(|s| s.is_empty() || s.len() > MAX_NAME_BYTES)
    {
        return Err("an empty or over-long field");
    }
    // The sentence given first, then the passage's others: a small model
    // miscounts, and the evidence is whichever sentence holds the fact.
    let order = std::iter::once(given).chain((0..sentences.len()).filter(|&i| i != given));
    let mut first_error = None;
    for i in order {
        let (Some(&span), Some(words)) = (sentences.get(i), words.get(i)) else {
            continue;
        };
        match check_in(doc, known, chunk, span, words, p) {
            Ok(facts) => return Ok(facts),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or("no such sentence"))
}

/// [`check`] against the sentence at `s0..s1` of the document's text,
/// whose words ([`words_of`]) are `words`.
fn check_in(
    doc: &PDoc,
    known: &Known,
    chunk: usize,
    (s0, s1): (usize, usize),
    words: &HashSet<String>,
    p: &ProposedFact,
) -> Result<Vec<Checked>, &'static str> {
    let sentence = doc.text.get(s0..s1).ok_or("no such sentence")?;
    let (mut label, reversed, said) = relation(&p.relation, words)?;
    let (subject, object) = (p.subject.trim(), p.object.trim());
    let (subject, object) = if reversed {
        (object, subject)
    } else {
        (subject, object)
    };
    let date = is_date(object);
    match Predicate::parse(&label) {
        Some((p, _)) if p.literal_object() && !date => {
            return Err("a date relation without a date");
        }
        // "born in | 1908" is a date of birth, as the rules read it.
        Some((p, _)) if !p.literal_object() && date => {
            let q = crate::asked::date_predicate_of(p).ok_or("a date where a thing is asked")?;
            label = q.label().to_owned();
        }
        _ => {}
    }
    // Each end is named by the sentence (whole, or the names of a list the
    // model wrote as one), or is the passage's subject said by a pronoun
    // ("It was founded by X"); one end at least is named.
    let subjects = named_in(doc, sentence, known, subject, false);
    let objects = named_in(doc, sentence, known, object, true);
    if subjects.is_empty()
        || objects.is_empty()
        || subjects
            .iter()
            .chain(&objects)
            .all(|(_, span)| span.is_none())
    {
        return Err("an end the sentence does not name");
    }
    // "a town in Vesland" says where the town is without the word
    // "located".
    let located = label == Predicate::LocatedIn.label()
        && objects
            .iter()
            .any(|(_, span)| span.is_some_and(|(a, _)| after_location_word(sentence, a)));
    if !said && !located {
        return Err("a relation the sentence does not say");
    }
    let at = |(a, b): (usize, usize)| (s0 + a, s0 + b);
    let kind = if date { "date" } else { "other" };
    let mut out = Vec::new();
    for (s, s_span) in &subjects {
        for (o, o_span) in &objects {
            let subject = end(doc, known, s, "other", s_span.map(at));
            let object = end(doc, known, o, kind, o_span.map(at));
            if subject.key.is_empty() || object.key.is_empty() || subject.key == object.key {
                continue;
            }
            out.push(Checked {
                subject,
                object,
                label: label.clone(),
                chunk,
                sentence: (s0, s1),
            });
        }
    }
    if out.is_empty() {
        return Err("one end twice, or an end with no name");
    }
    Ok(out)
}

/// The match keys of a sentence's words (as the relation's words are read).
fn words_of(sentence: &str) -> HashSet<String> {
    sentence
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| match_key(&w.to_lowercase()))
        .collect()
}

/// Most names one end of a proposal may list, or words one name may have.
const MAX_LISTED: usize = 6;

/// The names `end` gives in `sentence`, each with where the sentence names
/// it (none for the passage's subject said by a pronoun): the whole of it
/// when it is a name the sentence names and no list (or a name the document
/// knows: "Crosby, Stills and Nash"); the passage's subject when `end` is
/// its title, by the name or alias the sentence names ("Laie" for the
/// title "Laie, Hawaii"); with `split`,
/// the names of a list written as one ("Shabana Azmi, Perizaad Zorabian
/// and Prakash Kovelamudi"); else, when `end` is the passage's subject and
/// the sentence says a pronoun, the subject itself.
fn named_in<'a>(
    doc: &'a PDoc,
    sentence: &str,
    known: &Known,
    end: &'a str,
    split: bool,
) -> Vec<(&'a str, Option<(usize, usize)>)> {
    let is_known = known.entities.contains_key(&entity_key(end));
    let listed = end.contains(", ") || end.contains(" and ");
    if (is_known || (!listed && name_like(end)))
        && let Some(span) = find(sentence, end)
    {
        return vec![(end, Some(span))];
    }
    let about = is_about(doc, end)
        .then(|| {
            let &i = known.entities.get(doc.extraction.about.as_deref()?)?;
            doc.extraction.entities.get(i)
        })
        .flatten();
    if let Some(e) = about {
        for name in std::iter::once(&e.name).chain(&e.aliases) {
            if let Some(span) = find(sentence, name) {
                return vec![(name.as_str(), Some(span))];
            }
        }
        if says_a_pronoun(sentence) {
            return vec![(e.name.as_str(), None)];
        }
    }
    if !split {
        return Vec::new();
    }
    end.split(", ")
        .flat_map(|part| part.split(" and "))
        .map(str::trim)
        .filter(|item| name_like(item))
        .filter_map(|item| Some((item, Some(find(sentence, item)?))))
        .take(MAX_LISTED)
        .collect()
}

/// Whether `text` reads as a name or a date: a date by the one date rule,
/// or up to [`MAX_LISTED`] words, each capitalised (or a digit-led word, or
/// a joiner such as "of"), with a letter somewhere ("Honolulu County",
/// "Bank of Norway"; not "the island of Oahu in Honolulu County", "85000").
fn name_like(text: &str) -> bool {
    if is_date(text) {
        return true;
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    !words.is_empty()
        && words.len() <= MAX_LISTED
        && text.chars().any(char::is_alphabetic)
        && words.first().is_some_and(|w| !NAME_JOINERS.contains(w))
        && words.iter().all(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
                || NAME_JOINERS.contains(w)
        })
}

/// The label of a proposed relation, whether it reads from the object's
/// side, and whether the sentence says it: a label of the vocabulary (or
/// its inverse), said when the sentence has a word of it from the lexicon;
/// or a short phrase of the sentence (`other: <phrase>`), said by every
/// content word of it.
fn relation(relation: &str, words: &HashSet<String>) -> Result<(String, bool, bool), &'static str> {
    let rel = relation.trim().to_lowercase();
    let rel = rel.strip_prefix("other:").unwrap_or(&rel).trim();
    let rel = rel.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some((p, reversed)) = Predicate::parse(&rel) {
        let label = p.label();
        let said = crate::predicate_words(label)
            .into_iter()
            .filter(|w| !is_stopword(w))
            .any(|w| words.contains(&match_key(w)));
        return Ok((label.to_owned(), reversed, said));
    }
    let phrase: Vec<&str> = rel.split(' ').collect();
    let plain = phrase.len() <= MAX_PHRASE_WORDS
        && phrase
            .iter()
            .all(|w| !w.is_empty() && w.chars().all(|c| c.is_alphabetic() || c == '-'));
    let content: Vec<&str> = phrase.iter().copied().filter(|w| !is_stopword(w)).collect();
    if !plain || content.is_empty() || !content.iter().all(|w| words.contains(&match_key(w))) {
        return Err("a relation the sentence does not say");
    }
    Ok((format!("other: {rel}"), false, true))
}

/// Whether the word before byte `at` of `sentence` is a preposition of
/// place ("in", "at", "near", "on").
fn after_location_word(sentence: &str, at: usize) -> bool {
    let before = sentence.get(..at).unwrap_or("");
    let last = before
        .trim_end()
        .rsplit(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("")
        .to_lowercase();
    crate::asked::location_prepositions().any(|p| !p.is_empty() && p == last)
}

/// Whether `text` is a date by the one date rule ("1923", "3 June 1923").
fn is_date(text: &str) -> bool {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    is_year(text) || date_at(&words).is_some_and(|d| d.len == words.len())
}

/// Where `name` stands in `sentence` as whole words, case aside.
fn find(sentence: &str, name: &str) -> Option<(usize, usize)> {
    let (hay, needle) = (sentence.to_lowercase(), name.to_lowercase());
    // Lower-casing keeps byte lengths for the text we match on; where it
    // does not, the name is not looked for.
    if hay.len() != sentence.len() || needle.is_empty() {
        return None;
    }
    let boundary = |i: usize| {
        hay.get(..i)
            .and_then(|s| s.chars().next_back())
            .is_none_or(|c| !c.is_alphanumeric())
    };
    let after = |i: usize| {
        hay.get(i..)
            .and_then(|s| s.chars().next())
            .is_none_or(|c| !c.is_alphanumeric())
    };
    hay.match_indices(&needle)
        .map(|(i, m)| (i, i + m.len()))
        .find(|&(a, b)| boundary(a) && after(b))
}

/// Whether `name` is the entity the document is about.
fn is_about(doc: &PDoc, name: &str) -> bool {
    let key = entity_key(name);
    doc.extraction.about.as_deref() == Some(key.as_str()) || entity_key(&doc.title) == key
}

/// Whether the sentence says a pronoun anywhere (it may speak of the
/// passage's subject); not `rlmkg_text::refers_back`, which reads a
/// sentence's opening word.
fn says_a_pronoun(sentence: &str) -> bool {
    sentence
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| PRONOUNS.contains(&w.to_lowercase().as_str()))
}

/// The entity `name` is in `doc` (by its key or an alias's), or a new one
/// of kind `kind`.
fn end(
    doc: &PDoc,
    known: &Known,
    name: &str,
    kind: &'static str,
    span: Option<(usize, usize)>,
) -> End {
    let key = entity_key(name);
    match known
        .entities
        .get(&key)
        .and_then(|&i| doc.extraction.entities.get(i))
    {
        Some(e) => End {
            key: e.key.clone(),
            name: e.name.clone(),
            kind,
            span,
        },
        None => End {
            key,
            name: name.to_owned(),
            kind,
            span,
        },
    }
}

/// Adds a checked fact (and any end the rules did not know, with its
/// mention); false when the document has the fact already.
fn add(doc: &mut PDoc, known: &mut Known, fact: Checked) -> bool {
    let ex = &mut doc.extraction;
    let triple = (
        fact.subject.key.clone(),
        fact.object.key.clone(),
        fact.label.clone(),
    );
    if !known.relations.insert(triple) {
        return false;
    }
    for e in [&fact.subject, &fact.object] {
        if !known.entities.contains_key(&e.key) {
            known.entities.insert(e.key.clone(), ex.entities.len());
            ex.entities.push(EntityDecl {
                key: e.key.clone(),
                name: e.name.clone(),
                kind: e.kind.to_owned(),
                aliases: Vec::new(),
            });
        }
        if let Some((start, end)) = e.span
            && known.mentions.insert((e.key.clone(), start as u64))
        {
            ex.mentions.push(LocalMention {
                entity: e.key.clone(),
                chunk: fact.chunk,
                start: start as u64,
                end: end as u64,
            });
        }
    }
    ex.relations.push(LocalRelation {
        subject: fact.subject.key,
        object: fact.object.key,
        label: fact.label,
        weight: 1.0,
        evidence: vec![LocalEvidence {
            chunk: fact.chunk,
            start: fact.sentence.0 as u64,
            end: fact.sentence.1 as u64,
        }],
    });
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{IngestOptions, prepare_doc};

    /// The fate of one proposal in a passage titled `title`: `added`,
    /// `known` (the rules had it) or the reason it was dropped.
    fn fate(title: &str, text: &str, fact: (&str, &str, &str, usize)) -> String {
        let opts = IngestOptions::default();
        let mut doc = prepare_doc(title.into(), text.into(), "md", Default::default(), &opts);
        let spans = crate::text::sentences(&doc.text, crate::text::SegmentMode::Prose);
        let (subject, relation, object, sentence) = fact;
        let proposals = [ProposedFact {
            subject: subject.into(),
            relation: relation.into(),
            object: object.into(),
            sentence,
        }];
        let readings = [ChunkReading {
            chunk: 0,
            sentences: &spans,
            proposals: &proposals,
        }];
        let mut stats = ModelFactStats::default();
        let before = doc.extraction.relations.len();
        admit(&mut doc, &readings, &mut stats);
        if stats.added >= 1 {
            let added: Vec<String> = doc.extraction.relations[before..]
                .iter()
                .map(|r| {
                    assert!(r.evidence.iter().all(|e| e.chunk == 0));
                    format!("{} | {} | {}", r.subject, r.label, r.object)
                })
                .collect();
            return format!("added {}", added.join("; "));
        }
        if stats.known >= 1 {
            return "known".into();
        }
        stats.dropped.keys().next().cloned().unwrap_or_default()
    }

    /// The cases, with the passages they are read in.
    const CASES: &str = include_str!("cases.txt");

    #[test]
    fn a_fact_stands_only_where_its_sentence_holds_it() {
        let (mut title, mut text, mut fact) = ("", "", None);
        let mut seen = 0;
        for line in CASES
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            if let Some(t) = line.strip_prefix("title: ") {
                title = t;
            } else if let Some(t) = line.strip_prefix("text: ") {
                text = t;
            } else if let Some(want) = line.strip_prefix("-> ") {
                let f: Vec<&str> = fact.take().expect("a fact before `->`");
                let n: usize = f[3].parse().expect("a sentence number");
                let got = fate(title, text, (f[0], f[1], f[2], n));
                assert_eq!(got, want, "{title}: {f:?}");
                seen += 1;
            } else {
                let f: Vec<&str> = line.split(" | ").collect();
                assert_eq!(f.len(), 4, "a fact of four parts: {line}");
                fact = Some(f);
            }
        }
        assert_eq!(seen, 19, "every case of cases.txt is read");
    }

    #[test]
    fn a_list_written_as_one_end_is_its_names_unless_the_document_knows_it() {
        let sentence = "It starred Ola Brenne, Liv Sundgen and Per Haugen in 1950.";
        let doc = prepare_doc(
            "Morning Tide".into(),
            format!("Morning Tide is a film. {sentence}"),
            "md",
            Default::default(),
            &IngestOptions::default(),
        );
        let mut known = Known {
            entities: HashMap::new(),
            relations: HashSet::new(),
            mentions: HashSet::new(),
        };
        let names = |known: &Known, end: &str| -> Vec<String> {
            named_in(&doc, sentence, known, end, true)
                .into_iter()
                .map(|(n, span)| format!("{n}@{}", span.map_or(0, |s| s.0)))
                .collect()
        };
        let listed = "Ola Brenne, Liv Sundgen and Per Haugen";
        assert_eq!(
            names(&known, listed),
            ["Ola Brenne@11", "Liv Sundgen@23", "Per Haugen@39"]
        );
        // Items the sentence does not name, or in lower case, are left out.
        assert_eq!(
            names(&known, "Ola Brenne, the crew and Ivar Lund"),
            ["Ola Brenne@11"]
        );
        known.entities.insert(entity_key(listed), 0);
        assert_eq!(names(&known, listed), [format!("{listed}@11")]);
        assert!(names(&known, "Ivar Lund").is_empty());
    }

    proptest::proptest! {
        /// Whatever a model proposes, the check neither panics nor adds a
        /// fact whose evidence sentence does not name an end of it.
        #[test]
        fn no_proposal_adds_a_fact_its_sentence_does_not_name(
            subject in "[A-Za-zÉé İ'1-9]{0,14}",
            relation in "(born in|founded|sailed from|publisher of|other: [a-z ]{0,12}|[a-zé ]{0,10})",
            object in "[A-Za-zÉé İ'1-9]{0,14}",
            sentence in 0usize..5,
        ) {
            let text = "The Grey Heron was a schooner built in 1898. She sailed from \
                        Wendsund under Ola Brenne. Ola Brenne was born in Kettlesholm.";
            let opts = IngestOptions::default();
            let mut doc = prepare_doc("The Grey Heron".into(), text.into(), "md", Default::default(), &opts);
            let spans = crate::text::sentences(&doc.text, crate::text::SegmentMode::Prose);
            let proposals = [ProposedFact { subject, relation, object, sentence }];
            let readings = [ChunkReading { chunk: 0, sentences: &spans, proposals: &proposals }];
            let before = doc.extraction.relations.len();
            let mut stats = ModelFactStats::default();
            admit(&mut doc, &readings, &mut stats);
            proptest::prop_assert_eq!(stats.proposed, 1);
            proptest::prop_assert!(stats.dropped_total() <= 1);
            proptest::prop_assert!((stats.dropped_total() == 1) != (stats.added + stats.known >= 1));
            for r in &doc.extraction.relations[before..] {
                let e = &r.evidence[0];
                let said = &doc.text[e.start as usize..e.end as usize];
                let names = |key: &str| {
                    doc.extraction.entities.iter().find(|d| d.key == key).map(|d| d.name.to_lowercase())
                };
                let named = [&r.subject, &r.object]
                    .iter()
                    .filter(|k| names(k).is_some_and(|n| said.to_lowercase().contains(&n)))
                    .count();
                proptest::prop_assert!(named >= 1, "{r:?} in {said:?}");
            }
        }
    }
}
