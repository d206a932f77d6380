//! Facts from sentences (issue 43): who did what, with a resolved subject, a
//! predicate of the vocabulary ([`rlmkg_graph::Predicate`]) and an evidence
//! sentence.
//!
//! A sentence is read as clauses (cut at `;`, at commas that open a relative
//! clause, an apposition or a participle, at "and" before a verb, at
//! parentheses). Each clause gets a subject:
//! - its own: the first name not after a preposition before its verb, a
//!   pronoun, a possessive with a role ("His cousin Per Haugen") or a
//!   definite description ("The institute");
//! - a relative clause, apposition, participle or parenthesis: the name
//!   right before it ("X, who was born in Y"; "the yard, founded in 1923 by
//!   Z"; "Helen Hunt (born 1963)");
//! - a clause after "and" or "after leaving": the sentence's subject.
//!
//! Pronouns and definite descriptions resolve to the entity the document is
//! about (its title) when it is of that kind, else to the last named subject
//! of that kind. A name that is a bare surname shared by several people in
//! the document is the last of them named. Verbs are read by their frames
//! (`lexicon::CUES`: "born in <place>", "founded by <agent>", the active and
//! passive voices), role nouns by `lexicon::ROLES` ("the founder of X", "his
//! cousin Y", "Norway's premier X"); any other verb before a name gives an
//! `other` fact holding the verb and its preposition (outside a cue's
//! frames only a preposition right after the verb is the verb's). Copulas
//! read their head noun: "is a town in the Hiran region of Somalia" (a
//! place, in each place of the chain), "is a book by X", "is the sequel to
//! X" (`other: sequel to`), "is a vodka from Korea". A thing of an
//! entity's tells its facts with its noun ("Its music was composed by X":
//! `other: music composed by`). A life span in a parenthesis after a name
//! gives dates and places of birth and death. Dates are objects of date
//! predicates; a date that modifies a name ("the 2009 Aurealis Award") is
//! none.

pub(crate) mod lexicon;

use rlmkg_graph::{OTHER_PREFIX, Predicate};
use rustc_hash::FxHashMap;

use crate::extract::{LocalEvidence, LocalRelation, SentenceRef};
use lexicon::{Dir, Slot};

/// A mention as the fact rules read it (document offsets).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mention<'a> {
    /// Entity key.
    pub key: &'a str,
    /// Byte start in the document.
    pub start: usize,
    /// Byte end.
    pub end: usize,
}

/// What the fact rules found in one document.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// Facts (relations labelled by predicate), in the order found.
    pub facts: Vec<LocalRelation>,
    /// Type evidence: (entity key, kind, strong). A strong vote comes from a
    /// definition ("X is a film"); a weak one from a fact's frame.
    pub kinds: Vec<(String, &'static str, bool)>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok<'a> {
    Word(&'a str),
    Ment(usize),
    Punct(char),
}

/// What ends the words after a possessive ("his cousin …").
#[derive(Debug, Clone, Copy)]
enum Possessed {
    /// A verb, at this token.
    Verb(usize),
    /// A name (this mention), at this token.
    Name(usize, usize),
}

/// How a clause gets its subject.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Opens {
    /// Its own, else the sentence's.
    Fresh,
    /// The name right before it.
    Attached,
    /// The sentence's subject.
    Shared,
    /// The subject of the clause the parenthesis it follows interrupted
    /// (that clause's index).
    Resume(usize),
    /// After a parenthesis the sentence before left open ("X (c. | 1732 –
    /// 1774) was …"): the subject that parenthesis interrupted.
    Carried,
}

/// A subject as written, before resolution.
#[derive(Debug, Clone, Copy)]
enum Written<'a> {
    Name(usize),
    Person,
    Thing,
    Definite(&'a str),
    /// A thing of an entity's, unnamed ("Its music", "The film's score"):
    /// the owner and the head noun.
    Possessed(&'a str, &'a str),
}

/// The entities a document has named so far, for pronouns and descriptions.
struct Topic<'a> {
    about: Option<&'a str>,
    kinds: &'a FxHashMap<&'a str, &'a str>,
    /// Kinds a definition has given so far ("X is a band").
    defined: FxHashMap<String, &'static str>,
    /// Explicit subjects in order (most recent last).
    subjects: Vec<&'a str>,
    /// Every name in order (most recent last).
    named: Vec<&'a str>,
    /// The subject of a clause a parenthesis interrupted when the sentence
    /// ended inside it (cut at an abbreviation: "(c. 1732 – 1774)").
    interrupted: Option<&'a str>,
}

impl<'a> Topic<'a> {
    fn kind(&self, key: &str) -> &'a str {
        if let Some(k) = self.defined.get(key) {
            return k;
        }
        self.kinds.get(key).copied().unwrap_or("other")
    }

    fn last_where(&self, list: &[&'a str], ok: impl Fn(&str) -> bool) -> Option<&'a str> {
        list.iter().rev().copied().find(|k| ok(k))
    }

    /// The entity the document is about, when a pronoun of that kind
    /// (`fits`) may stand for it: the text has named it, or has named no
    /// other subject of that kind yet ("Review: The Salt Atlas" is not what
    /// "It" means after "The Salt Atlas is a book …").
    fn about_for(&self, fits: impl Fn(&str) -> bool) -> Option<&'a str> {
        let a = self.about.filter(|a| fits(a))?;
        let named = self.named.contains(&a);
        let other = self.subjects.iter().any(|s| *s != a && fits(s));
        (named || !other).then_some(a)
    }

    fn person(&self) -> Option<&'a str> {
        let person = |k: &str| matches!(self.kind(k), "person" | "other");
        self.about_for(person)
            .or_else(|| self.last_where(&self.subjects, |k| self.kind(k) == "person"))
    }

    /// "It": the last thing named as a subject, else the document's.
    fn thing(&self) -> Option<&'a str> {
        let thing = |k: &str| !matches!(self.kind(k), "person" | "date");
        self.last_where(&self.subjects, thing)
            .or_else(|| self.about.filter(|a| thing(a)))
    }

    fn definite(&self, noun: &str) -> Option<&'a str> {
        let class = lexicon::kind_of_noun(noun);
        let fits = |k: &str| k.split('_').any(|w| w == noun) || class == Some(self.kind(k));
        if let Some(a) = self.about.filter(|a| fits(a)) {
            return Some(a);
        }
        self.last_where(&self.subjects, fits)
            .or_else(|| self.last_where(&self.named, fits))
    }
}

/// Find the facts of one document. `mentions` are the linked mentions with
/// their sentence index, in sentence order and by start within a sentence;
/// `kinds` each entity's kind; `about` the entity the title names.
pub(crate) fn facts<'a>(
    doc_text: &'a str,
    sentences: &[SentenceRef],
    mentions: &[(usize, Mention<'a>)],
    kinds: &'a FxHashMap<&'a str, &'a str>,
    about: Option<&'a str>,
) -> Found {
    let mut out = Found::default();
    let surnames = surname_owners(kinds);
    let mut topic = Topic {
        about,
        kinds,
        defined: FxHashMap::default(),
        subjects: Vec::new(),
        named: Vec::new(),
        interrupted: None,
    };
    let mut toks: Vec<Tok> = Vec::new();
    let mut lows: Vec<Option<std::borrow::Cow<'a, str>>> = Vec::new();
    let mut ms: Vec<&'a str> = Vec::new();
    let alias = about.and_then(|a| opening_alias(a, sentences, mentions));
    for group in mentions.chunk_by(|x, y| x.0 == y.0) {
        let Some(&(si, _)) = group.first() else {
            continue;
        };
        let Some(sr) = sentences.get(si) else {
            continue;
        };
        let ev = LocalEvidence {
            chunk: sr.chunk,
            start: sr.start as u64,
            end: sr.end as u64,
        };
        // Bare surnames of several people: the last of them named.
        ms.clear();
        for (_, m) in group {
            if alias == Some(m.key)
                && let Some(a) = about
            {
                ms.push(a);
                continue;
            }
            let key = match surnames.get(m.key) {
                Some(owners) => topic
                    .about
                    .filter(|a| owners.contains(a))
                    .or_else(|| topic.last_where(&topic.subjects, |k| owners.contains(&k)))
                    .or_else(|| topic.last_where(&topic.named, |k| owners.contains(&k)))
                    .unwrap_or(m.key),
                None => m.key,
            };
            ms.push(key);
        }
        tokenize(doc_text, sr, group, &mut toks);
        // Each word lower-cased once: the rules read the same words often.
        lows.clear();
        lows.extend(toks.iter().map(|t| match t {
            Tok::Word(w) => Some(lower(w)),
            _ => None,
        }));
        let mut reader = Sentence {
            toks: &toks,
            lows: &lows,
            ms: &ms,
            topic: &mut topic,
            out: &mut out,
            ev,
            possessed: None,
            object_owners: Vec::new(),
            chain: Vec::new(),
            outside: false,
        };
        reader.read();
        topic.named.extend(ms.iter().copied());
    }
    out
}

/// The name opening the document's first sentence when it is another
/// form of the title's and the title's own is never named: "Waldrada was
/// …" under "Waldrada of Lotharingia", "Joseph Ferdinand Leopold of
/// Bavaria (…) was …" under "Joseph Ferdinand of Bavaria". Its facts are
/// the title's entity's.
fn opening_alias<'a>(
    about: &str,
    sentences: &[SentenceRef],
    mentions: &[(usize, Mention<'a>)],
) -> Option<&'a str> {
    let &(si, first) = mentions.first()?;
    let opens = sentences.get(si)?.start;
    if si != 0 || first.start > opens + 2 || first.key == about {
        return None;
    }
    let (t, o): (Vec<&str>, Vec<&str>) =
        (about.split('_').collect(), first.key.split('_').collect());
    // "Professor Ivo Brand" under "Ivo Brand": the title's name after
    // honorifics, though the text names the title's too.
    let titled = o
        .get(..o.len().saturating_sub(t.len()))
        .is_some_and(|h| !h.is_empty() && h.iter().all(|w| HONORIFICS.contains(w)));
    if titled && o.ends_with(&t) {
        return Some(first.key);
    }
    if mentions.iter().any(|(_, m)| m.key == about) {
        return None;
    }
    other_form_of_title(about, first.key).then_some(first.key)
}

/// Whether the name of `key` is another form of the title of key `about`:
/// each of the title's words is in the name, honorifics opening the title
/// aside ("Anna Lisbeth Palme" under "Lisbeth Palme"; "Maria Antonia of
/// Naples" under "Princess Maria Antonia of Naples"), or the
/// name is shorter, opens as the title does and has only its words
/// ("Waldrada" under "Waldrada of Lotharingia"), unless the title has a
/// number the name lacks ("The Halvorsen Medal" under "Halvorsen Medal
/// 2018": the general thing of which the title is one). Not "Salt Atlas"
/// under "Review: The Salt Atlas".
pub(crate) fn other_form_of_title(about: &str, key: &str) -> bool {
    let o: Vec<&str> = key.split('_').collect();
    let all: Vec<&str> = about.split('_').collect();
    // "Princess Maria Antonia …": honorifics opening the title, when the
    // name does not open with them.
    let skip = all
        .iter()
        .take_while(|w| HONORIFICS.contains(w) && o.first() != Some(w))
        .count()
        .min(all.len().saturating_sub(1));
    let t = all.get(skip..).unwrap_or(&all);
    // Each word of `a` in `b` (a one-letter word as an initial of one).
    let within = |a: &[&str], b: &[&str]| {
        a.iter().all(|w| {
            b.iter()
                .any(|x| x == w || (w.chars().count() == 1 && x.starts_with(w)))
        })
    };
    let edition = t
        .iter()
        .any(|w| !o.contains(w) && w.chars().any(|c| c.is_ascii_digit()));
    let shorter = t.first() == o.first() && within(&o, t) && !edition;
    within(t, &o) || shorter
}

/// Words of a title or an office before a person's name ("Professor",
/// "Infante"), as they are written in keys.
const HONORIFICS: &[&str] = &[
    "professor",
    "prof",
    "doctor",
    "dr",
    "sir",
    "dame",
    "lord",
    "lady",
    "saint",
    "st",
    "king",
    "queen",
    "prince",
    "princess",
    "infante",
    "infanta",
    "duke",
    "duchess",
    "count",
    "countess",
    "emperor",
    "empress",
    "pope",
    "president",
    "general",
    "captain",
    "colonel",
    "admiral",
    "reverend",
    "rev",
    "mr",
    "mrs",
    "ms",
    "judge",
    "senator",
    "governor",
    "archduke",
    "archduchess",
    "grand",
    "sultan",
    "emir",
    "caliph",
    "imam",
    "sheikh",
];

/// Single-word keys that are the surname of two or more persons, with them.
fn surname_owners<'a>(kinds: &FxHashMap<&'a str, &'a str>) -> FxHashMap<&'a str, Vec<&'a str>> {
    let mut by: FxHashMap<&'a str, Vec<&'a str>> = FxHashMap::default();
    for (&k, &kind) in kinds {
        if kind == "person"
            && let Some((_, last)) = k.rsplit_once('_')
            && kinds.contains_key(last)
        {
            by.entry(last).or_default().push(k);
        }
    }
    by.retain(|_, v| v.len() > 1);
    for v in by.values_mut() {
        v.sort_unstable();
    }
    by
}

/// The sentence's words, names and punctuation.
fn tokenize<'a>(
    doc_text: &'a str,
    sr: &SentenceRef,
    group: &[(usize, Mention<'a>)],
    out: &mut Vec<Tok<'a>>,
) {
    out.clear();
    let Some(s) = doc_text.get(sr.start..sr.end) else {
        return;
    };
    let mut next_m = 0usize;
    let mut i = 0usize;
    while i < s.len() {
        let abs = sr.start + i;
        // Names that start here (or were passed over) come first.
        while let Some((_, m)) = group.get(next_m) {
            if m.end <= abs {
                next_m += 1;
                continue;
            }
            break;
        }
        if let Some((_, m)) = group.get(next_m)
            && m.start <= abs
        {
            out.push(Tok::Ment(next_m));
            // "Djibouti's" read as one name: its "'s" is a word of its own.
            if let Some(name) = doc_text.get(m.start..m.end)
                && (name.ends_with("'s") || name.ends_with("\u{2019}s"))
                && let Some(s_word) = doc_text.get(m.end - 1..m.end)
            {
                out.push(Tok::Word(s_word));
            }
            next_m += 1;
            i = m.end.saturating_sub(sr.start).max(i + 1);
            continue;
        }
        let Some(c) = char_at(s, i) else {
            break;
        };
        if c.is_alphanumeric() {
            let mut j = i + c.len_utf8();
            // A name may begin inside what reads as one word ("-based").
            let name_at = group
                .get(next_m)
                .map_or(usize::MAX, |(_, m)| m.start.saturating_sub(sr.start));
            while let Some(d) = char_at(s, j) {
                let joins = matches!(d, '\'' | '-' | '\u{2019}')
                    && char_at(s, j + d.len_utf8()).is_some_and(char::is_alphanumeric);
                if !(d.is_alphanumeric() || joins) {
                    break;
                }
                j += d.len_utf8();
                if name_at <= j {
                    break;
                }
            }
            if let Some(w) = s.get(i..j) {
                out.push(Tok::Word(w));
            }
            i = j;
        } else {
            // A dash between words ("1650, Middelburg – 1704, Amsterdam").
            let dash = matches!(c, '–' | '—')
                || (c == '-' && char_at(s, i + 1).is_some_and(char::is_whitespace));
            if matches!(c, ',' | ';' | ':' | '(' | ')') {
                out.push(Tok::Punct(c));
            } else if dash {
                out.push(Tok::Punct('–'));
            }
            i += c.len_utf8();
        }
    }
}

/// The character starting at byte `i` of `s` (none past the end or inside
/// a character); an ASCII byte is read without decoding.
fn char_at(s: &str, i: usize) -> Option<char> {
    match s.as_bytes().get(i) {
        Some(&b) if b.is_ascii() => Some(char::from(b)),
        Some(_) => s.get(i..).and_then(|r| r.chars().next()),
        None => None,
    }
}

/// `w` lower-cased when it has an upper-case letter, else `w` itself.
fn lower(w: &str) -> std::borrow::Cow<'_, str> {
    // One pass for the common case: ASCII with no capital (most calls get
    // a word lower-cased already).
    let mut ascii_upper = false;
    let mut ascii = true;
    for b in w.bytes() {
        ascii_upper |= b.is_ascii_uppercase();
        ascii &= b.is_ascii();
    }
    if ascii {
        return if ascii_upper {
            std::borrow::Cow::Owned(w.to_ascii_lowercase())
        } else {
            std::borrow::Cow::Borrowed(w)
        };
    }
    if w.chars().any(char::is_uppercase) {
        std::borrow::Cow::Owned(w.to_lowercase())
    } else {
        std::borrow::Cow::Borrowed(w)
    }
}

/// A word (lower case, as [`Sentence::word`] gives it) that can be a verb
/// of a clause.
fn verbish(lw: &str) -> bool {
    // "be", "have", a cue's form, a listed verb, an irregular past.
    lexicon::is_verb_form(lw)
        || (lw.len() > 4 && lw.ends_with("ed") && !lexicon::DEMONYM_SET.has(lw))
}

/// An adverb in "-ly" ("roughly", "formerly"; not "family", "Italy").
fn is_adverb(w: &str) -> bool {
    w.len() > 5
        && w.ends_with("ly")
        && w.chars().all(|c| c.is_ascii_lowercase())
        && !matches!(w, "family" | "assembly" | "supply" | "butterfly")
}

/// A verb that opens a clause with no subject ("Born in Vik, …"): a verb
/// other than "be" and "have".
fn is_participle(w: &str) -> bool {
    verbish(w) && !lexicon::BE.contains(&w) && !matches!(w, "has" | "had" | "have")
}

/// A word that may stand between a verb and its direct object.
fn light(w: &str) -> bool {
    let lw = lower(w);
    matches!(
        lw.as_ref(),
        "the" | "a" | "an" | "his" | "her" | "its" | "their" | "both" | "two" | "three"
    ) || !rlmkg_text::is_stopword(&lw)
}

const POSSESSIVES: &[&str] = &["his", "her", "its", "their"];

/// Whether word `w` (lower case) may stand between a preposition and its
/// object as a modifier ("of the painters X"): a content word with no digit,
/// or a determiner right after the preposition (a later one opens another
/// noun phrase: "In the summer the band X").
fn modifies(w: &str, right_after_prep: bool) -> bool {
    let determiner = matches!(w, "the" | "a" | "an") || POSSESSIVES.contains(&w);
    if determiner {
        return right_after_prep;
    }
    !rlmkg_text::is_stopword(w) && !w.chars().any(|c| c.is_ascii_digit())
}

/// How many tokens back a clause looks for the name it is attached to.
const REACH: usize = 48;

struct Sentence<'s, 'a> {
    toks: &'s [Tok<'a>],
    /// Each token's word lower-cased (none for a name or a mark).
    lows: &'s [Option<std::borrow::Cow<'a, str>>],
    ms: &'s [&'a str],
    topic: &'s mut Topic<'a>,
    out: &'s mut Found,
    ev: LocalEvidence,
    /// The head noun of the clause's possessed subject ("Its *music* was
    /// composed by X"): its facts are `other: music composed by`.
    possessed: Option<&'a str>,
    /// The tokens of owners whose role after "as" is a verb's object's
    /// ("elected X as president of *Y*"): no role of the subject's.
    object_owners: Vec<usize>,
    /// The places named in a run after a locative or a compass point's
    /// "of" in the clause ("near *Vik*, Vestmark"): a place after them and a
    /// comma holds them. At most [`CHAIN`], the last last.
    chain: Vec<&'a str>,
    /// Whether the run opened with a compass point ("north of X, Y"): the
    /// subject lies outside it.
    outside: bool,
}

impl<'s, 'a> Sentence<'s, 'a> {
    /// Token `i`'s word lower-cased; none for a name or a mark.
    fn word(&self, i: usize) -> Option<&'s str> {
        let lows: &'s [Option<std::borrow::Cow<'a, str>>] = self.lows;
        lows.get(i)?.as_deref()
    }

    fn key(&self, m: usize) -> Option<&'a str> {
        self.ms.get(m).copied()
    }

    fn is_date(&self, m: usize) -> bool {
        self.key(m).is_some_and(|k| self.topic.kind(k) == "date")
    }

    /// Clauses: (start, end, how the subject is found).
    fn clauses(&self) -> Vec<(usize, usize, Opens)> {
        let mut out = Vec::new();
        let (mut start, mut opens) = (0usize, Opens::Fresh);
        let mut i = 0usize;
        // The clause each open parenthesis interrupted.
        let mut parens: Vec<usize> = Vec::new();
        while i < self.toks.len() {
            let mut cut: Option<(usize, Opens)> = None;
            let inside = !parens.is_empty();
            match self.toks.get(i) {
                // "films such as X (1972), Y (1981) and Z": a year in a
                // parenthesis is the name's, the list goes on.
                Some(Tok::Punct('(')) if self.date_paren(i) => {
                    i += 3;
                    continue;
                }
                Some(Tok::Punct('(')) => {
                    parens.push(out.len());
                    cut = Some((i + 1, Opens::Attached));
                }
                Some(Tok::Punct(')')) => {
                    let how = match parens.pop() {
                        Some(before) => Opens::Resume(before),
                        None => Opens::Carried,
                    };
                    cut = Some((i + 1, how));
                }
                _ if inside => {}
                Some(Tok::Punct(';' | ':')) => cut = Some((i + 1, Opens::Fresh)),
                // "in Morton County, North Dakota": one argument's names
                // (not after a leading participle: "Born in Vik, Olaf …");
                // "east of Dodge City, in Ford County": the clause goes on.
                Some(Tok::Punct(','))
                    if self.ends_name(i)
                        && i > start + 1
                        && !self.opening_cut(start, i)
                        && !(start == 0 && self.word(start).is_some_and(is_participle))
                        // (not a date and a name: "died in December 2011,
                        // Kim Jong Un stepped up").
                        && (matches!(self.toks.get(i + 1), Some(Tok::Ment(_)))
                            && !matches!(self.toks.get(i.wrapping_sub(1)), Some(Tok::Ment(m)) if self.is_date(*m))
                            || self
                                .word(i + 1)
                                .is_some_and(|w| lexicon::LOCATIVES.contains(&w))) => {}
                // "He was married to the Polish artist, Anna Rajecka": the
                // object of the preposition named after a comma.
                Some(Tok::Punct(','))
                    if matches!(self.toks.get(i + 1), Some(Tok::Ment(_)))
                        && matches!(self.toks.get(i + 2), None | Some(Tok::Punct(_)))
                        && self.object_described(start, i) => {}
                // "the son of X, by his wife Y", "and his first wife, Y":
                // the parents are one list.
                Some(Tok::Punct(',')) if self.partner_at_comma(i) => {}
                Some(Tok::Punct(',')) => {
                    cut = Some(match self.after_comma(i + 1) {
                        // ", who was born in Y, succeeded Z": the sentence's
                        // subject again.
                        (n, Opens::Attached)
                            if opens == Opens::Attached && self.word(n).is_some_and(verbish) =>
                        {
                            (n, Opens::Shared)
                        }
                        other => other,
                    })
                }
                Some(Tok::Word(w)) => {
                    let lw = self.word(i).unwrap_or(w);
                    match lw {
                        "who" | "which" if i > start => {
                            cut = Some((i + 1, Opens::Attached));
                        }
                        "and" | "but" if i > start => {
                            cut = self.after_and(i + 1).map(|how| (i + 1, how));
                        }
                        "after" | "before" | "while" | "when" | "since" | "until"
                            if self.word(i + 1).is_some_and(|n| n.ends_with("ing")) =>
                        {
                            cut = Some((i + 1, Opens::Shared));
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
            if let Some((next, how)) = cut {
                out.push((start, i, opens));
                start = next;
                opens = how;
                i = next;
                continue;
            }
            i += 1;
        }
        out.push((start, self.toks.len(), opens));
        out
    }

    /// Whether the comma at token `i` ends a clause opening with a
    /// preposition before a name and a verb ("At X, Holt earned …"; not "In
    /// Morton County, North Dakota, the town …").
    fn opening_cut(&self, start: usize, i: usize) -> bool {
        let opens = self.word(start).is_some_and(|w| OPENING_PREPS.contains(&w));
        opens && matches!(self.toks.get(i + 1), Some(Tok::Ment(_))) && self.next_is_verb(i + 2)
    }

    /// Whether the comma at token `i` opens a partner ("…, by his wife")
    /// or stands between a partner noun and its name ("his wife, Y").
    fn partner_at_comma(&self, i: usize) -> bool {
        let possessive = |j: usize| self.word(j).is_some_and(|w| POSSESSIVES.contains(&w));
        let partner = |j: usize| self.word(j).is_some_and(lexicon::is_partner);
        let joins = |j: usize| self.word(j).is_some_and(|w| matches!(w, "and" | "by"));
        let opens = joins(i + 1) && possessive(i + 2) && (partner(i + 3) || partner(i + 4));
        let names = i > 3
            && partner(i - 1)
            && ((possessive(i - 2) && joins(i - 3)) || (possessive(i - 3) && joins(i - 4)))
            && matches!(self.toks.get(i + 1), Some(Tok::Ment(_)));
        opens || names
    }

    /// Whether a name (no date) follows from token `i` past at most four
    /// modifiers ("1897 gothic horror novel *X*").
    fn name_follows(&self, i: usize) -> bool {
        for j in i..i + 5 {
            match self.toks.get(j) {
                Some(Tok::Ment(m)) => return !self.is_date(*m),
                Some(Tok::Word(w)) => {
                    let lw = self.word(j).unwrap_or(w);
                    if !light(lw)
                        || verbish(lw)
                        || lexicon::PREPOSITION_SET.has(lw)
                        || matches!(lw, "and" | "or")
                    {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        false
    }

    /// Whether the parenthesis opening at token `i` holds one date only,
    /// after a name ("X (1972)").
    fn date_paren(&self, i: usize) -> bool {
        matches!(self.toks.get(i.wrapping_sub(1)), Some(Tok::Ment(m)) if !self.is_date(*m))
            && matches!(self.toks.get(i + 1), Some(Tok::Ment(m)) if self.is_date(*m))
            && self.toks.get(i + 2) == Some(&Tok::Punct(')'))
    }

    /// Whether a name ends right before token `i` (past its year in a
    /// parenthesis), or a name and a place noun ("in Ekeby district, …").
    fn ends_name(&self, i: usize) -> bool {
        let ment = |j: usize| matches!(self.toks.get(j), Some(Tok::Ment(_)));
        let mut j = i.wrapping_sub(1);
        // "X (1972), Y": the name before its year.
        if self.toks.get(j) == Some(&Tok::Punct(')')) && self.date_paren(j.wrapping_sub(2)) {
            j = j.wrapping_sub(3);
        }
        // "bordered by X to the north, Y to the east": the name before its
        // side.
        if j > 2
            && self.word(j).is_some_and(|w| lexicon::COMPASS.contains(&w))
            && self.word(j - 1).is_some_and(|w| w == "the")
            && self.word(j - 2).is_some_and(|w| w == "to")
        {
            j -= 3;
        }
        ment(j)
            || (self
                .word(j)
                .is_some_and(|w| lexicon::listed(&lexicon::PLACE_NOUN_SET, w))
                && ment(j.wrapping_sub(1)))
    }

    /// Whether tokens `start..i` end in a verb's preposition and a described
    /// object with no name yet ("was married to the Polish artist"), in a
    /// clause that opens with no subordinator ("After he moved to the
    /// capital, X …" is not).
    fn object_described(&self, start: usize, i: usize) -> bool {
        let opener = self.word(start);
        if opener.is_some_and(|w| {
            matches!(
                w,
                "after"
                    | "before"
                    | "when"
                    | "while"
                    | "since"
                    | "as"
                    | "because"
                    | "although"
                    | "though"
                    | "if"
                    | "once"
                    | "until"
                    | "in"
                    | "on"
                    | "at"
                    | "during"
            )
        }) {
            return false;
        }
        let mut j = i;
        let mut described = false;
        while j > start && i - j < 8 {
            j -= 1;
            match self.word(j) {
                Some("to" | "of" | "by" | "with") => {
                    return described && self.has_verb(start, j);
                }
                Some(w) if verbish(w) => return false,
                Some(_) => described = true,
                None => return false,
            }
        }
        false
    }

    fn next_is_verb(&self, i: usize) -> bool {
        let mut j = i;
        while let Some(w) = self.word(j) {
            if lexicon::BETWEEN_SET.has(w) {
                j += 1;
                continue;
            }
            return verbish(w);
        }
        false
    }

    /// How a clause opening at `i`, after "and" or "but", gets its subject:
    /// its own after a subject pronoun ("and she joined"), the sentence's
    /// before a verb ("and joined"); `None` when "and" joins no clauses.
    fn after_and(&self, i: usize) -> Option<Opens> {
        if self
            .word(i)
            .is_some_and(|n| rlmkg_text::SUBJECT_PRONOUNS.contains(&n))
        {
            Some(Opens::Fresh)
        } else if self.next_is_verb(i) {
            Some(Opens::Shared)
        } else {
            None
        }
    }

    /// How the clause after a comma at `i` gets its subject.
    fn after_comma(&self, i: usize) -> (usize, Opens) {
        let Some(w) = self.word(i) else {
            return (i, Opens::Fresh);
        };
        match w {
            "who" | "which" | "whom" => (i + 1, Opens::Attached),
            "and" | "but" => (i + 1, self.after_and(i + 1).unwrap_or(Opens::Fresh)),
            "the" | "a" | "an"
                if self
                    .word(i + 1)
                    .is_some_and(|n| lexicon::role(n).is_some() || self.role_after(i + 1)) =>
            {
                (i, Opens::Attached)
            }
            w if lexicon::cue(w).is_some()
                || (w.len() > 4 && w.ends_with("ed"))
                || lexicon::role(w).is_some() =>
            {
                (i, Opens::Attached)
            }
            _ => (i, Opens::Fresh),
        }
    }

    /// Whether a role noun follows within two words of `i` ("the first
    /// director of").
    fn role_after(&self, i: usize) -> bool {
        (i..i + 3).any(|j| self.word(j).is_some_and(|w| lexicon::role(w).is_some()))
    }

    /// Whether the token before `i`, past punctuation, is a date.
    fn date_before(&self, i: usize) -> bool {
        let Some(before) = self.toks.get(..i) else {
            return false;
        };
        before
            .iter()
            .rev()
            .find(|t| !matches!(t, Tok::Punct(',')))
            .is_some_and(|t| matches!(t, Tok::Ment(p) if self.is_date(*p)))
    }

    /// The subject of a clause attached at token `a` (a relative clause,
    /// an apposition, a participle): the name right before it, except
    /// - "who" after a name that is no person ("an outfielder in Major
    ///   League Baseball who played for …"): the sentence's subject if it
    ///   is a person, else none;
    /// - a participle after the agent of "by" ("a CD by Judge Smith,
    ///   released in 2000"): the sentence's subject.
    fn attached_to(&self, a: usize, sentence: Option<&'a str>) -> Option<&'a str> {
        let kind = |k: &str| self.topic.kind(k);
        // "He was born in Vienna, the son of X", "born on 3 May 1669, the
        // son of X": a kin apposition after a place or a date is the
        // sentence's subject's.
        let kin = self.role_phrase(a).is_some_and(|r| r.pred.kinship());
        let Some((at, m)) = self.name_before_at(a) else {
            return sentence.filter(|_| kin);
        };
        let before = self.key(m)?;
        // "born at Vik, Norland, son of X": the list of places the name
        // ends, and whether a locative opens it.
        let mut j = at;
        while j > 0
            && at - j < REACH
            && matches!(self.toks.get(j - 1), Some(Tok::Ment(_) | Tok::Punct(',')))
        {
            j -= 1;
        }
        let located = j
            .checked_sub(1)
            .and_then(|p| self.word(p))
            .is_some_and(|w| lexicon::LOCATIVES.contains(&w));
        if kin && located && kind(before) != "person" {
            return sentence.filter(|s| kind(s) != "place");
        }
        let participle = self.word(a).filter(|w| is_participle(w));
        // "was a United States legal scholar, born at …": a name modifying
        // the copula's noun is not what the apposition is about.
        if (kin || participle.is_some()) && self.modifier_of_complement(at, a) {
            return sentence;
        }
        let opener = self.word(a.wrapping_sub(1));
        if matches!(opener, Some("who" | "whom"))
            && matches!(kind(before), "organization" | "place" | "work")
        {
            return sentence.filter(|s| kind(s) == "person");
        }
        let agent = at
            .checked_sub(1)
            .and_then(|p| self.word(p))
            .is_some_and(|w| w == "by");
        if agent && participle.is_some() {
            return sentence.or(Some(before));
        }
        // "a courthouse in Jacksonville, Oregon, United States, built in
        // 1883": a participle after a place list is about the subject.
        if located && participle.is_some() && sentence.is_some_and(|s| s != before) {
            return sentence;
        }
        // "starring Bessie Love and Wallace MacDonald, directed by X",
        // "in Lexington, Virginia, directed by X": persons and places are
        // not directed, written, published or produced.
        if matches!(kind(before), "person" | "place")
            && participle
                .is_some_and(|w| matches!(w, "directed" | "written" | "published" | "produced"))
        {
            return sentence.filter(|s| kind(s) != "person");
        }
        Some(before)
    }

    /// Whether the name at token `at` follows another name and a comma, and
    /// no "and" or "or" ends the run of names it is in ("Vik, Vestmark,
    /// Norland", not "Oslo, Bergen and Alta": a list).
    fn place_after_place(&self, at: usize) -> bool {
        let after_name = at >= 2
            && self.toks.get(at - 1) == Some(&Tok::Punct(','))
            && matches!(self.toks.get(at - 2), Some(Tok::Ment(m)) if !self.is_date(*m));
        if !after_name {
            return false;
        }
        let mut comma = false;
        for t in self.toks.iter().skip(at + 1).take(REACH) {
            match t {
                Tok::Ment(_) => comma = false,
                Tok::Punct(',') => comma = true,
                // ("Vik, Holt Park, the Lind Museum": a list.)
                Tok::Word(w) => {
                    let w = lower(w);
                    let article = comma && matches!(w.as_ref(), "the" | "a" | "an");
                    return !(article || matches!(w.as_ref(), "and" | "or"));
                }
                Tok::Punct(_) => return true,
            }
        }
        true
    }

    /// Whether the name at token `at` modifies a noun after it ("the *CBS*
    /// soap opera").
    fn modifies_noun(&self, at: usize) -> bool {
        self.word(at + 1).is_some_and(|w| {
            light(w)
                && !rlmkg_text::is_stopword(w)
                && !verbish(w)
                && !lexicon::PREPOSITION_SET.has(w)
        })
    }

    /// Whether entity `key` may be a place (its kind is a place or unknown).
    fn placeish(&self, key: &str) -> bool {
        matches!(self.topic.kind(key), "place" | "other")
    }

    /// Whether the name at token `at` modifies the noun of a copula's
    /// complement that runs to the comma before `a` ("was a *United States*
    /// legal scholar, born …"): "be", "a" or "an", the name, then words only.
    fn modifier_of_complement(&self, at: usize, a: usize) -> bool {
        // Past a date ("was a 1965 Norland drama film").
        let mut n = at;
        while n > 0 && matches!(self.toks.get(n - 1), Some(Tok::Ment(d)) if self.is_date(*d)) {
            n -= 1;
        }
        let article = n
            .checked_sub(1)
            .and_then(|p| self.word(p))
            .is_some_and(|w| matches!(w, "a" | "an"));
        let be = n
            .checked_sub(2)
            .and_then(|p| self.word(p))
            .is_some_and(|w| lexicon::BE.contains(&w));
        let words = a > at + 2
            && self
                .toks
                .get(at + 1..a - 1)
                .is_some_and(|noun| noun.iter().all(|t| matches!(t, Tok::Word(_))))
            && self.toks.get(a - 1) == Some(&Tok::Punct(','));
        article && be && words
    }

    /// The name right before token `i` (not a date, not inside a closed
    /// parenthesis: "Godomar II (or Gundomar), son of …" is Godomar's), with
    /// its token index.
    fn name_before_at(&self, i: usize) -> Option<(usize, usize)> {
        let before = self.toks.get(..i)?;
        let mut depth = 0usize;
        // Within a reach, so that a long sentence is read in linear time.
        for (at, t) in before.iter().enumerate().rev().take(REACH) {
            match t {
                Tok::Punct(')') => depth += 1,
                Tok::Punct('(') => depth = depth.saturating_sub(1),
                Tok::Ment(m) if depth == 0 && !self.is_date(*m) => return Some((at, *m)),
                _ => {}
            }
        }
        None
    }

    /// The token of a typing noun at `i` or after at most two modifiers
    /// ("the *film*", "the original Mexican *film*").
    fn definite_head(&self, i: usize) -> Option<usize> {
        for j in i..i + 3 {
            let w = self.word(j)?;
            if lexicon::kind_of_noun(w).is_some() {
                return Some(j);
            }
            if !light(w) || verbish(w) || lexicon::PREPOSITION_SET.has(w) {
                return None;
            }
        }
        None
    }

    /// The role of a phrase opening at `a` that names a role of someone
    /// ("the eldest son of", "A younger son of", "Founder of"): an optional
    /// article, at most three modifiers, a role noun and "of".
    fn role_phrase(&self, a: usize) -> Option<&'static lexicon::Role> {
        self.role_phrase_at(a).map(|(r, _)| r)
    }

    /// [`Self::role_phrase`] with the token of its "of".
    fn role_phrase_at(&self, a: usize) -> Option<(&'static lexicon::Role, usize)> {
        let mut j = a;
        if self
            .word(j)
            .is_some_and(|w| matches!(w, "the" | "a" | "an"))
        {
            j += 1;
        }
        for k in j..j + 4 {
            let w = self.word(k)?;
            if let Some(r) = lexicon::role(w) {
                return self
                    .word(k + 1)
                    .is_some_and(|o| o == "of")
                    .then_some((r, k + 1));
            }
            if verbish(w) || lexicon::PREPOSITION_SET.has(w) || matches!(w, "and" | "or") {
                return None;
            }
        }
        None
    }

    /// A clause's own subject and where its predicate starts. A clause
    /// opening with a role phrase ("The son of X, he …") has none: the
    /// sentence's subject holds the role.
    fn own_subject(&mut self, a: usize, b: usize) -> Option<(Written<'a>, usize)> {
        if self.role_phrase(a).is_some() {
            return None;
        }
        let mut after_prep = false;
        // The clause's preposition is not its opener ("of" in "the father of
        // the painters X", not "In early life X …"): its object runs on past
        // modifiers.
        let mut inner_prep = false;
        // The last name was a preposition's object: "and" or a comma lists
        // another ("of X, Y and Z").
        let mut listed = false;
        let mut i = a;
        while i < b && i < a + 10 {
            match self.toks.get(i) {
                Some(Tok::Ment(m)) => {
                    if !after_prep && !self.is_date(*m) {
                        return Some((Written::Name(*m), i + 1));
                    }
                    listed = after_prep;
                    after_prep = false;
                }
                Some(Tok::Word(w)) => {
                    let lw = self.word(i).unwrap_or(w);
                    if matches!(lw, "he" | "she") {
                        return Some((Written::Person, i + 1));
                    }
                    if lw == "it" {
                        return Some((Written::Thing, i + 1));
                    }
                    if POSSESSIVES.contains(&lw) {
                        return self.possessed_subject(lw, i + 1, b);
                    }
                    // "The film's music was composed by X".
                    if lw == "the"
                        && let Some(n) = self.word(i + 1)
                        && let Some(stem) = n.strip_suffix("'s").or(n.strip_suffix("\u{2019}s"))
                        && lexicon::kind_of_noun(stem).is_some()
                    {
                        let owner = self.topic.definite(stem)?;
                        return self.possessed_thing(owner, i + 2, b);
                    }
                    // "The institute was …", "The film, which …, was …",
                    // "The original Mexican film was …".
                    if lw == "the"
                        && let Some(h) = self.definite_head(i + 1)
                        && (self.next_is_verb(h + 1)
                            || self.toks.get(h + 1) == Some(&Tok::Punct(',')))
                    {
                        let Some(Tok::Word(n)) = self.toks.get(h) else {
                            return None;
                        };
                        return Some((Written::Definite(n), h + 1));
                    }
                    if verbish(lw) {
                        return None;
                    }
                    if matches!(lw, "and" | "or") && listed {
                        after_prep = true;
                        listed = false;
                        i += 1;
                        continue;
                    }
                    listed = false;
                    let prep = lexicon::PREPOSITION_SET.has(lw);
                    let right_after_prep = self
                        .word(i.wrapping_sub(1))
                        .is_some_and(|p| lexicon::PREPOSITION_SET.has(p));
                    let runs_on = inner_prep && after_prep && modifies(lw, right_after_prep);
                    if prep {
                        inner_prep = i > a;
                    }
                    after_prep = prep || runs_on;
                }
                Some(Tok::Punct(',')) if listed => after_prep = true,
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// "His cousin Per Haugen …": the name after a possessive and its role,
    /// with the role's fact; `None` when the possessed is unnamed.
    fn possessed_subject(
        &mut self,
        pronoun: &str,
        i: usize,
        b: usize,
    ) -> Option<(Written<'a>, usize)> {
        let (words, end) = self.possessed_words(i, b)?;
        let role = words.iter().rev().find_map(|w| lexicon::role(&lower(w)));
        let owner = match (pronoun, role) {
            // "Their daughter was X": the persons the text is about.
            ("their", Some(r)) if r.pred.kinship() => self.topic.person(),
            _ => self.pronoun(pronoun),
        };
        match end {
            // "Its music was composed by X" (not "His father was born in
            // Y": a role's own facts).
            Possessed::Verb(j) => match (role, owner) {
                (None, Some(owner)) if j > i => Self::possessed_head(owner, &words, j),
                // "His father was X", "Her brothers were X, Y and Z".
                (Some(r), Some(owner)) => {
                    for m in self.complements(j, b) {
                        self.role_fact(r, m, owner);
                    }
                    None
                }
                _ => None,
            },
            // "her marriage with X": X is no possessed thing.
            Possessed::Name(..)
                if words
                    .iter()
                    .any(|w| lexicon::PREPOSITION_SET.has(&lower(w))) =>
            {
                None
            }
            Possessed::Name(m, j) => {
                if let (Some(r), Some(owner)) = (role, owner) {
                    self.role_fact(r, m, owner);
                }
                Some((Written::Name(m), j + 1))
            }
        }
    }

    /// The names a copula at `j` equates its subject with ("was X", "were
    /// X, Y and Z", "was the novelist X"): names after "be" and light words,
    /// listed with commas and "and", before any other word.
    fn complements(&self, j: usize, b: usize) -> Vec<usize> {
        let mut names = Vec::new();
        if !self.word(j).is_some_and(|w| lexicon::BE.contains(&w)) {
            return names;
        }
        for k in j + 1..b.min(j + 1 + REACH) {
            match self.toks.get(k) {
                Some(Tok::Ment(m)) if !self.is_date(*m) => names.push(*m),
                Some(Tok::Punct(',')) => {}
                // (Not a verb: "His father was besieging X".)
                Some(Tok::Word(w)) => {
                    let lw = self.word(k).unwrap_or(w);
                    let joins = matches!(lw, "and" | "or");
                    let verb = verbish(lw) || lw.ends_with("ing");
                    if !(joins || (light(lw) && !verb)) {
                        break;
                    }
                }
                _ => break,
            }
        }
        names
    }

    /// "<owner's> music was composed by": the head noun before the verb
    /// (at most three words from `i`, none a name or a role).
    fn possessed_thing(&self, owner: &'a str, i: usize, b: usize) -> Option<(Written<'a>, usize)> {
        match self.possessed_words(i, b)? {
            (words, Possessed::Verb(j)) => Self::possessed_head(owner, &words, j),
            (_, Possessed::Name(..)) => None,
        }
    }

    /// The head of `words` (the last), the thing of `owner` the clause
    /// speaks of, when none of them is a role or a stop word.
    fn possessed_head(owner: &'a str, words: &[&'a str], j: usize) -> Option<(Written<'a>, usize)> {
        let plain = |w: &&str| {
            let lw = lower(w);
            lexicon::role(&lw).is_none() && !rlmkg_text::is_stopword(&lw)
        };
        match words.last() {
            Some(head) if words.iter().all(plain) => Some((Written::Possessed(owner, head), j)),
            _ => None,
        }
    }

    /// The words after a possessive (at most three from `i`, before `b`)
    /// and what ends them: a verb or a name; `None` for anything else.
    fn possessed_words(&self, i: usize, b: usize) -> Option<(Vec<&'a str>, Possessed)> {
        let mut words = Vec::new();
        for j in i..b.min(i + 4) {
            match self.toks.get(j) {
                Some(Tok::Word(w)) if verbish(self.word(j).unwrap_or(w)) => {
                    return Some((words, Possessed::Verb(j)));
                }
                Some(Tok::Word(w)) => words.push(*w),
                Some(Tok::Ment(m)) => return Some((words, Possessed::Name(*m, j))),
                _ => return None,
            }
        }
        None
    }

    fn pronoun(&self, p: &str) -> Option<&'a str> {
        match p {
            "he" | "she" | "his" | "her" | "him" => self.topic.person(),
            "it" | "its" => self.topic.thing(),
            _ => None,
        }
    }

    fn resolve(&mut self, w: Written<'a>) -> Option<&'a str> {
        match w {
            Written::Name(m) => {
                let k = self.key(m)?;
                self.topic.subjects.push(k);
                Some(k)
            }
            Written::Person => {
                let k = self.topic.person();
                if let Some(k) = k
                    && Some(k) == self.topic.about
                {
                    self.vote(k, "person", false);
                }
                k
            }
            Written::Thing => self.topic.thing(),
            Written::Definite(n) => self.topic.definite(&lower(n)),
            Written::Possessed(owner, _) => Some(owner),
        }
    }

    fn vote(&mut self, key: &str, kind: &'static str, strong: bool) {
        if strong && self.topic.kind(key) != "date" {
            self.topic.defined.insert(key.to_string(), kind);
        }
        self.out.kinds.push((key.to_string(), kind, strong));
    }

    fn add(&mut self, subject: &str, label: std::borrow::Cow<'static, str>, object: &str) {
        if subject == object {
            return;
        }
        if let Some(f) = self
            .out
            .facts
            .iter_mut()
            .rev()
            .take(8)
            .find(|f| f.subject == subject && f.object == object && f.label == label)
        {
            if !f.evidence.contains(&self.ev) {
                f.weight += 1.0;
                if f.evidence.len() < 3 {
                    f.evidence.push(self.ev.clone());
                }
            }
            return;
        }
        self.out.facts.push(LocalRelation {
            subject: subject.to_string(),
            object: object.to_string(),
            label: label.into_owned(),
            weight: 1.0,
            evidence: vec![self.ev.clone()],
        });
    }

    fn fact(&mut self, subject: &str, p: Predicate, object: &str) {
        // A symmetric fact is kept once, its ends in key order.
        let (subject, object) = if p.symmetric() && object < subject {
            (object, subject)
        } else {
            (subject, object)
        };
        self.add(subject, std::borrow::Cow::Borrowed(p.label()), object);
        let votes: &[(bool, &'static str)] = match p {
            Predicate::BornIn | Predicate::DiedIn => &[(true, "person"), (false, "place")],
            Predicate::AuthorOf => &[(true, "person"), (false, "work")],
            Predicate::PublishedBy => &[(true, "work")],
            Predicate::LocatedIn => &[(false, "place")],
            Predicate::SpouseOf | Predicate::ParentOf | Predicate::SiblingOf => {
                &[(true, "person"), (false, "person")]
            }
            _ => &[],
        };
        for &(on_subject, kind) in votes {
            let k = if on_subject { subject } else { object };
            self.vote(k, kind, false);
        }
    }

    /// A role's fact between its holder (a name) and its owner.
    fn role_fact(&mut self, r: &lexicon::Role, holder: usize, owner: &str) {
        let Some(h) = self.key(holder) else {
            return;
        };
        if r.holder_subject {
            self.fact(h, r.pred, owner);
        } else {
            self.fact(owner, r.pred, h);
        }
    }

    fn read(&mut self) {
        self.object_owners = self.object_roles();
        let clauses = self.clauses();
        let mut sentence_subject: Option<&'a str> = self.cut_opening();
        let mut subjects: Vec<Option<&'a str>> = Vec::with_capacity(clauses.len());
        // Clauses with no subject before the sentence's own (a leading
        // participle: "Born in Vik, he …") take it once it is known.
        let mut pending: Vec<usize> = Vec::new();
        // A preposition and the name it governs opening the sentence.
        let mut opening: Option<(&'static str, usize)> = None;
        for (ci, &(a, b, opens)) in clauses.iter().enumerate() {
            let (subject, from) = match opens {
                Opens::Attached => (self.attached_to(a, sentence_subject), a),
                Opens::Shared => (sentence_subject, a),
                Opens::Resume(before) => (
                    subjects.get(before).copied().flatten().or(sentence_subject),
                    a,
                ),
                Opens::Carried => {
                    let s = self.topic.interrupted.take();
                    if let Some(s) = s {
                        // "1732 – 25 September 1774) was …": the life span
                        // before the parenthesis closes.
                        self.life_span(s, 0, a.saturating_sub(1));
                        sentence_subject = sentence_subject.or(Some(s));
                    }
                    (s, a)
                }
                Opens::Fresh => match self.own_subject(a, b) {
                    Some((Written::Possessed(owner, noun), from)) => {
                        // Its facts are the thing's, told of its owner.
                        subjects.push(None);
                        self.possessed = Some(noun);
                        self.predicate(owner, (None, from), b, false);
                        self.possessed = None;
                        continue;
                    }
                    Some((w, from)) => {
                        let s = self.resolve(w);
                        // A heading names no subject: it says nothing of it.
                        if matches!(w, Written::Name(_)) && !self.has_verb(from, b) {
                            self.topic.subjects.pop();
                            // "At the University of X, Holt earned …": the
                            // name is the next clause's verb's.
                            if ci == 0
                                && let Written::Name(m) = w
                                && let Some(p) = self.opening_prep(a, from - 1, b)
                            {
                                opening = Some((p, m));
                                subjects.push(None);
                                continue;
                            }
                        }
                        if let (1, Some((p, m)), Some(s)) = (ci, opening, s) {
                            self.opening_argument(s, from, b, p, m);
                        }
                        if sentence_subject.is_none() {
                            sentence_subject = s;
                        }
                        (s, from)
                    }
                    None => {
                        if sentence_subject.is_none() {
                            pending.push(ci);
                        }
                        (sentence_subject, a)
                    }
                },
            };
            subjects.push(subject);
            if let Some(s) = subject
                && opens == Opens::Attached
                && a > 0
                && self.toks.get(a - 1) == Some(&Tok::Punct('('))
            {
                self.life_span(s, a, b);
                self.cast(a, b);
            }
            if let Some(s) = subject {
                let participle = (opens == Opens::Attached).then_some(a);
                // The main clause, or its rest after a parenthesis.
                let main = ci == 0 || matches!(opens, Opens::Resume(0) | Opens::Carried);
                self.predicate(s, (participle, from), b, main);
            }
        }
        if let Some(s) = sentence_subject {
            for ci in pending {
                if let Some(&(a, b, _)) = clauses.get(ci) {
                    self.predicate(s, (Some(a), a), b, false);
                }
            }
        }
        self.topic.interrupted = self.open_paren().and_then(|p| {
            clauses
                .iter()
                .position(|c| c.1 == p)
                .and_then(|ci| subjects.get(ci).copied().flatten())
                .or_else(|| self.attached_to(p + 1, sentence_subject))
        });
    }

    /// The preposition opening a clause `a..b` that holds no verb and ends
    /// at a comma, when the name at token `n` is its object past light words
    /// only ("At the University of X,", "With partner X,").
    fn opening_prep(&self, a: usize, n: usize, b: usize) -> Option<&'static str> {
        let p = OPENING_PREPS
            .iter()
            .copied()
            .find(|p| self.word(a) == Some(*p))?;
        let light_only = (a + 1..n).all(|i| {
            self.word(i)
                .is_some_and(|w| light(w) && !verbish(w) && !lexicon::PREPOSITION_SET.has(w))
        });
        let comma = self.toks.get(b) == Some(&Tok::Punct(','));
        (light_only && n + 1 == b && comma).then_some(p)
    }

    /// The fact of a sentence's opening preposition and name (`p`, mention
    /// `m`) with the verb after the subject of the clause `from..b`
    /// ("…, Holt earned": `other: earned at`).
    fn opening_argument(&mut self, subject: &'a str, from: usize, b: usize, p: &str, m: usize) {
        let Some(obj) = self.key(m) else {
            return;
        };
        for i in from..b.min(from + 4) {
            let Some(w) = self.word(i) else {
                return;
            };
            if matches!(w, "has" | "had" | "have") || lexicon::BETWEEN_SET.has(w) {
                continue;
            }
            if verbish(w) && !lexicon::BE.contains(&w) {
                self.add(subject, phrase(w, Some(p)), obj);
            }
            return;
        }
    }

    /// "Captain Vance (Tom Berglund)" in a document about a work: the one
    /// person in the parenthesis (tokens `a..b`) after a character's name
    /// plays in the work.
    fn cast(&mut self, a: usize, b: usize) {
        let Some(work) = self
            .topic
            .about
            .filter(|w| matches!(self.topic.kind(w), "work" | "other"))
        else {
            return;
        };
        let (Some(&Tok::Ment(actor)), Some(&Tok::Ment(role))) = (
            self.toks.get(a),
            a.checked_sub(2).and_then(|r| self.toks.get(r)),
        ) else {
            return;
        };
        let closed = b == a + 1 && self.toks.get(b) == Some(&Tok::Punct(')'));
        let person = |k: Option<&str>| k.is_some_and(|k| self.topic.kind(k) == "person");
        // (Not a prize's category: "Outstanding Director (X)".)
        let character = self.key(role).is_some_and(|k| {
            matches!(self.topic.kind(k), "person" | "other")
                && k.rsplit('_').next().is_some_and(|last| {
                    lexicon::role(last).is_none() && lexicon::kind_of_noun(last).is_none()
                })
        });
        if closed
            && character
            && person(self.key(actor))
            && let Some(actor) = self.key(actor)
        {
            self.add(work, phrase("stars", None), actor);
        }
    }

    /// "elected X as the new president of Y", "named X as director of Y": a
    /// role after "as" is the name's right before it, a verb's object; the
    /// owner is the name after the role's "of". Returns the owners' tokens.
    fn object_roles(&mut self) -> Vec<usize> {
        let mut owners = Vec::new();
        for i in 2..self.toks.len() {
            if self.word(i) != Some("as") {
                continue;
            }
            let Some(&Tok::Ment(x)) = self.toks.get(i - 1) else {
                continue;
            };
            let verb = self
                .word(i - 2)
                .is_some_and(|w| verbish(w) && !lexicon::BE.contains(&w));
            if self.is_date(x) || !verb {
                continue;
            }
            // "as the new President of Vestmark": a role's name.
            if let Some((at, n)) = self.name_after(i + 1)
                && let Some((r, owner)) = self.role_name(n)
            {
                self.role_fact(r, x, owner);
                owners.push(at);
                continue;
            }
            let Some((r, of)) = self.role_phrase_at(i + 1) else {
                continue;
            };
            let Some((at, y)) = self.name_after(of + 1) else {
                continue;
            };
            if let Some(owner) = self.key(y) {
                self.role_fact(r, x, owner);
                owners.push(at);
            }
        }
        owners
    }

    /// A name that is a role of another entity of the document ("President
    /// of Vestmark"): the role and the owner's key.
    fn role_name(&self, m: usize) -> Option<(&'static lexicon::Role, &'a str)> {
        let (head, owner) = self.key(m)?.split_once("_of_")?;
        let role = lexicon::role(head.rsplit('_').next()?)?;
        let (&owner, _) = self.topic.kinds.get_key_value(owner)?;
        (head.split('_').count() <= 3).then_some((role, owner))
    }

    /// The name (no date) at token `i` or after at most three light words,
    /// with its token.
    fn name_after(&self, i: usize) -> Option<(usize, usize)> {
        for j in i..i + 4 {
            match self.toks.get(j)? {
                Tok::Ment(m) if !self.is_date(*m) => return Some((j, *m)),
                Tok::Word(_) if self.word(j).is_some_and(|w| light(w) && !verbish(w)) => {}
                _ => return None,
            }
        }
        None
    }

    /// The subject of a sentence that opens with a verb in lower case, the
    /// rest of one cut at a title's "?" or "!" ("Where Does It Hurt? | is a
    /// 1972 film …"): the document's subject, else the last one named.
    fn cut_opening(&self) -> Option<&'a str> {
        match self.toks.first() {
            Some(Tok::Word(w))
                if w.chars().next().is_some_and(char::is_lowercase)
                    && self.word(0).is_some_and(verbish) =>
            {
                self.topic
                    .about
                    .or_else(|| self.topic.subjects.last().copied())
            }
            _ => None,
        }
    }

    /// The token of the last parenthesis the sentence leaves open.
    fn open_paren(&self) -> Option<usize> {
        let mut open: Vec<usize> = Vec::new();
        for (i, t) in self.toks.iter().enumerate() {
            match t {
                Tok::Punct('(') => open.push(i),
                Tok::Punct(')') => {
                    open.pop();
                }
                _ => {}
            }
        }
        open.pop()
    }

    /// A life span in a parenthesis after a name: "(24 October 1650,
    /// Middelburg – 23 February 1704, Amsterdam)", "(1838 in Dresden –
    /// 1898 in Silverton, Colorado)": each side a date, then its places.
    fn life_span(&mut self, subject: &'a str, a: usize, b: usize) {
        let Some(toks) = self.toks.get(a..b) else {
            return;
        };
        let Some(dash) = toks.iter().position(|t| *t == Tok::Punct('–')) else {
            return;
        };
        let (birth, death) = toks.split_at(dash);
        let sides = [
            (birth, Predicate::DateOfBirth, Predicate::BornIn),
            (
                death.get(1..).unwrap_or(&[]),
                Predicate::DateOfDeath,
                Predicate::DiedIn,
            ),
        ];
        // Both sides read as a date and places, or nothing is said.
        let read = |side: &[Tok<'a>]| -> Option<(usize, Vec<usize>)> {
            let mut date = None;
            let mut places = Vec::new();
            for t in side {
                match t {
                    Tok::Ment(m) if self.is_date(*m) && date.is_none() && places.is_empty() => {
                        date = Some(*m);
                    }
                    Tok::Ment(m) if date.is_some() && !self.is_date(*m) => places.push(*m),
                    // "1838 or 1839": the first.
                    Tok::Ment(m) if self.is_date(*m) && places.is_empty() => {}
                    Tok::Punct(',') => {}
                    Tok::Word(w) if matches!(lower(w).as_ref(), "in" | "or" | "at") => {}
                    _ => return None,
                }
            }
            date.map(|d| (d, places))
        };
        let (Some(born), Some(died)) = (read(sides[0].0), read(sides[1].0)) else {
            return;
        };
        for ((date, places), (_, date_p, place_p)) in [born, died].into_iter().zip(sides) {
            if let Some(d) = self.key(date) {
                self.fact(subject, date_p, d);
            }
            for p in places {
                if let Some(p) = self.key(p) {
                    self.fact(subject, place_p, p);
                }
            }
        }
    }

    /// Read the predicate part of a clause about `subject`: tokens `a..b`,
    /// of a clause that may open with a participle at `participle` ("…,
    /// founded in 1923 by X"; "Born in Vik, …").
    fn predicate(
        &mut self,
        subject: &'a str,
        (participle, a): (Option<usize>, usize),
        b: usize,
        main: bool,
    ) {
        self.chain.clear();
        self.outside = false;
        let mut cue: Option<(&'static lexicon::Cue, bool, &'a str)> = None;
        let mut cue_subject = subject;
        let mut window: Vec<&'s str> = Vec::new();
        let mut dobj: Option<&'a str> = None;
        // After a parenthesis, the argument it followed goes on ("the son of
        // X (1679 – 1726) and his wife Y").
        let (mut last_object, mut last_role, mut last_prep) = self.resumed(a);
        // The last verb outside the cues, when no cue came first.
        let mut generic: Option<&'a str> = None;
        // The last name read and its token (the subject's name right
        // before: "Kim Jong-il's mother, …").
        let mut last_ment: Option<(usize, &'a str)> =
            a.checked_sub(1).and_then(|p| match self.toks.get(p) {
                Some(Tok::Ment(m)) if !self.is_date(*m) => Some((p, self.key(*m)?)),
                _ => None,
            });
        // The name a copula's subject is ("is an ALA Notable Book").
        let mut nominal: Option<&'a str> = None;
        // The kind a typing noun gave the last name ("the cities of X").
        let mut apposed: Option<&'static str> = None;
        // The last verb of any kind outside the cues.
        let mut last_verb: Option<&'a str> = None;
        let mut copula = false;
        // The copula's head noun has been read (a preposition or a name
        // followed it): "an American rock *band* from …".
        let mut head_read = false;
        // The kind the copula's head noun gives ("a *book* by X").
        let mut copula_kind: Option<&'static str> = None;
        for i in a..b {
            match self.toks.get(i) {
                Some(Tok::Word(w)) => {
                    let lw = self.word(i).unwrap_or(w);
                    // "Djibouti's first president", "Norway's prime minister
                    // X": a role of the name before "'s".
                    if let Some(r) = lexicon::role(lw)
                        && window.first().is_some_and(|w| *w == "s")
                        && window.iter().skip(1).all(|w| light(w))
                        && let Some((at, owner)) = last_ment
                    {
                        // "Norway's premier X", "Kim Jong-il's mother, Kim
                        // Jong-suk".
                        let named = match self.toks.get(i + 1) {
                            Some(Tok::Punct(',')) => self.toks.get(i + 2),
                            t => t,
                        };
                        match named {
                            Some(Tok::Ment(h)) if !self.is_date(*h) => self.role_fact(r, *h, owner),
                            _ if copula
                                || at
                                    .checked_sub(1)
                                    .and_then(|p| self.word(p))
                                    .is_some_and(|w| w == "as") =>
                            {
                                if r.holder_subject {
                                    self.fact(subject, r.pred, owner);
                                } else {
                                    self.fact(owner, r.pred, subject);
                                }
                            }
                            _ => {}
                        }
                    }
                    if let Some(c) = lexicon::cue(lw) {
                        let before_be = self.be_before(a, i);
                        let by_next = self.word(i + 1).is_some_and(|n| n == "by");
                        let passive =
                            before_be || by_next || (Some(i) == participle && lw.ends_with("ed"));
                        // A participle after an object is about that object
                        // ("a film directed by X", "the yard founded by Y").
                        cue_subject = match last_object {
                            // ("is an ALA Notable Book written by X": the
                            // subject's own; "is a 1955 film from RKO
                            // Pictures directed by X": a work's, unless
                            // the name is a work too).
                            Some(o)
                                if passive
                                    && !before_be
                                    && window.is_empty()
                                    && nominal != Some(o)
                                    && !(copula_kind == Some("work")
                                        && self.topic.kind(o) != "work") =>
                            {
                                o
                            }
                            _ => subject,
                        };
                        cue = Some((c, passive, w));
                        window.clear();
                        dobj = None;
                        last_prep = None;
                        continue;
                    }
                    if lexicon::BE.contains(&lw) && cue.is_none() {
                        copula = true;
                    }
                    // A verb outside the cues governs the names after it as a
                    // cue does ("starring X, Y and Z").
                    if cue.is_none() && lexicon::VERB_SET.has(lw) {
                        generic = Some(w);
                        window.clear();
                        last_prep = None;
                        last_role = None;
                        continue;
                    }
                    // Any other verb governs the names after it that no
                    // nearer verb does ("released in 1957 by X").
                    if cue.is_none() && is_participle(lw) {
                        last_verb = Some(w);
                        // "was organised by X": a participle right after
                        // "be" makes the clause passive, no copula.
                        if copula && !head_read && self.be_before(a, i) {
                            copula = false;
                        }
                    }
                    if copula && !head_read && cue.is_none() {
                        if lexicon::PREPOSITION_SET.has(lw) || !light(lw) {
                            if !lexicon::BE.contains(&lw) {
                                head_read = true;
                                self.typed_by_copula(subject, copula_kind, main);
                            }
                        } else if let Some(kind) = lexicon::kind_of_noun(lw) {
                            copula_kind = Some(kind);
                        }
                    }
                    window.push(lw);
                }
                Some(Tok::Ment(m)) => {
                    let m = *m;
                    let Some(obj) = self.key(m) else {
                        continue;
                    };
                    // "Norway's former Labour leader X": a name between a
                    // possessive and a role noun before a name modifies the
                    // role.
                    if window.first().is_some_and(|w| *w == "s")
                        && self.word(i + 1).is_some_and(|w| lexicon::role(w).is_some())
                        && matches!(self.toks.get(i + 2), Some(Tok::Ment(_)))
                    {
                        window.push(obj);
                        continue;
                    }
                    if !self.is_date(m) {
                        last_ment = Some((i, obj));
                    }
                    // "X (1972)": the name's date, no argument.
                    if i > 0 && self.date_paren(i - 1) {
                        continue;
                    }
                    // "won the 2009 Aurealis Award", "from the 1897 gothic
                    // novel X": a date before a name after a determiner is
                    // the name's, no argument.
                    if self.is_date(m)
                        && self.name_follows(i + 1)
                        && window
                            .last()
                            .is_some_and(|w| matches!(*w, "the" | "a" | "an"))
                    {
                        continue;
                    }
                    // "World Player of the Year 2006": a date right after a
                    // name is the name's.
                    if self.is_date(m)
                        && window.is_empty()
                        && i.checked_sub(1)
                            .and_then(|p| self.toks.get(p))
                            .is_some_and(|t| matches!(t, Tok::Ment(p) if !self.is_date(*p)))
                    {
                        continue;
                    }
                    // "the band Iron Maiden", "the cities of Hiroshima and
                    // Nagasaki": the noun before a name types it.
                    // … and the names coordinated with it ("and Nagasaki").
                    let listed_on = window.is_empty()
                        || matches!(window.as_slice(), [w] if *w == "and" || *w == "or");
                    apposed = match apposed_kind(&window) {
                        Some(kind) => Some(kind),
                        None if listed_on => apposed,
                        None => None,
                    };
                    if let Some(kind) = apposed.filter(|_| !self.is_date(m)) {
                        self.vote(obj, kind, false);
                    }
                    // "The Atbarah River in northeast Africa rises …": a
                    // place after the subject, before any verb.
                    if participle.is_none()
                        && cue.is_none()
                        && !copula
                        && generic.is_none()
                        && last_verb.is_none()
                        && last_prep.is_none()
                        && window.first().is_some_and(|w| *w == "in")
                        && window.iter().skip(1).all(|w| light(w) && !verbish(w))
                        && matches!(self.topic.kind(obj), "place" | "other")
                        && !matches!(self.topic.kind(subject), "person" | "date")
                    {
                        self.fact(subject, Predicate::LocatedIn, obj);
                    }
                    if copula && !head_read && !self.is_date(m) {
                        head_read = true;
                        self.typed_by_copula(subject, copula_kind, main);
                        if window.iter().all(|w| light(w) || lexicon::BE.contains(w)) {
                            nominal = Some(obj);
                        }
                    } else if window.is_empty() && nominal.is_some() && nominal == last_object {
                        // "an ALA Notable Book": names side by side.
                        nominal = Some(obj);
                    }
                    self.argument(
                        subject,
                        cue_subject,
                        cue,
                        &window,
                        obj,
                        (m, i),
                        (&mut dobj, last_object),
                        (&mut last_prep, &mut last_role),
                        (copula.then_some(copula_kind), generic, last_verb),
                    );
                    if !self.is_date(m) {
                        last_object = Some(obj);
                    }
                    window.clear();
                }
                _ => {}
            }
        }
        if copula && !head_read {
            self.typed_by_copula(subject, copula_kind, main);
        }
    }

    /// The argument a clause opening at `a` right after a parenthesis goes
    /// on from: the name before the parenthesis, the role noun and the
    /// preposition before that name (at most six words back).
    #[allow(clippy::type_complexity)]
    fn resumed(
        &self,
        a: usize,
    ) -> (
        Option<&'a str>,
        Option<&'static lexicon::Role>,
        Option<&'static str>,
    ) {
        if a == 0 || self.toks.get(a - 1) != Some(&Tok::Punct(')')) {
            return (None, None, None);
        }
        let Some((at, m)) = self.name_before_at(a) else {
            return (None, None, None);
        };
        let mut words: Vec<&'s str> = (at.saturating_sub(6)..at)
            .rev()
            .map_while(|j| self.word(j))
            .collect();
        words.reverse();
        (self.key(m), role_of(&words), governing(&words))
    }

    /// A definition types its subject ("X is an American rock band").
    fn typed_by_copula(&mut self, subject: &str, kind: Option<&'static str>, main: bool) {
        if let (Some(kind), true) = (kind, main) {
            self.vote(subject, kind, true);
        }
    }

    /// Whether tokens `a..b` hold a verb.
    fn has_verb(&self, a: usize, b: usize) -> bool {
        (a..b).any(|i| self.word(i).is_some_and(verbish))
    }

    /// Whether "be" stands before token `i` (other than words like "later"
    /// and adverbs in "-ly": "is roughly bisected by").
    fn be_before(&self, a: usize, i: usize) -> bool {
        let mut j = i;
        while j > a {
            j -= 1;
            match self.word(j) {
                Some(w) if lexicon::BETWEEN_SET.has(w) || is_adverb(w) => continue,
                Some(w) => return lexicon::BE.contains(&w),
                None => return false,
            }
        }
        false
    }

    /// "the son of A and his wife B", "… by his mistress B": after a
    /// parent named by a child role `r`, a partner of that parent (`other`)
    /// is a parent too, and a spouse the parent's. Whether it read one.
    fn partner_of_parent(
        &mut self,
        r: &lexicon::Role,
        window: &[&'s str],
        other: &'a str,
        obj: &'a str,
        child: &'a str,
    ) -> bool {
        if r.pred != Predicate::ParentOf || r.holder_subject {
            return false;
        }
        let Some(noun) = partner_noun(window) else {
            return false;
        };
        if lexicon::role(noun).is_some_and(|p| p.pred == Predicate::SpouseOf) {
            self.fact(other, Predicate::SpouseOf, obj);
        }
        self.fact(obj, Predicate::ParentOf, child);
        true
    }

    #[allow(clippy::too_many_arguments)]
    fn argument(
        &mut self,
        subject: &'a str,
        cue_subject: &'a str,
        cue: Option<(&'static lexicon::Cue, bool, &'a str)>,
        window: &[&'s str],
        obj: &'a str,
        (m, at): (usize, usize),
        (dobj, last_object): (&mut Option<&'a str>, Option<&'a str>),
        (last_prep, last_role): (
            &mut Option<&'static str>,
            &mut Option<&'static lexicon::Role>,
        ),
        (copula, generic, last_verb): (
            Option<Option<&'static str>>,
            Option<&'a str>,
            Option<&'a str>,
        ),
    ) {
        let slot = if self.is_date(m) {
            Slot::Date
        } else {
            Slot::Thing
        };
        // "… and Y", "in A, B": the slot of the argument before (`""`: the
        // direct object).
        // A place after a place and place nouns: "in Ratnagiri district,
        // Maharashtra state, India", "in the Hiran region of Somalia".
        let place_chain = last_prep.is_some_and(|p| lexicon::LOCATIVES.contains(&p))
            && slot == Slot::Thing
            && window.iter().all(|w| {
                matches!(*w, "of" | "the" | "and" | "or")
                    || lexicon::listed(&lexicon::PLACE_NOUN_SET, w)
            });
        // "X to the north, Y to the east, and Z": the side is X's.
        let window = match window {
            [to, the, side, rest @ ..]
                if *to == "to"
                    && *the == "the"
                    && lexicon::COMPASS.contains(side)
                    && last_prep.is_some() =>
            {
                rest
            }
            w => w,
        };
        // "near Vik, Vestmark, Norland": the place after the comma holds the
        // ones before.
        let chained = slot == Slot::Thing
            && !self.chain.is_empty()
            && self.place_after_place(at)
            && self.placeish(obj);
        if chained {
            for i in 0..self.chain.len() {
                if let Some(&held) = self.chain.get(i) {
                    self.fact(held, Predicate::LocatedIn, obj);
                }
            }
            self.chain.push(obj);
            if self.chain.len() > CHAIN {
                self.chain.remove(0);
            }
            if self.outside {
                return;
            }
        } else {
            self.chain.clear();
        }
        // "located just north of X", "30 km (19 mi) south of X": the
        // subject lies that way from X, outside it.
        if slot == Slot::Thing
            && let Some(side) = side_of(window)
        {
            let s = if cue.is_some() { cue_subject } else { subject };
            self.add(s, phrase(side, Some("of")), obj);
            if self.placeish(obj) {
                self.chain.push(obj);
                self.outside = true;
            }
            *last_prep = None;
            return;
        }
        if slot == Slot::Thing
            && !chained
            && self.placeish(obj)
            && governing(window).is_some_and(|p| lexicon::LOCATIVES.contains(&p))
        {
            self.chain.push(obj);
            self.outside = false;
        }
        let coordinated = last_prep.is_some()
            && (window.is_empty()
                || matches!(window, [w] if *w == "and" || *w == "or")
                || place_chain);
        let prep: Option<&'static str> = if coordinated {
            last_prep.filter(|p| !p.is_empty())
        } else {
            governing(window)
        };
        // "the town of X" is X.
        let of_place = prep.is_none() && ends_of_place(window);
        let direct = if coordinated {
            *last_prep == Some("")
        } else {
            prep.is_none()
                && window
                    .iter()
                    .take(window.len() - usize::from(of_place))
                    .all(|w| light(w))
        };
        // A role noun before "of" ("the founder of X") or after a possessive
        // ("his cousin X").
        let before = *last_role;
        // "the son of China's leader X": the role is of the name after the
        // possessive.
        let possessor = self.toks.get(at + 1) == Some(&Tok::Word("s"));
        let of_possessed = match window {
            [s] => *s == "s",
            [s, rest @ ..] => {
                *s == "s"
                    && rest.iter().all(|w| light(w))
                    && rest.iter().any(|w| lexicon::role(w).is_some())
            }
            [] => false,
        };
        let role = match role_of(window) {
            Some(r) => Some(r),
            None if coordinated || of_possessed => *last_role,
            None => None,
        };
        *last_role = role;
        if possessor && role.is_some() {
            *last_prep = prep;
            return;
        }
        if role.is_none()
            && let (Some(r), Some(other)) = (before, last_object)
            && self.partner_of_parent(r, window, other, obj, subject)
        {
            *last_role = before;
            *last_prep = prep;
            return;
        }
        if role.is_some() && self.object_owners.contains(&at) {
            *last_prep = prep;
            return;
        }
        if let Some(r) = role {
            // "the father of X and Y": the children listed are siblings.
            if role_of(window).is_none()
                && r.pred == Predicate::ParentOf
                && r.holder_subject
                && let Some(prev) = last_object
            {
                self.fact(prev, Predicate::SiblingOf, obj);
            }
            let (holder, owner) = (subject, obj);
            if r.holder_subject {
                self.fact(holder, r.pred, owner);
            } else {
                self.fact(owner, r.pred, holder);
            }
            *last_prep = prep;
            return;
        }
        if let Some((pron, r)) = possessed_role(window)
            && let Some(owner) = self.pronoun(pron)
        {
            self.role_fact(r, m, owner);
        }
        // "served as President of Vestmark", "was the Prime Minister of
        // Vestmark": the subject holds the role the name says.
        let as_or_be = match window.iter().rposition(|w| *w == "as") {
            Some(k) => window
                .get(k + 1..)
                .is_some_and(|rest| rest.iter().all(|w| light(w))),
            None => copula.is_some() && window.iter().all(|w| light(w) || lexicon::BE.contains(w)),
        };
        if slot == Slot::Thing
            && as_or_be
            && !self.object_owners.contains(&at)
            && let Some((r, owner)) = self.role_name(m)
        {
            if r.holder_subject {
                self.fact(subject, r.pred, owner);
            } else {
                self.fact(owner, r.pred, subject);
            }
        }
        // "her marriage to X", "Through his marriage to X, he …".
        if slot == Slot::Thing && noun_before_prep(window, &["to", "with"]) == Some("marriage") {
            self.fact(subject, Predicate::SpouseOf, obj);
            *last_prep = prep;
            return;
        }
        let prep_or_direct = prep.unwrap_or("");
        if prep.is_none() && !direct {
            return;
        }
        let first = last_prep.is_none();
        *last_prep = Some(prep_or_direct);
        if let Some(noun) = self.possessed {
            // "Its music was composed by X": `music composed by`.
            let verb = cue
                .map(|(_, _, w)| lower(w))
                .or_else(|| {
                    window
                        .iter()
                        .rev()
                        .find(|w| is_participle(w))
                        .map(|w| lower(w))
                })
                .or_else(|| last_verb.map(lower));
            if let (Some(v), Some(p)) = (verb, prep) {
                let label = phrase(&format!("{} {v}", lower(noun)), Some(p));
                self.add(subject, label, obj);
            }
            return;
        }
        if let Some((c, passive, word)) = cue {
            let frames = if passive && !c.passive.is_empty() {
                c.passive
            } else {
                c.active
            };
            // "born 3 May 1950, Oslo": a place right after the date is
            // the birthplace ("born Kenji Imada" names no place).
            let after_date = coordinated && self.date_before(at);
            let frame = frames.iter().find(|f| {
                f.prep == prep_or_direct
                    && f.slot == slot
                    && (after_date
                        || !(f.prep.is_empty()
                            && matches!(f.pred, Predicate::BornIn | Predicate::DiedIn)))
            });
            match frame {
                Some(f) => {
                    let s = if f.pred.literal_object() && c.date_of_object && !passive {
                        dobj.unwrap_or(cue_subject)
                    } else {
                        cue_subject
                    };
                    match f.dir {
                        Dir::Forward => self.fact(s, f.pred, obj),
                        Dir::Backward => self.fact(obj, f.pred, s),
                    }
                }
                // Outside the frames, only a preposition right after the
                // verb is the verb's ("joined a survey programme in Norway":
                // the programme's).
                None if prep.is_some_and(|p| {
                    window
                        .iter()
                        .position(|w| *w == p)
                        .and_then(|at| window.get(..at))
                        .is_some_and(|pre| pre.iter().all(|w| lexicon::BETWEEN_SET.has(w)))
                }) || coordinated != prep.is_none() =>
                {
                    let phrase = phrase(&lower(word), prep);
                    self.add(cue_subject, phrase, obj);
                }
                None => {}
            }
            if direct && slot == Slot::Thing {
                *dobj = Some(obj);
            }
            return;
        }
        // No cue: "is a city in X", "is a town of X", "is a book by X", "is
        // a footballer from X", or another verb before the name.
        // "is the system used on X", "is a film distributed by X": the
        // participle's preposition, not the copula's ("situated in" stays
        // the copula's place).
        if copula.is_some()
            && slot == Slot::Thing
            && let Some(p) = prep.filter(|p| !matches!(*p, "in" | "at"))
            && let Some(v) = participle_before(window, p)
        {
            self.add(subject, phrase(v, Some(p)), obj);
            return;
        }
        if let Some(noun_kind) = copula
            && slot == Slot::Thing
        {
            // The head noun says what the subject is, else its kind.
            let person = match noun_kind {
                Some(k) => k == "person",
                None => self.topic.kind(subject) == "person",
            };
            match prep {
                // Not a work's ("a film about cadets at X", "set in Y").
                Some("in" | "at") if !person && noun_kind != Some("work") => {
                    self.fact(subject, Predicate::LocatedIn, obj);
                    return;
                }
                Some("on") if noun_kind == Some("place") => {
                    self.fact(subject, Predicate::LocatedIn, obj);
                    return;
                }
                None if of_place && noun_kind == Some("place") => {
                    self.fact(subject, Predicate::LocatedIn, obj);
                    return;
                }
                Some("by") if noun_kind == Some("work") => {
                    self.fact(obj, Predicate::AuthorOf, subject);
                    return;
                }
                // The head noun's own preposition, the first argument.
                Some(p @ ("from" | "for"))
                    if (p == "from" || noun_kind == Some("person"))
                        && first
                        && window
                            .iter()
                            .rev()
                            .take_while(|w| **w != p)
                            .all(|w| light(w) && !verbish(w)) =>
                {
                    self.add(subject, phrase("is", Some(p)), obj);
                    return;
                }
                // "a species of lizard native to X": an adjective and its
                // preposition.
                Some(p @ "to")
                    if window.len() > 1
                        && window
                            .get(window.len() - 2)
                            .is_some_and(|w| ADJECTIVE_TO.contains(w)) =>
                {
                    if let Some(adj) = window.get(window.len() - 2) {
                        self.add(subject, phrase(adj, Some(p)), obj);
                    }
                    return;
                }
                // "is the sequel to X", "is a parody of X", "is a
                // politician in X" (a person's head noun): the head noun
                // says how.
                Some(p @ ("of" | "to" | "in"))
                    if first
                        && (p != "in"
                            || (noun_kind == Some("person") && !self.modifies_noun(at))) =>
                {
                    let at = window.iter().rposition(|w| *w == p);
                    let noun = at
                        .and_then(|o| o.checked_sub(1))
                        .and_then(|n| window.get(n));
                    let after_light = at
                        .and_then(|o| window.get(o + 1..))
                        .is_some_and(|rest| rest.iter().all(|w| light(w)));
                    // The copula's own head noun: no preposition between
                    // "is" and it but "one of" ("is one of the townships
                    // of X"; not "is a river in the south of X").
                    let head = at
                        .and_then(|o| window.get(..o.saturating_sub(1)))
                        .is_some_and(|before| {
                            let after_be: Vec<&str> = before
                                .iter()
                                .rev()
                                .take_while(|w| !lexicon::BE.contains(w))
                                .map(|w| w.as_ref())
                                .collect();
                            !after_be.iter().enumerate().any(|(k, w)| {
                                lexicon::PREPOSITION_SET.has(w)
                                    && !(*w == "of" && after_be.get(k + 1) == Some(&"one"))
                            })
                        });
                    if let Some(n) = noun
                        && head
                        && after_light
                        && !rlmkg_text::is_stopword(n)
                        && n.chars().all(char::is_alphabetic)
                    {
                        self.add(subject, phrase(n, Some(p)), obj);
                    }
                    return;
                }
                Some("in" | "at" | "by" | "on" | "from" | "for") => return,
                _ => {}
            }
        }
        let verb = window
            .iter()
            .rev()
            .find(|w| verbish(w) && !lexicon::BE.contains(*w))
            .map(|w| lower(w))
            .or_else(|| generic.map(lower))
            // Past other arguments only: "released in 1957 by X", not
            // "a failed attempt … to capture X".
            .or_else(|| {
                last_verb
                    .filter(|_| window.iter().all(|w| rlmkg_text::is_stopword(w)))
                    .map(lower)
            });
        // "consists of X", not "occupied the north of X".
        let of_loose = prep == Some("of")
            && !window.iter().rposition(|w| *w == "of").is_some_and(|o| {
                // Right after the verb: in the window, or the verb that
                // opened it.
                match o.checked_sub(1) {
                    Some(v) => window.get(v).is_some_and(|v| verbish(v)),
                    None => first && generic.is_some(),
                }
            });
        if let Some(v) = verb.filter(|_| !of_loose) {
            let phrase = phrase(&v, prep);
            self.add(subject, phrase, obj);
        }
    }
}

/// The past participle right before the last `prep` of the window ("used"
/// in "the system used on").
fn participle_before<'w>(window: &'w [&'_ str], prep: &str) -> Option<&'w str> {
    let at = window.iter().rposition(|w| *w == prep)?;
    let w = window.get(at.checked_sub(1)?)?;
    let past = (w.len() > 3 && w.ends_with("ed") && !lexicon::listed(&lexicon::DEMONYM_SET, w))
        || rlmkg_text::is_irregular_past(w);
    (past && !lexicon::BE.contains(w)).then_some(w.as_ref())
}

/// Prepositions whose object, opening a sentence before a comma, is an
/// argument of the verb after ("At X, he earned …").
const OPENING_PREPS: &[&str] = &["at", "in", "on", "with", "near", "from"];

/// How many places of a run ("Vik, Vestmark, Norland") a later one holds.
const CHAIN: usize = 4;

/// Adjectives that take "to" before a place or a thing ("native to X").
const ADJECTIVE_TO: &[&str] = &[
    "native",
    "endemic",
    "indigenous",
    "adjacent",
    "close",
    "next",
];

/// The compass point of a window ending "north of" (not "the north of":
/// that is inside the name), the side the subject lies on.
fn side_of<'w>(window: &'w [&'_ str]) -> Option<&'w str> {
    match window {
        [.., before, side, of] if *of == "of" && !matches!(*before, "the" | "to") => {
            lexicon::COMPASS.contains(side).then_some(side.as_ref())
        }
        [side, of] if *of == "of" => lexicon::COMPASS.contains(side).then_some(side.as_ref()),
        _ => None,
    }
}

/// The preposition that governs the name after `window`: the last one
/// before it, passing over "of" after a place noun ("in the city of X": in).
fn governing(window: &[&str]) -> Option<&'static str> {
    let prep = |w: &str| lexicon::PREPOSITIONS.iter().copied().find(|p| *p == w);
    let mut i = window.len();
    while i > 0 {
        i -= 1;
        let Some(p) = window.get(i).and_then(|w| prep(w)) else {
            continue;
        };
        let of_place = p == "of" && i > 0 && part_of_place(window, i - 1);
        if !of_place {
            return Some(p);
        }
    }
    None
}

/// The kind a typing noun right before a name gives it ("the band X",
/// "the city of X", "the cities of X and Y").
fn apposed_kind(window: &[&str]) -> Option<&'static str> {
    match window {
        [.., n, of] if *of == "of" => lexicon::kind_of_noun(n).filter(|k| *k == "place"),
        [.., n] => lexicon::kind_of_noun(n),
        [] => None,
    }
}

/// Whether word `n` of the window names a place or a part of one before
/// "of": "the town of", "the northern part of", "the south of" (a compass
/// point after "the": "north of X" is outside X).
fn part_of_place(window: &[&str], n: usize) -> bool {
    let Some(w) = window.get(n) else {
        return false;
    };
    lexicon::kind_of_noun(w) == Some("place")
        || lexicon::PART_SET.has(w)
        || (matches!(*w, "north" | "south" | "east" | "west")
            && n.checked_sub(1)
                .and_then(|p| window.get(p))
                .is_some_and(|t| *t == "the"))
}

/// Whether the window ends in a place noun and "of" ("the town of").
fn ends_of_place(window: &[&str]) -> bool {
    match window {
        [.., of] if *of == "of" => part_of_place(window, window.len() - 2),
        _ => false,
    }
}

/// `other: <verb> <prep>`.
fn phrase(verb: &str, prep: Option<&str>) -> std::borrow::Cow<'static, str> {
    let mut s = String::from(OTHER_PREFIX);
    s.push_str(verb);
    if let Some(p) = prep {
        s.push(' ');
        s.push_str(p);
    }
    std::borrow::Cow::Owned(s)
}

/// A role noun right before "of" at the end of the window ("founder of").
/// A role noun before the last "of" of the window, with only light words
/// after it ("the second son of the famous hetman X").
fn role_of(window: &[&str]) -> Option<&'static lexicon::Role> {
    let of = window.iter().rposition(|w| *w == "of")?;
    if !window.get(of + 1..)?.iter().all(|w| light(w)) {
        return None;
    }
    lexicon::role(window.get(..of)?.last()?)
}

/// The partner noun of "and his wife", "by his second wife", "and her
/// husband" ending the window (a possessive, at most one word, the noun).
fn partner_noun<'w>(window: &'w [&'_ str]) -> Option<&'w str> {
    let (join, p, noun) = match window {
        [.., j, p, _, n] if POSSESSIVES.contains(p) => (j, p, n),
        [.., j, p, n] => (j, p, n),
        _ => return None,
    };
    (matches!(*join, "and" | "by") && POSSESSIVES.contains(p) && lexicon::is_partner(noun))
        .then_some(noun.as_ref())
}

/// The noun right before the last of `preps` in the window when only light
/// words follow it ("marriage" in "her marriage to the writer").
fn noun_before_prep<'w>(window: &'w [&'_ str], preps: &[&str]) -> Option<&'w str> {
    let at = window.iter().rposition(|w| preps.contains(w))?;
    if !window.get(at + 1..)?.iter().all(|w| light(w)) {
        return None;
    }
    Some(*window.get(at.checked_sub(1)?)?)
}

/// A possessive and a role noun right before a name ("his cousin").
fn possessed_role<'w>(window: &'w [&'_ str]) -> Option<(&'w str, &'static lexicon::Role)> {
    // "his cousin", "his second wife".
    match window {
        [.., p, r] | [.., p, _, r] if POSSESSIVES.contains(p) => {
            lexicon::role(r).map(|role| (*p, role))
        }
        _ => None,
    }
}

pub(crate) use lexicon::{demonym_run_by, is_demonym, is_typing_noun, kind_of_noun, with_lower};

#[cfg(test)]
mod tests;
