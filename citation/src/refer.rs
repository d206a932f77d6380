//! Reading a cited sentence with what it refers to (SPEC §7.2, issue 13): a
//! sentence that opens with a pronoun ("It was organised by…") names the previous
//! sentence's subject, else its section heading, else the document title; one that
//! opens with a definite description ("The institute is…") names the nearest
//! capitalized name among those that contains the description's noun.
//! The referent's words then count as carried by the sentence.

use crate::source::Referents;
use crate::text::{Analysis, analyse};
use rlmkg_text::{NEAR_DEMONSTRATIVES, PRONOUNS, is_name_joiner};

/// Determiners of a definite description.
const DETERMINERS: &[&str] = &["the", "this", "these", "that", "those"];

/// How a sentence opens.
#[derive(Debug, Clone, PartialEq)]
enum Lead {
    /// A pronoun.
    Pronoun,
    /// A determiner and a lower-case noun (its stem).
    Definite(String),
}

fn lead(a: &Analysis) -> Option<Lead> {
    let first = a.tokens.first()?;
    if PRONOUNS.contains(&first.lower.as_str()) {
        return Some(Lead::Pronoun);
    }
    if DETERMINERS.contains(&first.lower.as_str()) {
        let noun = a.tokens.get(1)?;
        if !noun.capitalized && noun.is_content() {
            return Some(Lead::Definite(noun.stem.clone()));
        }
        if NEAR_DEMONSTRATIVES.contains(&first.lower.as_str()) && !noun.capitalized {
            return Some(Lead::Pronoun);
        }
    }
    None
}

/// Runs of capitalized content words (joined by name joiners), as token indices.
fn names(a: &Analysis) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut run: Vec<usize> = Vec::new();
    let mut pending: usize = 0; // joiners waiting for a following capitalized word
    for (i, t) in a.tokens.iter().enumerate() {
        let cap = t.capitalized && t.is_content();
        if cap {
            run.push(i);
            pending = 0;
        } else if !run.is_empty() && is_name_joiner(&t.lower) && pending < 2 {
            pending += 1;
        } else {
            if !run.is_empty() {
                out.push(std::mem::take(&mut run));
            }
            pending = 0;
        }
    }
    if !run.is_empty() {
        out.push(run);
    }
    out
}

/// The name a sentence opens with ("The Skarvik Expedition was…"): after an
/// optional article, capitalized words and the joiners between them, as token
/// indices of the capitalized words.
fn subject(a: &Analysis) -> Option<Vec<usize>> {
    let mut words = Vec::new();
    for (i, t) in a.tokens.iter().enumerate() {
        if t.capitalized && t.is_content() {
            words.push(i);
        } else if (i == 0 && matches!(t.lower.as_str(), "the" | "a" | "an"))
            || (!words.is_empty()
                && is_name_joiner(&t.lower)
                && a.tokens
                    .get(i + 1)
                    .is_some_and(|n| n.capitalized && n.is_content()))
        {
            continue;
        } else {
            break;
        }
    }
    (!words.is_empty()).then_some(words)
}

/// A name read from a text: its stems, and its words as written (lowercased).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Named {
    /// Stems of its capitalized words.
    pub stems: Vec<String>,
    /// Its capitalized words, lowercased, joined by spaces.
    pub shown: String,
}

impl Named {
    fn of(a: &Analysis, words: &[usize]) -> Self {
        let toks = words.iter().filter_map(|i| a.tokens.get(*i));
        // Shown with the joiners between its words ("osprey institute for marine studies").
        let span = match (words.first(), words.last()) {
            (Some(lo), Some(hi)) => a.tokens.get(*lo..=*hi).unwrap_or_default(),
            _ => &[],
        };
        Self {
            stems: toks.map(|t| t.stem.clone()).collect(),
            shown: span
                .iter()
                .map(|t| t.lower.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// The name a sentence opens with, if it opens with one ("Osprey Institute is…").
pub(crate) fn opening_name(a: &Analysis) -> Option<Named> {
    subject(a).map(|w| Named::of(a, &w))
}

fn clean(text: &str) -> String {
    text.trim_start_matches(['#', ' ', '\t']).to_string()
}

/// What a sentence opening with a pronoun or a definite description refers to
/// (`None` when it opens with neither, or nothing resolves); its stems count as
/// carried by the sentence.
pub(crate) fn referent(sentence: &Analysis, refs: &Referents) -> Option<Named> {
    let lead = lead(sentence)?;
    let candidates: Vec<Analysis> = [&refs.previous, &refs.heading, &refs.title]
        .into_iter()
        .flatten()
        .map(|t| analyse(&clean(t)))
        .collect();
    match lead {
        Lead::Pronoun => candidates
            .iter()
            .find_map(|c| subject(c).map(|w| Named::of(c, &w))),
        Lead::Definite(noun) => candidates.iter().find_map(|c| {
            names(c)
                .into_iter()
                .find(|n| {
                    n.iter()
                        .any(|i| c.tokens.get(*i).is_some_and(|t| t.stem == noun))
                })
                .map(|w| Named::of(c, &w))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(previous: &str, heading: &str, title: &str) -> Referents {
        let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
        Referents {
            previous: some(previous),
            heading: some(heading),
            title: some(title),
        }
    }

    fn stems(sentence: &str, r: &Referents) -> Vec<String> {
        let mut v: Vec<String> = referent(&analyse(sentence), r)
            .map(|n| n.stems)
            .unwrap_or_default();
        v.sort();
        v
    }

    #[test]
    fn pronouns_take_the_previous_subject_then_heading_then_title() {
        let r = refs(
            "The Harbor Survey was a six-week survey of the fjord.",
            "Overview",
            "The Harbor Survey (2021)",
        );
        assert_eq!(
            stems("It was organised by the institute.", &r),
            vec!["harbor", "survey"]
        );
        let r = refs("It sailed in June.", "", "Gull Point Lighthouse");
        assert_eq!(
            stems("It was built in 1880.", &r),
            vec!["gull", "lighthous", "point"]
        );
        assert!(stems("Gulls nest on it.", &r).is_empty());
    }

    #[test]
    fn definite_descriptions_take_a_name_with_their_noun() {
        let r = refs(
            "She joined the Osprey Institute for Marine Studies in 2019.",
            "",
            "Staff news",
        );
        assert_eq!(
            stems("The institute is based in Tromsø.", &r),
            vec!["institut", "marin", "osprey", "studi"]
        );
        assert!(stems("The harbour is deep.", &r).is_empty());
    }
}
