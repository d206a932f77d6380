//! Who the cited text says a thing of (issue 32): a claim that gives a relation
//! word ("founded", "author") to a name the cited text has elsewhere while the
//! sentences saying that word name someone else; a relative clause ("…, which is
//! based in Stavanger") said of something other than what its cited sentence is
//! about; and relation words between two names that the cited text lacks.

use std::collections::{HashMap, HashSet};

use super::{Reason, ReasonKind, SentenceView, Term, carries, name_run_from, run_text};
use crate::refer::{Named, opening_name};
use crate::segment::{is_past_or_aux, sentences_of};
use crate::text::{Analysis, Kind};
use rlmkg_text::PRONOUNS;

/// Most words (content words, numbers and dates; not stop words) from a name to
/// a word tied to it ("Catherine Moray is the best-known author": `author` is
/// the third).
const RELATION_REACH: usize = 3;

/// Most tokens from a name to a word tied to it, stop words included.
const RELATION_SPAN: usize = 8;

/// Punctuation that ends the stretch of words tied to a name.
const BREAKS: &[char] = &[
    ',', ';', ':', '(', ')', '[', ']', '"', '\u{201C}', '\u{201D}', '\u{2013}', '\u{2014}',
];

/// Words that open a relative clause about the name before it.
const RELATIVE_PRONOUNS: &[&str] = &["which", "who", "whom", "whose"];

/// The name runs of `a` (capitalized words joined by name joiners), as token ranges.
fn name_runs(a: &Analysis) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < a.tokens.len() {
        match name_run_from(a, i) {
            Some(r) => {
                out.push(r);
                i = r.1.max(i + 1);
            }
            None => i += 1,
        }
    }
    out
}

/// The stems of the content words of a token range.
fn run_stems(a: &Analysis, (lo, hi): (usize, usize)) -> Vec<String> {
    a.tokens
        .get(lo..hi)
        .unwrap_or_default()
        .iter()
        .filter(|t| t.is_content())
        .map(|t| t.stem.clone())
        .collect()
}

/// Whether punctuation separates token `k` of `a` from token `k + 1` in `text`.
fn broken_after(text: &str, a: &Analysis, k: usize) -> bool {
    let (Some(t), Some(n)) = (a.tokens.get(k), a.tokens.get(k + 1)) else {
        return true;
    };
    let Some(gap) = text.get(t.start..n.start) else {
        return true;
    };
    // The word itself, then what follows it: a comma inside "250,000" is no break.
    let ws = gap.find(char::is_whitespace).unwrap_or(gap.len());
    let (word, after) = gap.split_at(ws);
    word.chars().last().is_some_and(|c| BREAKS.contains(&c))
        || after.chars().any(|c| BREAKS.contains(&c))
}

/// Whether token `k` of `a` is joined to the next by a hyphen in `text`.
fn hyphenated(text: &str, a: &Analysis, k: usize) -> bool {
    let (Some(t), Some(n)) = (a.tokens.get(k), a.tokens.get(k + 1)) else {
        return false;
    };
    text.get(t.start..n.start)
        .is_some_and(|gap| gap.ends_with('-') && !gap.contains(char::is_whitespace))
}

/// A lower-case content word tied to a name run of a claim.
#[derive(Debug, Clone, Copy)]
struct Link {
    /// Token index of the word.
    word: usize,
    /// Index of the name run in the claim's runs.
    run: usize,
    /// Whether a copula lies between the name and the word ("Helga Brandt was
    /// the captain"): the word then names a role of the name.
    copula: bool,
}

/// Verbs that tie a name to a role noun after them.
const COPULAS: &[&str] = &[
    "is", "was", "are", "were", "became", "becomes", "become", "remained", "remains",
];

/// Whether a token can say a relation: a lower-case content word.
fn relation_word(a: &Analysis, k: usize) -> bool {
    a.tokens
        .get(k)
        .is_some_and(|t| t.is_content() && !t.capitalized)
}

/// Whether a word is a verb form: past tense or participle ("founded", "wrote",
/// "violating").
fn is_verb_form(word: &str) -> bool {
    is_past_or_aux(word) || (word.chars().count() > 4 && word.ends_with("ing"))
}

/// Endings of nouns naming who does something (`author`, `leader`, `novelist`).
const AGENT_ENDINGS: &[&str] = &["er", "or", "ist"];

/// Whether a word names a role or an event someone holds: a past-tense verb
/// ("founded", "wrote") or an agent noun ("author", "founder").
fn role_word(word: &str) -> bool {
    is_past_or_aux(word) || agent_noun(word)
}

/// Whether a word looks like an agent noun: `-er`, `-or` or `-ist` on a word
/// of five letters or more ("author", "publisher"), or one rlmkg-text keys as
/// its verb ("founder" as "found").
fn agent_noun(word: &str) -> bool {
    (word.chars().count() >= 5 && AGENT_ENDINGS.iter().any(|e| word.ends_with(e)))
        || rlmkg_text::match_key(word) != rlmkg_text::stem(word)
}

/// The lower-case content words tied to each name run of `a`: within
/// [`RELATION_REACH`] words and [`RELATION_SPAN`] tokens of it, on the name's
/// side of any punctuation and of the next name.
fn links(text: &str, a: &Analysis, runs: &[(usize, usize)]) -> Vec<Link> {
    let mut in_run = vec![false; a.tokens.len()];
    for &(lo, hi) in runs {
        if let Some(span) = in_run.get_mut(lo..hi) {
            span.fill(true);
        }
    }
    let mut out = Vec::new();
    for (run, &(lo, hi)) in runs.iter().enumerate() {
        let after = (hi..a.tokens.len())
            .take(RELATION_SPAN)
            .take_while(|k| !in_run[*k] && !broken_after(text, a, k - 1));
        let before = (0..lo)
            .rev()
            .take(RELATION_SPAN)
            .take_while(|k| !in_run[*k] && !broken_after(text, a, *k));
        for (ks, before) in [(after.collect::<Vec<_>>(), false), (before.collect(), true)] {
            let mut words = 0;
            let mut copula = false;
            for k in ks {
                let Some(t) = a.tokens.get(k) else { break };
                if t.is_content() || !matches!(t.kind, Kind::Word) {
                    words += 1;
                }
                if words > RELATION_REACH {
                    break;
                }
                copula |= !before && COPULAS.contains(&t.lower.as_str());
                if relation_word(a, k) {
                    out.push(Link {
                        word: k,
                        run,
                        copula,
                    });
                    // A verb ends the stretch: what lies beyond it is its own
                    // ("jailed for violating the Texas … law"), unless it is
                    // part of a compound ("longest-serving captain").
                    if is_verb_form(&t.lower) && !(k > 0 && hyphenated(text, a, k - 1)) {
                        break;
                    }
                }
            }
        }
    }
    out
}

/// The pieces of a cited sentence (a stored sentence may hold several), each
/// analysed; the first keeps the sentence's referent.
fn pieces(s: &SentenceView) -> Vec<SentenceView> {
    let parts = sentences_of(&s.text);
    if parts.len() < 2 {
        return vec![s.clone_view()];
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut v = SentenceView::new(p, None);
            if i == 0 {
                v.referred = s.referred.clone();
                v.referent = s.referent.clone();
            }
            v
        })
        .collect()
}

/// Whether a piece has a pronoun its referent does not account for (it may
/// stand for anyone the claim names).
fn unresolved_pronoun(p: &SentenceView) -> bool {
    p.referent.is_none()
        && p.analysis
            .tokens
            .iter()
            .any(|t| PRONOUNS.contains(&t.lower.as_str()))
}

/// A name of the piece that the claim does not mention at all, tied to the
/// piece's `role` word as the claim's name is tied to the claim's (a word
/// opening the piece alone is not taken for a name: "Following", "Even").
fn someone_else(
    p: &SentenceView,
    role: &Term,
    claim_stems: &HashSet<&str>,
    years: &[i32],
) -> Option<String> {
    let a = &p.analysis;
    let runs = name_runs(a);
    links(&p.text, a, &runs).into_iter().find_map(|l| {
        let r = runs[l.run];
        let word = a.tokens.get(l.word)?;
        let role_word = SentenceView::new(&word.lower, None);
        let stems = run_stems(a, r);
        // "I'm" opening a quotation is no name.
        let named = !stems.is_empty()
            && r != (0, 1)
            && stems
                .iter()
                .all(|s| !claim_stems.contains(s.as_str()) && !s.contains('\''));
        (named && carries(role, &role_word, years)).then(|| run_text(a, r))
    })
}

/// Whether the claim's first word, capitalized as any first word is, is
/// written as a name (capitalized inside a sentence) by one of `win`.
fn written_as_name(claim: &Analysis, win: &[&SentenceView]) -> bool {
    let Some(first) = claim.tokens.first() else {
        return false;
    };
    win.iter().any(|s| {
        s.analysis
            .tokens
            .iter()
            .skip(1)
            .any(|t| t.capitalized && t.stem == first.stem)
    })
}

/// The claim's terms for the stems of one of its names.
fn name_terms<'t>(terms: &'t [Term], stems: &[String]) -> Vec<&'t Term> {
    terms.iter().filter(|t| stems.contains(&t.key)).collect()
}

/// Roles moved from one name to another (issue 32, kinds a and b): a relation
/// word tied in the claim to a name (`Mara Ellison founded …`) that the cited
/// window names, while no cited sentence saying that word names it and one
/// in the window names someone the claim does not mention ("… founded in 1987
/// by Catherine Moray"). One reason per name moved.
pub(super) fn moved_roles(
    claim_text: &str,
    claim: &Analysis,
    terms: &[Term],
    sentences: &[SentenceView],
    window: &[usize],
    years: &[i32],
) -> Vec<Reason> {
    let win: Vec<&SentenceView> = window.iter().filter_map(|i| sentences.get(*i)).collect();
    let runs: Vec<(usize, usize)> = name_runs(claim)
        .into_iter()
        .filter(|r| *r != (0, 1) || written_as_name(claim, &win))
        .collect();
    let claim_stems: HashSet<&str> = claim.tokens.iter().map(|t| t.stem.as_str()).collect();
    let mut split: HashMap<usize, Vec<SentenceView>> = HashMap::new();
    let mut out = Vec::new();
    let mut seen: HashSet<usize> = HashSet::new();
    // Farthest first: the head of a role ("the longest-serving captain").
    for link in links(claim_text, claim, &runs).into_iter().rev() {
        if seen.contains(&link.run)
            || !(link.copula
                || claim
                    .tokens
                    .get(link.word)
                    .is_some_and(|t| role_word(&t.lower)))
        {
            continue;
        }
        let Some(role) = claim
            .tokens
            .get(link.word)
            .and_then(|t| terms.iter().find(|x| x.key == t.stem))
        else {
            continue;
        };
        let name = name_terms(terms, &run_stems(claim, runs[link.run]));
        let holds =
            |v: &SentenceView| !name.is_empty() && name.iter().all(|t| carries(t, v, years));
        // A name the window lacks is judged as missing, not as moved.
        if !window.iter().any(|i| sentences.get(*i).is_some_and(holds)) {
            continue;
        }
        let mut other: Option<String> = None;
        let mut said_of_it = false;
        for (i, s) in sentences.iter().enumerate() {
            if !carries(role, s, years) {
                continue;
            }
            let ps = split.entry(i).or_insert_with(|| pieces(s));
            for p in ps.iter().filter(|p| carries(role, p, years)) {
                if holds(p) || unresolved_pronoun(p) {
                    said_of_it = true;
                } else if other.is_none() && window.contains(&i) {
                    other = someone_else(p, role, &claim_stems, years);
                }
            }
            if said_of_it {
                break;
            }
        }
        if let (false, Some(q)) = (said_of_it, other) {
            seen.insert(link.run);
            out.push(Reason::new(
                ReasonKind::Substitution,
                format!(
                    "the cited text says \"{}\" of \"{q}\", not of \"{}\"",
                    role.shown,
                    run_text(claim, runs[link.run])
                ),
            ));
        }
    }
    out
}

/// Relation words the cited text lacks between two names it carries (the
/// claim's `missing` word terms; `missing_keys` all its missing stems): "Ylva
/// Ness founded the publisher of The Tern Atlas" against "The Tern Atlas is a
/// collection … by Dr. Ylva Ness" says a relation the text does not. Only
/// relations naming a role count (an agent noun among the words: "publisher");
/// a verb alone is too often a paraphrase ("teamed with" for "joined").
pub(super) fn unsaid_relation(
    claim_text: &str,
    claim: &Analysis,
    missing: &[&Term],
    missing_keys: &HashSet<&str>,
) -> Option<Reason> {
    let runs = name_runs(claim);
    let carried = |r: (usize, usize)| {
        let stems = run_stems(claim, r);
        !stems.is_empty() && stems.iter().any(|s| !missing_keys.contains(s.as_str()))
    };
    runs.windows(2).find_map(|pair| {
        let (a, b) = (pair[0], pair[1]);
        if !carried(a) || !carried(b) || b.0 - a.1 > RELATION_SPAN {
            return None;
        }
        if (a.1 - 1..b.0).any(|k| broken_after(claim_text, claim, k)) {
            return None;
        }
        let words: Vec<&str> = (a.1..b.0)
            .filter_map(|k| claim.tokens.get(k))
            .filter(|t| missing.iter().any(|m| m.key == t.stem))
            .map(|t| t.lower.as_str())
            .collect();
        if !words.iter().any(|w| agent_noun(w)) {
            return None;
        }
        Some(Reason::new(
            ReasonKind::Relation,
            format!(
                "the cited text names \"{}\" and \"{}\" but does not say \"{}\" of them",
                run_text(claim, a),
                run_text(claim, b),
                words.join(" … ")
            ),
        ))
    })
}

/// Whether a claim is a relative clause ("which is based in Stavanger").
pub(super) fn is_relative(text: &str) -> bool {
    text.split_whitespace()
        .next()
        .is_some_and(|w| RELATIVE_PRONOUNS.contains(&w))
}

/// The names a relative clause may be about: those of the clause before it.
pub(super) fn antecedents(previous: &str) -> Vec<Named> {
    let a = crate::text::analyse(previous);
    name_runs(&a)
        .into_iter()
        .map(|r| Named {
            stems: run_stems(&a, r),
            shown: run_text(&a, r),
        })
        .filter(|n| !n.stems.is_empty())
        .collect()
}

/// A relative clause whose best sentence is about something the claim does not
/// name (its referent, or the name it opens with), neither in the clause nor
/// among its `antecedents`: the clause says of one thing what the cited text
/// says of another.
pub(super) fn other_subject(
    claim: &Analysis,
    antecedents: &[Named],
    primary: &SentenceView,
) -> Option<Reason> {
    let about = primary
        .referent
        .clone()
        .or_else(|| opening_name(&primary.analysis))?;
    let named = |s: &String| {
        claim.tokens.iter().any(|t| &t.stem == s) || antecedents.iter().any(|a| a.stems.contains(s))
    };
    if about.stems.iter().any(named) {
        return None;
    }
    let ante = antecedents.last()?;
    Some(Reason::new(
        ReasonKind::Substitution,
        format!(
            "the cited text says this of \"{}\", not of \"{}\"",
            about.shown, ante.shown
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::analyse;

    fn tied(text: &str) -> Vec<(String, String)> {
        let a = analyse(text);
        let runs = name_runs(&a);
        links(text, &a, &runs)
            .into_iter()
            .map(|l| (run_text(&a, runs[l.run]), a.tokens[l.word].lower.clone()))
            .collect()
    }

    #[test]
    fn words_are_tied_to_names_up_to_punctuation_and_verbs() {
        let t = tied("Catherine Moray is the best-known author of Northlight Press.");
        assert!(t.contains(&("catherine moray".into(), "author".into())));
        assert!(t.contains(&("northlight press".into(), "author".into())));
        let t = tied("Gauthe was jailed for violating the Texas law.");
        assert!(!t.contains(&("texas".into(), "jailed".into())));
        let t = tied("Northlight Press, founded by Catherine Moray, published books.");
        assert!(!t.contains(&("catherine moray".into(), "published".into())));
    }

    #[test]
    fn relative_clauses_and_their_antecedents() {
        assert!(is_relative("which is based in Stavanger."));
        assert!(!is_relative("Which survey was it?"));
        let names: Vec<String> = antecedents("The survey was organised by Northlight Press")
            .into_iter()
            .map(|n| n.shown)
            .collect();
        assert_eq!(names, vec!["northlight press"]);
    }

    #[test]
    fn agent_nouns() {
        assert!(agent_noun("publisher") && agent_noun("author") && agent_noun("founder"));
        assert!(!agent_noun("founded") && !agent_noun("book"));
    }
}
