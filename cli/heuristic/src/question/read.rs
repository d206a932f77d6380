//! Reading a question: each piece [`Question`] holds, read from its text
//! once, here.

use crate::hops::{not_relation, participle, relation_words};
use crate::relations::is_relation_form;
use crate::short::{
    self, AnswerType, DATE_NOUNS, ORG_NOUNS, PERSON_NOUNS, PLACE_NOUNS, is_auxiliary, is_type_noun,
    noun_class,
};

use super::{Compared, Question};

impl Question {
    /// Read `text`: every piece the answering code uses, once.
    pub fn read(text: &str) -> Self {
        let words = short::words(text);
        let names: Vec<String> = short::capitalized_runs(text)
            .into_iter()
            .map(|(_, name)| name)
            .collect();
        let capitals = text
            .split(|c: char| !(c.is_alphanumeric() || c == '\''))
            .filter(|w| !w.is_empty())
            .enumerate()
            .map(|(i, w)| i > 0 && w.chars().next().is_some_and(char::is_uppercase))
            .collect();
        let content_words = rlmkg_text::content_words(text);
        Self {
            lower: text.to_lowercase(),
            alnum_words: text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect(),
            answer_type: answer_type(text, &words),
            answer_relation: answer_relation(text),
            relations: relation_words(&words, &names),
            main_relation: main_relation(&words),
            name_words: name_words(text),
            years: years_in(text),
            asked_noun: asked_noun(&words),
            which_noun: which_noun(&words),
            whole_collection: whole_collection(text),
            compared: Compared::of(&words),
            content_keys: content_words
                .iter()
                .map(|w| rlmkg_text::match_key(w))
                .collect(),
            content_words,
            terms: crate::terms(text).into_iter().collect(),
            key: rlmkg_text::word_key(text).0,
            names,
            words,
            capitals,
            text: text.to_owned(),
        }
    }
}

/// Words by which a question asks about the whole collection rather than
/// one fact: counts and frequencies over documents.
const WHOLE_COLLECTION: &[&str] = &[
    "most often",
    "most frequent",
    "most common",
    "least often",
    "least frequent",
    "least common",
    "how often",
    "in how many",
    "how many documents",
    "how many reports",
    "how many records",
    "how many of the",
    "across all",
    "in all the",
    "in the collection",
    "in the corpus",
    "every document",
    "all documents",
    "all reports",
];

/// Nouns of a quantity: "what was the population…" asks for a number.
const QUANTITY_NOUNS: &[&str] = &[
    "population",
    "number",
    "amount",
    "total",
    "height",
    "length",
    "capacity",
    "attendance",
    "output",
    "area",
    "revenue",
    "salary",
];
/// The options of a choice question: "…, A or B?" (also "between A and B").
fn options(question: &str) -> Option<Vec<String>> {
    let q = question.trim().trim_end_matches('?').trim();
    let lower_q = q.to_ascii_lowercase();
    let between = lower_q
        .rfind(" between ")
        .map(|i| i + " between ".len())
        .or_else(|| lower_q.starts_with("between ").then_some("between ".len()));
    let tail = match (q.rfind(','), between) {
        (_, Some(i)) => {
            let t = q.get(i..)?;
            t.split(',').next().unwrap_or(t)
        }
        (Some(i), None) if q.get(i + 1..).is_some_and(|t| t.contains(" or ")) => q.get(i + 1..)?,
        _ => {
            // "Which band was formed first The Exies or Circus Diablo": option A is
            // the capitalized run just before " or ".
            let at = lower_q.rfind(" or ")?;
            let left = q.get(..at)?;
            let words: Vec<&str> = left.split_whitespace().collect();
            let mut start = words.len();
            while start > 0 {
                let w = words[start - 1];
                let cap = w
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
                if cap || (start < words.len() && matches!(w, "of" | "the" | "and" | "de")) {
                    start -= 1;
                } else {
                    break;
                }
            }
            if start == words.len() {
                return None;
            }
            let a = words[start..].join(" ");
            let b = q.get(at + 4..)?.trim();
            return Some(vec![a, b.to_string()]).filter(|v| {
                v.iter()
                    .all(|o| !o.is_empty() && o.split_whitespace().count() <= 8)
            });
        }
    };
    let lower = tail.to_ascii_lowercase();
    let sep = [" or ", " and "]
        .iter()
        .find_map(|s| lower.find(s).map(|i| (i, s.len())))?;
    let a = tail.get(..sep.0)?.trim();
    let b = tail.get(sep.0 + sep.1..)?.trim();
    let ok = |s: &str| !s.is_empty() && s.split_whitespace().count() <= 8;
    (ok(a) && ok(b)).then(|| vec![a.to_string(), b.to_string()])
}

/// The type noun a question asks for after "which"/"what"/"whose" ("In
/// which *city* …", "What *year* …"), in lower case, when it names one.
fn asked_noun(words: &[String]) -> Option<String> {
    type_noun(words).map(|(n, _)| n.to_owned())
}

/// The noun a question asks for after "which"/"what"/"whose", whatever it
/// is ("Which *category* of incident …", "In which *city* …"), in lower
/// case: the first word after it that is no auxiliary or article.
fn which_noun(words: &[String]) -> Option<String> {
    let i = words
        .iter()
        .position(|t| matches!(t.as_str(), "which" | "what" | "whose"))?;
    words
        .iter()
        .skip(i + 1)
        .find(|t| !is_auxiliary(t) && !matches!(t.as_str(), "the" | "a" | "an"))
        .cloned()
}

/// The type noun after "which"/"what"/"whose" in the question's words and
/// the answer type it asks for: the first of the next two words (skipping
/// auxiliaries and articles; adjectives are beyond us) that is a type noun.
fn type_noun(w: &[String]) -> Option<(&str, AnswerType)> {
    let i = w
        .iter()
        .position(|t| matches!(t.as_str(), "which" | "what" | "whose"))?;
    w.iter()
        .skip(i + 1)
        .map(String::as_str)
        .filter(|t| !is_auxiliary(t) && !matches!(*t, "the" | "a" | "an"))
        .take(2)
        .find_map(|n| {
            [
                (DATE_NOUNS, AnswerType::Date),
                (PLACE_NOUNS, AnswerType::Place),
                (PERSON_NOUNS, AnswerType::Person),
                (ORG_NOUNS, AnswerType::Organization),
                (QUANTITY_NOUNS, AnswerType::Number),
            ]
            .into_iter()
            .find(|(list, _)| list.contains(&n))
            .map(|(_, t)| (n, t))
        })
}

/// The answer type of a question, from its wording (`w`: its lowercased words).
fn answer_type(question: &str, w: &[String]) -> AnswerType {
    let first = w.first().map(String::as_str).unwrap_or("");
    let has = |x: &str| w.iter().any(|t| t == x);
    if let Some(opts) = options(question)
        && (question.contains(" or ") || has("between"))
    {
        return AnswerType::Choice(opts);
    }
    let last_sentence_first = question
        .trim()
        .rsplit(['.', ';'])
        .find(|p| !p.trim().is_empty())
        .and_then(|p| {
            p.split(|c: char| !(c.is_alphanumeric() || c == '\''))
                .find(|w| !w.is_empty())
                .map(str::to_lowercase)
        })
        .unwrap_or_default();
    if is_auxiliary(first) || is_auxiliary(&last_sentence_first) {
        return AnswerType::YesNo;
    }
    if let Some((_, t)) = type_noun(w) {
        return t;
    }
    if has("how") && (has("many") || has("much") || has("old") || has("long") || has("far")) {
        return AnswerType::Number;
    }
    if has("when") {
        return AnswerType::Date;
    }
    if has("where") {
        return AnswerType::Place;
    }
    if has("who") || has("whom") || has("whose") {
        return AnswerType::Person;
    }
    AnswerType::Name
}

/// The question's main relation, from its lowercased `words`: its first
/// content word after the wh-word that is not the type noun ("Who founded …"
/// → founded, "… what was the population" → population), or, in a question
/// opening with a preposition, its closing word ("In which city was the
/// vessel built?" → built).
fn main_relation(words: &[String]) -> Option<String> {
    let wh_at = words
        .iter()
        .position(|w| {
            matches!(
                w.as_str(),
                "who" | "whom" | "whose" | "what" | "which" | "where" | "when" | "how"
            )
        })
        .unwrap_or(0);
    let closing = matches!(
        words.first().map(String::as_str),
        Some("in" | "at" | "from" | "for" | "by" | "on" | "to" | "during" | "of")
    )
    .then(|| {
        words
            .last()
            .filter(|w| w.len() > 3 && !is_type_noun(w))
            .cloned()
    })
    .flatten();
    closing.or_else(|| {
        words
            .iter()
            .skip(wh_at + 1)
            .find(|w| {
                w.len() > 3
                    && !is_type_noun(w)
                    && !is_auxiliary(w)
                    && !matches!(
                        w.as_str(),
                        "many" | "much" | "year" | "that" | "this" | "there"
                    )
            })
            .cloned()
    })
}

/// Prepositions of a number a question may end with after its relation verb
/// ("… join *in 2019*"). Not "by", "of" or a name: a verb before them may
/// belong to a phrase inside the subject ("the book *published* by X", "a
/// cricketer *born* in Christchurch").
const TRAILING: &[&str] = &["in", "on", "at", "during"];
/// Words before a noun, not a verb: a question's last word after one of
/// them is not its verb ("have *in* common").
const PREPOSITIONS: &[&str] = &[
    "in", "on", "at", "of", "by", "for", "with", "from", "to", "into", "the", "a", "an",
];
/// Words that open a clause whose verb is not the question's ("the city
/// *where* X was born", "the year *when* …").
const CLAUSE_OPENERS: &[&str] = &["where", "when", "whose", "while", "after", "before"];
/// The relation the answer itself stands in, when the question's shape says
/// plainly which word names it; a sentence that answers the question
/// expresses it ([`crate::expresses_relation`]), one that does not answers another
/// hop. The shapes (the wh-word opens the question):
///
/// - "Who *founded* the publisher…", "Which company *built* the vessel…": the
///   verb right after "who" or after the wh-phrase's noun;
/// - "In what year was the founder of X *born*?", "Which institute did the
///   winner of X *join* in 2019?": after "was"/"did" and an article, the
///   question's last word (past a trailing "in 2019"), when it is a verb
///   (a participle after "was", a relation verb after "did");
/// - "Who was the *leader* of…": after "who", the person noun after the
///   article.
///
/// `None` for every other shape, so a sentence is never held to a word the
/// question does not ask of its answer: "In which city is the university
/// that…" asks where (a sentence says it with a preposition), "…the city
/// *where* X was born" puts its verb in a clause, "What nationality…" names
/// no verb.
fn answer_relation(question: &str) -> Option<String> {
    // Tokens with case kept: a capitalized word past the first is a name.
    let toks: Vec<(String, bool)> = question
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .enumerate()
        .map(|(i, w)| {
            let name = i > 0 && w.chars().next().is_some_and(char::is_uppercase);
            (w.to_lowercase(), name)
        })
        .collect();
    let word = |i: usize| toks.get(i).map_or("", |(w, _)| w.as_str());
    let relation = |i: usize| {
        toks.get(i).is_some_and(|(w, name)| {
            !*name
                && w.chars().count() >= 3
                && !not_relation(w)
                && !w.chars().all(|c| c.is_ascii_digit())
                && !matches!(noun_class(w), Some("place" | "date"))
        })
    };
    // The wh-word opens the question ("Who…", "In which city…").
    let wh = toks.iter().take(3).position(|(t, _)| {
        matches!(
            t.as_str(),
            "what" | "which" | "who" | "whom" | "where" | "when" | "how"
        )
    })?;
    let mut next = wh + 1;
    // "How" asks a relation's manner ("how is X connected"), except in "how
    // many" and "how much".
    if word(wh) == "how" && !matches!(word(next), "many" | "much") {
        return None;
    }
    // The answer's own noun: "which city", "what year", "how many people".
    let mut place = false;
    while matches!(word(next), "many" | "much") || noun_class(word(next)).is_some() {
        place |= noun_class(word(next)) == Some("place");
        next += 1;
    }
    let aux = word(next);
    // An auxiliary puts the relation after the subject ("which institute
    // *did* the author … join").
    if !rlmkg_text::AUXILIARIES.contains(&aux) {
        // "Who founded…", "Which company built…".
        let named = next > wh + 1 || matches!(word(wh), "who" | "whom");
        let verb = participle(aux) || is_relation_form(aux);
        return (named && relation(next) && verb).then(|| aux.to_owned());
    }
    // The subject opens with an article or a name ("was the founder…",
    // "was Tomas Reyes born").
    let article = matches!(word(next + 1), "the" | "a" | "an")
        || toks.get(next + 1).is_some_and(|(_, name)| *name);
    let clause = toks[next..]
        .iter()
        .any(|(t, _)| CLAUSE_OPENERS.contains(&t.as_str()));
    if !article || clause || (matches!(aux, "is" | "are") && (place || word(wh) == "where")) {
        return None;
    }
    // The last word, past a trailing "in 2019".
    let mut end = toks.len();
    while end > next + 2 && word(end - 1).chars().all(|c| c.is_ascii_digit()) {
        end -= 1;
        if TRAILING.contains(&word(end - 1)) {
            end -= 1;
        }
    }
    let last = end - 1;
    let copula = matches!(aux, "is" | "are" | "was" | "were");
    let verb = if copula {
        participle(word(last))
    } else {
        // After "did": the bare verb ("join"), not a noun after a
        // preposition ("have in common").
        !PREPOSITIONS.contains(&word(last - 1))
    };
    if last > next + 2 && relation(last) && verb {
        return Some(word(last).to_owned());
    }
    // "Who was the leader of…": the person noun after the article.
    let role = next + 2;
    let who = matches!(word(wh), "who" | "whom");
    (who && copula && relation(role) && noun_class(word(role)) == Some("person"))
        .then(|| word(role).to_owned())
}

/// Whether `question` asks about the whole collection.
fn whole_collection(question: &str) -> bool {
    let q = question.to_lowercase();
    WHOLE_COLLECTION.iter().any(|w| q.contains(w))
}

/// The years `question` names.
fn years_in(question: &str) -> Vec<String> {
    question
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| rlmkg_text::is_year(w))
        .map(str::to_owned)
        .collect()
}

/// The words of `question` written with a capital after its first word,
/// joined by spaces.
fn name_words(question: &str) -> String {
    question
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .skip(1)
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .collect::<Vec<_>>()
        .join(" ")
}
