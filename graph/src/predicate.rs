//! The one vocabulary of fact predicates (issue 43).
//!
//! A fact is a relation (subject, predicate, object, evidence sentence) whose
//! label is one of these predicates' [`Predicate::label`]s, or
//! [`OTHER_PREFIX`] followed by the normalised verb phrase that said it.
//! Inverses are resolved when a fact is made: "Y was founded by X" is stored
//! as `X founded Y`, and shown from Y's side as [`Predicate::inverse`]
//! ("founded by"). The co-occurrence label [`CO_OCCURS`] is weak evidence for
//! ranking, never a fact.

/// The label of a co-occurrence relation (two names in one sentence).
pub const CO_OCCURS: &str = "co-occurs";

/// The label prefix of a fact whose predicate is not in the vocabulary: the
/// rest of the label is the verb phrase ("other: starred in").
pub const OTHER_PREFIX: &str = "other: ";

/// The predicates of the vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Predicate {
    /// A person's birthplace.
    BornIn,
    /// A person's place of death.
    DiedIn,
    /// The founder of an organisation (subject: the founder).
    Founded,
    /// Where something is.
    LocatedIn,
    /// A part and its whole.
    PartOf,
    /// A member and what it belongs to.
    MemberOf,
    /// A person and an employer.
    EmployedBy,
    /// A leader or director and what they led or directed.
    Led,
    /// An author and a work.
    AuthorOf,
    /// A work and its publisher.
    PublishedBy,
    /// A made thing and who or where it was built.
    BuiltBy,
    /// A winner and a prize.
    Won,
    /// Spouses.
    SpouseOf,
    /// A parent and a child (subject: the parent).
    ParentOf,
    /// Siblings.
    SiblingOf,
    /// Other relatives (cousins, uncles, nephews, …).
    RelativeOf,
    /// A successor and whom they succeeded (subject: the successor).
    Succeeded,
    /// A date of birth (the object is a date).
    DateOfBirth,
    /// A date of death (the object is a date).
    DateOfDeath,
    /// A date of founding (the object is a date).
    DateOfFounding,
}

/// Every predicate with its label, its label read from the object's side and
/// its RDF local name: the one table the rest derives from.
#[rustfmt::skip]
const TABLE: &[(Predicate, &str, &str, &str)] = &[
    (Predicate::BornIn, "born in", "birthplace of", "bornIn"),
    (Predicate::DiedIn, "died in", "place of death of", "diedIn"),
    (Predicate::Founded, "founded", "founded by", "founded"),
    (Predicate::LocatedIn, "located in", "location of", "locatedIn"),
    (Predicate::PartOf, "part of", "has part", "partOf"),
    (Predicate::MemberOf, "member of", "has member", "memberOf"),
    (Predicate::EmployedBy, "employed by", "employer of", "employedBy"),
    (Predicate::Led, "led", "led by", "led"),
    (Predicate::AuthorOf, "author of", "written by", "authorOf"),
    (Predicate::PublishedBy, "published by", "publisher of", "publishedBy"),
    (Predicate::BuiltBy, "built by", "builder of", "builtBy"),
    (Predicate::Won, "won", "won by", "won"),
    (Predicate::SpouseOf, "spouse of", "spouse of", "spouseOf"),
    (Predicate::ParentOf, "parent of", "child of", "parentOf"),
    (Predicate::SiblingOf, "sibling of", "sibling of", "siblingOf"),
    (Predicate::RelativeOf, "relative of", "relative of", "relativeOf"),
    (Predicate::Succeeded, "succeeded", "succeeded by", "succeeded"),
    (Predicate::DateOfBirth, "date of birth", "date of birth of", "dateOfBirth"),
    (Predicate::DateOfDeath, "date of death", "date of death of", "dateOfDeath"),
    (Predicate::DateOfFounding, "date of founding", "date of founding of", "dateOfFounding"),
];

/// The RDF local name of `other` facts' predicate (the phrase is a literal).
pub const OTHER_RDF: &str = "other";

impl Predicate {
    /// Every predicate, in the table's order.
    pub fn all() -> impl Iterator<Item = Predicate> {
        TABLE.iter().map(|t| t.0)
    }

    fn row(self) -> &'static (Predicate, &'static str, &'static str, &'static str) {
        // The table lists every variant (a unit test checks it).
        TABLE.iter().find(|t| t.0 == self).unwrap_or(&TABLE[0])
    }

    /// The label a relation of this predicate carries ("born in").
    pub fn label(self) -> &'static str {
        self.row().1
    }

    /// The label read from the object's side ("founded by").
    pub fn inverse(self) -> &'static str {
        self.row().2
    }

    /// The RDF local name of the predicate (under the vocabulary's namespace).
    pub fn rdf_name(self) -> &'static str {
        self.row().3
    }

    /// Whether the object is a literal value (a date), not an entity to walk to.
    pub fn literal_object(self) -> bool {
        matches!(
            self,
            Predicate::DateOfBirth | Predicate::DateOfDeath | Predicate::DateOfFounding
        )
    }

    /// Whether it is a tie of family between two persons (spouse, parent,
    /// sibling, other relative).
    pub fn kinship(self) -> bool {
        matches!(
            self,
            Predicate::SpouseOf
                | Predicate::ParentOf
                | Predicate::SiblingOf
                | Predicate::RelativeOf
        )
    }

    /// Whether it reads the same from either end.
    pub fn symmetric(self) -> bool {
        self.label() == self.inverse()
    }

    /// The predicate a label names, read either way: `Some((p, false))` for
    /// its label, `Some((p, true))` for its inverse.
    pub fn parse(label: &str) -> Option<(Predicate, bool)> {
        TABLE.iter().find_map(|&(p, l, inv, _)| {
            if l == label {
                Some((p, false))
            } else if inv == label {
                Some((p, true))
            } else {
                None
            }
        })
    }
}

/// What a relation label says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelKind<'a> {
    /// Co-occurrence: weak evidence, not a fact.
    CoOccurs,
    /// A fact of the vocabulary.
    Fact(Predicate),
    /// A fact outside the vocabulary: its verb phrase.
    Other(&'a str),
}

/// Read a stored relation label.
pub fn label_kind(label: &str) -> LabelKind<'_> {
    if label == CO_OCCURS {
        return LabelKind::CoOccurs;
    }
    if let Some(phrase) = label.strip_prefix(OTHER_PREFIX) {
        return LabelKind::Other(phrase);
    }
    match Predicate::parse(label) {
        Some((p, _)) => LabelKind::Fact(p),
        None => LabelKind::Other(label),
    }
}

/// Whether a stored label is a fact (anything but co-occurrence).
pub fn is_fact(label: &str) -> bool {
    label != CO_OCCURS
}

/// A stored label as read from one end: from the subject's side the label
/// itself, from the object's side the predicate's inverse ("founded by"), or
/// `<-` before an `other` phrase.
pub fn label_from(label: &str, from_subject: bool) -> String {
    if from_subject {
        return label.to_string();
    }
    match label_kind(label) {
        LabelKind::CoOccurs => label.to_string(),
        LabelKind::Fact(p) => p.inverse().to_string(),
        LabelKind::Other(phrase) => format!("<-{OTHER_PREFIX}{phrase}"),
    }
}

/// The stored label and whether it was asked from the object's side, for a
/// label a user gives (`founded by` → (`founded`, true); `<-x` → (`x`, true)).
pub fn stored_label(asked: &str) -> (String, bool) {
    if let Some(rest) = asked.strip_prefix("<-") {
        return (rest.to_string(), true);
    }
    match Predicate::parse(asked) {
        Some((p, inverse)) if !p.symmetric() => (p.label().to_string(), inverse),
        Some((p, _)) => (p.label().to_string(), false),
        None => (asked.to_string(), false),
    }
}

/// Which end the asking entity must be for a label asked as
/// [`stored_label`] read it: `Some(true)` its subject, `Some(false)` its
/// object, `None` either (co-occurrence, symmetric predicates, `other`
/// phrases asked without `<-`).
pub fn wants_side(stored: &str, inverse: bool) -> Option<bool> {
    match label_kind(stored) {
        LabelKind::CoOccurs => None,
        LabelKind::Fact(p) if p.symmetric() => None,
        LabelKind::Fact(_) => Some(!inverse),
        LabelKind::Other(_) => inverse.then_some(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_every_predicate_once_and_labels_read_back() {
        let all: Vec<Predicate> = Predicate::all().collect();
        assert_eq!(all.len(), TABLE.len());
        for p in &all {
            assert_eq!(all.iter().filter(|q| *q == p).count(), 1);
            assert_eq!(label_kind(p.label()), LabelKind::Fact(*p));
            assert_eq!(Predicate::parse(p.label()), Some((*p, false)));
            let (stored, inverse) = stored_label(p.inverse());
            assert_eq!(stored, p.label());
            assert_eq!(inverse, !p.symmetric());
        }
        assert_eq!(label_kind(CO_OCCURS), LabelKind::CoOccurs);
        assert_eq!(
            label_kind("other: starred in"),
            LabelKind::Other("starred in")
        );
        assert_eq!(label_from("founded", false), "founded by");
        assert_eq!(
            label_from("other: starred in", false),
            "<-other: starred in"
        );
        assert_eq!(label_from(CO_OCCURS, false), CO_OCCURS);
    }
}
