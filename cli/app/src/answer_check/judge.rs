//! The answer check's reasoning over the cited facts: which entities the
//! question names, which facts it asks for, and the chain (or the dated
//! items of a comparison or a count) from the question to the short answer.

use std::collections::HashSet;

use rlmkg_heuristic::Question;
use rlmkg_heuristic::short::AnswerType;
use rlmkg_ingest::{LabelKind, label_kind, predicate_words};
use rlmkg_text::{is_stopword, match_key};

use super::{AnswerCheck, AnswerVerdict, ChainHop, CitedFact, Node};

/// Most hops of a chain from the question to the answer.
pub(super) const MAX_CHAIN_HOPS: usize = 4;

/// Most partial chains the walk extends (the cited facts are few; this
/// bounds the work whatever they are).
const MAX_STEPS: usize = 20_000;

/// A fact as one step of a walk: the fact's index and whether it is read
/// from its object's side.
type Step = (usize, bool);

/// What the question asks, read against the cited facts.
struct Reading<'a> {
    /// The ordinals the question gives ("the *first* winner"): a sentence
    /// of the chain must say each.
    ordinals: Vec<String>,
    /// Most hops of a chain for this question.
    max_hops: usize,
    nodes: &'a [Node],
    facts: &'a [CitedFact],
    /// Match keys of the question's relation words.
    keys: Vec<String>,
    /// The facts whose predicate the question asks for.
    asked: Vec<bool>,
    /// The nodes the question names.
    starts: Vec<usize>,
    /// The nodes the short answer names.
    targets: Vec<usize>,
}

/// The verdict on `short` as the answer to `question`, from `facts` (read
/// from the cited sentences) over `nodes`.
pub(super) fn judge(
    question: &Question,
    short: &str,
    nodes: &[Node],
    facts: &[CitedFact],
) -> AnswerCheck {
    let keys: Vec<String> = question
        .relations()
        .iter()
        .filter(|w| !is_stopword(w))
        .map(|w| match_key(w))
        .collect();
    // A question that says no relation ("In which city is X?") asks for
    // the one fact that links its name to the answer: any fact, one hop.
    let unsaid = keys.is_empty();
    let asked = facts
        .iter()
        .map(|f| unsaid || label_keys(&f.label).iter().any(|k| keys.contains(k)))
        .collect();
    let r = Reading {
        ordinals: ordinals(question),
        max_hops: if unsaid { 1 } else { MAX_CHAIN_HOPS },
        nodes,
        facts,
        starts: named_by(question, nodes),
        targets: (0..nodes.len())
            .filter(|&i| names_answer(&nodes[i], short))
            .collect(),
        keys,
        asked,
    };
    if r.starts.is_empty() {
        return AnswerCheck::not_shown("no cited fact is about a name the question gives");
    }
    if *question.answer_type() == AnswerType::YesNo {
        return AnswerCheck::not_shown("a yes/no answer is not a value a chain of facts reaches");
    }
    let compared = question.compared();
    let listed = name_items(question).count() >= 2;
    if compared.by_date && listed && r.targets.iter().any(|t| r.starts.contains(t)) {
        if let Some(missing) = r.unnamed(question) {
            return AnswerCheck::not_shown(format!("no cited fact speaks of {missing}"));
        }
        return r.comparison(compared.earlier, short);
    }
    if *question.answer_type() == AnswerType::Number && listed {
        return r.count(question, short);
    }
    if r.targets.is_empty() {
        return AnswerCheck::not_shown(format!("no cited fact names \"{short}\""));
    }
    if question
        .asked_noun()
        .is_some_and(rlmkg_text::asks_for_country)
        && let Some(inner) = r.targets.iter().find(|&&t| !nodes[t].inside.is_empty())
    {
        return AnswerCheck::not_shown(format!(
            "the question asks for a country, and {short} lies in {}",
            nodes[*inner].inside.join(", ")
        ));
    }
    if question
        .asked_noun()
        .is_some_and(rlmkg_text::asks_for_settlement)
        && let Some((outer, inner)) = r.targets.iter().find_map(|&t| r.narrower_beside(t))
    {
        return AnswerCheck::not_shown(format!(
            "the question asks for a {}, and the same facts give {} inside {}",
            question.asked_noun().unwrap_or("town"),
            r.name(inner),
            r.name(outer)
        ));
    }
    r.chain(short)
}

impl Reading<'_> {
    /// A place the cited facts give beside `place` for the same subject and
    /// relation ("based in Quarrydal, Selavia") that lies inside it: `place`
    /// is the wider of the two.
    fn narrower_beside(&self, place: usize) -> Option<(usize, usize)> {
        let names = &self.nodes.get(place)?.names;
        let holds = |p: usize| {
            self.nodes.get(p).is_some_and(|n| {
                n.inside
                    .iter()
                    .any(|c| names.iter().any(|m| m.eq_ignore_ascii_case(c)))
            })
        };
        let giving: HashSet<(usize, &str)> = self
            .facts
            .iter()
            .filter(|f| f.object == place)
            .map(|f| (f.subject, f.label.as_str()))
            .collect();
        self.facts
            .iter()
            .find(|g| {
                g.object != place
                    && giving.contains(&(g.subject, g.label.as_str()))
                    && holds(g.object)
            })
            .map(|g| (place, g.object))
    }

    fn name(&self, node: usize) -> &str {
        self.nodes
            .get(node)
            .and_then(|n| n.names.first())
            .map_or("", String::as_str)
    }

    fn is_date(&self, node: usize) -> bool {
        self.nodes.get(node).is_some_and(|n| n.kind == "date")
    }

    /// The hop of `step`, read along the walk.
    fn hop(&self, (fact, reversed): Step) -> ChainHop {
        let f = &self.facts[fact];
        let (from, to) = if reversed {
            (f.object, f.subject)
        } else {
            (f.subject, f.object)
        };
        ChainHop {
            from: self.name(from).to_string(),
            relation: if reversed {
                inverse_label(&f.label)
            } else {
                f.label.clone()
            },
            to: self.name(to).to_string(),
            sentence: f.sentence.clone(),
        }
    }

    /// The asked facts at `node`, each with the node it leads to.
    fn steps_from(&self, node: usize) -> impl Iterator<Item = (Step, usize)> + '_ {
        self.facts.iter().enumerate().filter_map(move |(i, f)| {
            if !self.asked[i] {
                None
            } else if f.subject == node {
                Some(((i, false), f.object))
            } else if f.object == node {
                Some(((i, true), f.subject))
            } else {
                None
            }
        })
    }

    /// The relation words of the question a fact of the walk must say: those
    /// that say some predicate (of the vocabulary, or of a cited fact).
    fn required(&self) -> Vec<&String> {
        let vocabulary: HashSet<String> = rlmkg_ingest::Predicate::all()
            .flat_map(|p| label_keys(p.label()))
            .chain(self.facts.iter().flat_map(|f| label_keys(&f.label)))
            .collect();
        let mut out: Vec<&String> = self
            .keys
            .iter()
            .filter(|k| vocabulary.contains(*k))
            .collect();
        out.dedup();
        out
    }

    /// A chain of asked facts from a named entity to the answer that says
    /// every relation word the question asks through; else who the cited
    /// facts give the answer for.
    fn chain(&self, short: &str) -> AnswerCheck {
        let required = self.required();
        let covers = |path: &[Step]| {
            required.iter().all(|k| {
                path.iter()
                    .any(|&(i, _)| label_keys(&self.facts[i].label).contains(*k))
            }) && self.ordinals.iter().all(|o| {
                path.iter()
                    .any(|&(i, _)| contains_words(&self.facts[i].text, o))
            })
        };
        let mut steps = 0usize;
        let mut reached: HashSet<usize> = HashSet::new();
        for len in 1..=self.max_hops {
            for &start in &self.starts {
                let mut path: Vec<Step> = Vec::new();
                let mut on_path = vec![start];
                if let Some(found) = self.walk(
                    start,
                    len,
                    &mut path,
                    &mut on_path,
                    &mut steps,
                    &mut reached,
                    &covers,
                ) {
                    let chain: Vec<ChainHop> = found.iter().map(|&s| self.hop(s)).collect();
                    return AnswerCheck {
                        verdict: AnswerVerdict::Answers,
                        reason: format!(
                            "the cited facts lead from {} to {short}",
                            chain.first().map_or("", |h| h.from.as_str())
                        ),
                        chain,
                    };
                }
            }
        }
        self.about_another(short, &reached)
    }

    /// Depth-first: extend `path` (ending at `at`) by asked facts to exactly
    /// `len` hops ending at a target, never through a date or a node twice.
    #[allow(clippy::too_many_arguments)]
    fn walk(
        &self,
        at: usize,
        len: usize,
        path: &mut Vec<Step>,
        on_path: &mut Vec<usize>,
        steps: &mut usize,
        reached: &mut HashSet<usize>,
        covers: &dyn Fn(&[Step]) -> bool,
    ) -> Option<Vec<Step>> {
        for (step, next) in self.steps_from(at) {
            *steps += 1;
            if *steps > MAX_STEPS {
                return None;
            }
            if on_path.contains(&next) {
                continue;
            }
            // Back along the predicate it came by (a book → its publisher
            // → another book of the publisher's): no step of a chain.
            if let Some(&(last, last_reversed)) = path.last()
                && self.facts[last].label == self.facts[step.0].label
                && last_reversed != step.1
            {
                continue;
            }
            reached.insert(next);
            path.push(step);
            if path.len() == len {
                if self.targets.contains(&next) && covers(path) {
                    return Some(path.clone());
                }
            } else if !self.is_date(next) {
                on_path.push(next);
                let found = self.walk(next, len, path, on_path, steps, reached, covers);
                on_path.pop();
                if found.is_some() {
                    return found;
                }
            }
            path.pop();
        }
        None
    }

    /// `about_another` when an asked cited fact gives the answer for an
    /// entity the walk from the question did not reach while it reached
    /// another one (the founder's cousin, not the founder); else `not_shown`.
    fn about_another(&self, short: &str, reached: &HashSet<usize>) -> AnswerCheck {
        let people_reached: Vec<usize> = reached
            .iter()
            .copied()
            .filter(|n| !self.targets.contains(n) && !self.is_date(*n))
            .collect();
        for (i, f) in self.facts.iter().enumerate() {
            if !self.asked[i] {
                continue;
            }
            for (end, other, reversed) in
                [(f.object, f.subject, false), (f.subject, f.object, true)]
            {
                if !self.targets.contains(&end)
                    || self.starts.contains(&other)
                    || reached.contains(&other)
                {
                    continue;
                }
                if people_reached.is_empty() {
                    continue;
                }
                let asked_about: Vec<&str> = people_reached.iter().map(|&n| self.name(n)).collect();
                return AnswerCheck {
                    verdict: AnswerVerdict::AboutAnother,
                    chain: vec![self.hop((i, reversed))],
                    reason: format!(
                        "[{}] gives {short} for {}, and the question's chain leads to {}",
                        f.sentence,
                        self.name(other),
                        asked_about.join(", ")
                    ),
                };
            }
        }
        AnswerCheck::not_shown(format!(
            "no chain of cited facts leads from {} to {short}",
            self.starts
                .iter()
                .map(|&s| self.name(s))
                .collect::<Vec<_>>()
                .join(" or ")
        ))
    }

    /// The year an asked cited fact gives `item` (its first such fact).
    fn year_of_item(&self, item: usize) -> Option<(i32, Step)> {
        self.steps_from(item)
            .filter(|&(_, to)| self.is_date(to))
            .find_map(|(step, to)| year_in(self.name(to)).map(|y| (y, step)))
    }

    /// The years of every named item, or the first item with none.
    fn years(&self, items: &[usize]) -> Result<Vec<(usize, i32, Step)>, AnswerCheck> {
        items
            .iter()
            .map(|&item| {
                self.year_of_item(item)
                    .map(|(y, s)| (item, y, s))
                    .ok_or_else(|| {
                        AnswerCheck::not_shown(format!(
                            "no cited fact gives the asked date of {}",
                            self.name(item)
                        ))
                    })
            })
            .collect()
    }

    /// The earlier (or later) of the named items by their cited dates is
    /// the answer.
    fn comparison(&self, earlier: bool, short: &str) -> AnswerCheck {
        let dated = match self.years(&self.starts) {
            Ok(d) => d,
            Err(e) => return e,
        };
        let best = if earlier {
            dated.iter().map(|d| d.1).min()
        } else {
            dated.iter().map(|d| d.1).max()
        };
        let winners: Vec<&(usize, i32, Step)> =
            dated.iter().filter(|d| Some(d.1) == best).collect();
        let chain: Vec<ChainHop> = dated.iter().map(|d| self.hop(d.2)).collect();
        match winners.as_slice() {
            [only] if self.targets.contains(&only.0) => AnswerCheck {
                verdict: AnswerVerdict::Answers,
                reason: format!(
                    "the cited dates make {short} the {}",
                    if earlier { "earlier" } else { "later" }
                ),
                chain,
            },
            [only] => AnswerCheck::not_shown(format!(
                "the cited dates make {} the {}, not {short}",
                self.name(only.0),
                if earlier { "earlier" } else { "later" }
            )),
            _ => AnswerCheck::not_shown("the cited dates tie"),
        }
    }

    /// How many of the named items meet the question's condition (a year
    /// before or after, or a fact reaching the entity it names last) is the
    /// answer.
    fn count(&self, question: &Question, short: &str) -> AnswerCheck {
        let Some(n) = number_in(short) else {
            return AnswerCheck::not_shown(format!("\"{short}\" is no number"));
        };
        if let Some(missing) = self.unnamed(question) {
            return AnswerCheck::not_shown(format!("no cited fact speaks of {missing}"));
        }
        let words = question.words();
        let before = words.iter().any(|w| w == "before");
        let after = words.iter().any(|w| w == "after");
        let year = question.years().first().and_then(|y| year_in(y));
        let (counted, chain) = match year {
            Some(y) if before || after => {
                let dated = match self.years(&self.starts) {
                    Ok(d) => d,
                    Err(e) => return e,
                };
                let counted = dated
                    .iter()
                    .filter(|d| if before { d.1 < y } else { d.1 > y })
                    .count();
                (
                    counted,
                    dated.iter().map(|d| self.hop(d.2)).collect::<Vec<_>>(),
                )
            }
            _ => match self.count_object(question) {
                Ok(c) => c,
                Err(e) => return e,
            },
        };
        if counted as f64 == n {
            AnswerCheck {
                verdict: AnswerVerdict::Answers,
                reason: format!("the cited facts count {counted}"),
                chain,
            }
        } else {
            AnswerCheck::not_shown(format!("the cited facts count {counted}, not {short}"))
        }
    }

    /// A name the question gives that no entity of the cited facts carries
    /// (an item of a count the answer says nothing of).
    fn unnamed<'q>(&self, question: &'q Question) -> Option<&'q str> {
        name_items(question)
            .filter(|name| year_in(name).is_none())
            .find(|name| {
                let q = norm(name);
                !self.starts.iter().any(|&s| {
                    self.nodes[s].names.iter().any(|n| {
                        let n = norm(n);
                        contains_words(&n, &q) || contains_words(&q, &n)
                    })
                })
            })
    }

    /// The items (the named entities but the last the question names) whose
    /// asked fact reaches the last named entity; an item whose asked facts
    /// reach neither it nor another entity of its kind is not shown.
    fn count_object(&self, question: &Question) -> Result<(usize, Vec<ChainHop>), AnswerCheck> {
        let lower = question.lower();
        let position = |n: usize| {
            self.nodes[n]
                .names
                .iter()
                .filter_map(|name| lower.rfind(&name.to_lowercase()))
                .max()
        };
        let Some(&object) = self.starts.iter().max_by_key(|&&n| position(n)) else {
            return Err(AnswerCheck::not_shown(
                "the question names nothing to count",
            ));
        };
        let kind = &self.nodes[object].kind;
        let mut counted = 0;
        let mut chain = Vec::new();
        for &item in self.starts.iter().filter(|&&n| n != object) {
            let steps: Vec<(Step, usize)> = self.steps_from(item).collect();
            if let Some(&(step, _)) = steps.iter().find(|&&(_, to)| to == object) {
                counted += 1;
                chain.push(self.hop(step));
            } else if let Some(&(step, _)) =
                steps.iter().find(|&&(_, to)| &self.nodes[to].kind == kind)
            {
                chain.push(self.hop(step));
            } else {
                return Err(AnswerCheck::not_shown(format!(
                    "no cited fact says whether {} counts",
                    self.name(item)
                )));
            }
        }
        Ok((counted, chain))
    }
}

/// Match keys of the words that say `label`'s predicate (stop words left out).
fn label_keys(label: &str) -> Vec<String> {
    predicate_words(label)
        .into_iter()
        .filter(|w| !is_stopword(w))
        .map(match_key)
        .collect()
}

/// `label` as read from its object's side.
fn inverse_label(label: &str) -> String {
    match label_kind(label) {
        LabelKind::Fact(p) => {
            if rlmkg_ingest::Predicate::parse(label).is_some_and(|(_, inv)| inv) {
                p.label().to_string()
            } else {
                p.inverse().to_string()
            }
        }
        LabelKind::Other(phrase) => format!("(what was) {phrase}"),
        LabelKind::CoOccurs => label.to_string(),
    }
}

/// The nodes the question names: a name or alias it writes as a name,
/// unless that name lies inside a longer named node's name it also writes
/// ("Marshstead" inside "Marshstead Shipbuilding Company"). Dates are values,
/// never the question's entities.
fn named_by(question: &Question, nodes: &[Node]) -> Vec<usize> {
    let items: Vec<String> = name_items(question).map(norm).collect();
    // Part of a longer name the question gives, and none of them whole.
    let partial = |n: &str| {
        let inside = items
            .iter()
            .any(|q| q.len() > n.len() && contains_words(q, n));
        inside && !items.iter().any(|q| q == n || contains_words(n, q))
    };
    let written = |n: &Node| -> Vec<String> {
        n.names
            .iter()
            .filter(|name| name.chars().filter(|c| c.is_alphanumeric()).count() >= 2)
            .filter(|name| !is_stopword(&name.to_lowercase()))
            // "The Halvorsen Medal" is written in "the 2018 Halvorsen Medal".
            .filter(|name| {
                question.writes_name(name)
                    || ["The ", "the "]
                        .iter()
                        .find_map(|the| name.strip_prefix(the))
                        .is_some_and(|rest| rest.contains(' ') && question.writes_name(rest))
            })
            .map(|name| norm(name))
            .filter(|name| !partial(name))
            .collect()
    };
    let candidates: Vec<(usize, Vec<String>)> = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.kind != "date")
        .map(|(i, n)| (i, written(n)))
        .filter(|(_, w)| !w.is_empty())
        .collect();
    candidates
        .iter()
        .filter(|(i, mine)| {
            !candidates.iter().any(|(j, theirs)| {
                j != i
                    && mine.iter().all(|m| {
                        theirs
                            .iter()
                            .any(|t| t.len() > m.len() && contains_words(t, m))
                    })
            })
        })
        .map(|(i, _)| *i)
        .collect()
}

/// The ordinals the question gives ("the *first* winner"), from its words.
pub(super) fn ordinals(question: &Question) -> Vec<String> {
    question
        .words()
        .iter()
        .filter(|w| {
            rlmkg_text::number_word(w).is_some_and(|n| n.kind == rlmkg_text::NumberKind::Ordinal)
        })
        .cloned()
        .collect()
}

/// The names the question gives, a list's items apart (a list of names
/// reads as one run of capitals: "A, B and C").
pub(super) fn name_items(question: &Question) -> impl Iterator<Item = &str> {
    question
        .names()
        .iter()
        .flat_map(|run| run.split(", ").flat_map(|s| s.split(" and ")))
        .map(str::trim)
        .filter(|name| !name.is_empty())
}

/// Whether `hay` holds `needle` as whole words.
fn contains_words(hay: &str, needle: &str) -> bool {
    hay.match_indices(needle).any(|(at, _)| {
        let before = hay[..at].chars().next_back();
        let after = hay[at + needle.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// A name compared case-blind, without a leading "the" and the punctuation
/// around it.
fn norm(s: &str) -> String {
    let lower = s.trim().to_lowercase();
    let lower = lower.trim_matches(|c: char| !c.is_alphanumeric());
    let lower = lower.strip_prefix("the ").unwrap_or(lower);
    lower.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `node` is what the short answer names: the same name (or alias),
/// or for a date the answer's date inside the node's ("1919" of "May 1919").
fn names_answer(node: &Node, short: &str) -> bool {
    let s = norm(short);
    if s.is_empty() {
        return false;
    }
    node.names.iter().any(|name| {
        let n = norm(name);
        n == s || (node.kind == "date" && year_in(&s).is_some() && contains_words(&n, &s))
    })
}

/// The first year a text names.
fn year_in(text: &str) -> Option<i32> {
    text.split(|c: char| !c.is_alphanumeric())
        .find_map(rlmkg_text::year)
}

/// The number a short answer gives ("2", "two").
fn number_in(short: &str) -> Option<f64> {
    let s = norm(short);
    let word = s.split_whitespace().next()?;
    word.parse::<f64>()
        .ok()
        .or_else(|| rlmkg_text::number_word(word).map(|n| n.value))
}
