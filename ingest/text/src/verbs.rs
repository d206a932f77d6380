//! Irregular English verbs: the one table of their past tense and past
//! participle forms, and the forms that are also words of another sense.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// English irregular verbs: (base, past tense forms, past participle forms),
/// each form written out only where it differs from the base ("come" has no
/// participle listed; "run" lists its own, as a question ends with it: "…was
/// the race *run*?"). Forms that are also common words of another sense are
/// listed, and named in [`HOMOGRAPHS`]. "bear" lists only "born" ("bore" is a
/// word of its own). Used by the checker's stems ([`irregular_base`]: "won"
/// is read as "win") and clause splitter ([`is_irregular_past`]: "… and won
/// the prize" is a clause), and the heuristic's question reader
/// ([`is_irregular_participle`]: "…was X *born*?"). The union of the lists
/// those three kept apart.
pub const IRREGULAR_VERBS: &[(&str, &[&str], &[&str])] = &[
    ("arise", &["arose"], &["arisen"]),
    ("bear", &[], &["born"]),
    ("beat", &[], &["beaten"]),
    ("become", &["became"], &[]),
    ("begin", &["began"], &["begun"]),
    ("bite", &["bit"], &["bitten"]),
    ("break", &["broke"], &["broken"]),
    ("bring", &["brought"], &["brought"]),
    ("build", &["built"], &["built"]),
    ("buy", &["bought"], &["bought"]),
    ("catch", &["caught"], &["caught"]),
    ("choose", &["chose"], &["chosen"]),
    ("come", &["came"], &[]),
    ("deal", &["dealt"], &["dealt"]),
    ("dig", &["dug"], &["dug"]),
    ("draw", &["drew"], &["drawn"]),
    ("drink", &["drank"], &["drunk"]),
    ("drive", &["drove"], &["driven"]),
    ("eat", &["ate"], &["eaten"]),
    ("fall", &["fell"], &["fallen"]),
    ("feel", &["felt"], &["felt"]),
    ("fight", &["fought"], &["fought"]),
    ("find", &["found"], &["found"]),
    ("flee", &["fled"], &["fled"]),
    ("fly", &["flew"], &["flown"]),
    ("forbid", &["forbade"], &["forbidden"]),
    ("forget", &["forgot"], &["forgotten"]),
    ("forgive", &["forgave"], &["forgiven"]),
    ("freeze", &["froze"], &["frozen"]),
    ("get", &["got"], &["got", "gotten"]),
    ("give", &["gave"], &["given"]),
    ("go", &["went"], &["gone"]),
    ("grow", &["grew"], &["grown"]),
    ("hang", &["hung"], &["hung"]),
    ("hear", &["heard"], &["heard"]),
    ("hide", &["hid"], &["hidden"]),
    ("hold", &["held"], &["held"]),
    ("keep", &["kept"], &["kept"]),
    ("know", &["knew"], &["known"]),
    ("lead", &["led"], &["led"]),
    ("leave", &["left"], &["left"]),
    ("lend", &["lent"], &["lent"]),
    ("lose", &["lost"], &["lost"]),
    ("make", &["made"], &["made"]),
    ("mean", &["meant"], &["meant"]),
    ("meet", &["met"], &["met"]),
    ("overcome", &["overcame"], &[]),
    ("pay", &["paid"], &["paid"]),
    ("ride", &["rode"], &["ridden"]),
    ("ring", &["rang"], &["rung"]),
    ("rise", &["rose"], &["risen"]),
    ("run", &["ran"], &["run"]),
    ("say", &["said"], &["said"]),
    ("see", &["saw"], &["seen"]),
    ("seek", &["sought"], &["sought"]),
    ("sell", &["sold"], &["sold"]),
    ("send", &["sent"], &["sent"]),
    ("shake", &["shook"], &["shaken"]),
    ("shoot", &["shot"], &["shot"]),
    ("sing", &["sang"], &["sung"]),
    ("sink", &["sank"], &["sunk"]),
    ("sit", &["sat"], &["sat"]),
    ("sleep", &["slept"], &["slept"]),
    ("speak", &["spoke"], &["spoken"]),
    ("spend", &["spent"], &["spent"]),
    ("stand", &["stood"], &["stood"]),
    ("steal", &["stole"], &["stolen"]),
    ("strike", &["struck"], &["struck", "stricken"]),
    ("swim", &["swam"], &["swum"]),
    ("take", &["took"], &["taken"]),
    ("teach", &["taught"], &["taught"]),
    ("tear", &["tore"], &["torn"]),
    ("tell", &["told"], &["told"]),
    ("think", &["thought"], &["thought"]),
    ("throw", &["threw"], &["thrown"]),
    ("understand", &["understood"], &["understood"]),
    ("undertake", &["undertook"], &["undertaken"]),
    ("wake", &["woke"], &["woken"]),
    ("wear", &["wore"], &["worn"]),
    ("win", &["won"], &["won"]),
    ("withdraw", &["withdrew"], &["withdrawn"]),
    ("write", &["wrote"], &["written"]),
];

/// Past forms that are also words of another sense and so stand only for
/// themselves ("she *found* it" is not "founded", "he *left*" is not "left
/// wing", "*rose*" the flower, "*fell*" the hill): the checker does not read
/// them as their verb ([`irregular_base`]) and the heuristic does not match
/// them to a relation word by their spelling. "bound", "ground", "wound" and
/// "lay" are past forms of verbs the table leaves out (bind, grind, wind,
/// lie).
pub const HOMOGRAPHS: &[&str] = &[
    "found", "bound", "ground", "wound", "left", "lay", "saw", "rose", "fell",
];

/// The auxiliaries: the forms of "be", "do" and "have" that go before a verb
/// or stand for it, lower case. A question opening with one asks yes or no
/// ("*Did* the author…"); one inside a question puts the relation after the
/// subject ("which institute *did* the author … join"); after " and " one
/// opens a clause of its own ("… and *was* named …"). Used by the heuristic's
/// question readers (`hops.rs`, `short.rs`, which adds the modals) and the
/// checker's clause splitter (`segment.rs`, which adds "remains").
pub const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "has", "have", "had",
];

/// The base of an irregular past or participle form, lower case ("won" →
/// "win", "written" → "write"); `None` for a form in [`HOMOGRAPHS`] and for
/// every other word.
pub fn irregular_base(form: &str) -> Option<&'static str> {
    static BASES: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    BASES
        .get_or_init(|| {
            IRREGULAR_VERBS
                .iter()
                .flat_map(|(base, past, participle)| {
                    past.iter().chain(*participle).map(move |f| (*f, *base))
                })
                .filter(|(f, _)| !HOMOGRAPHS.contains(f))
                .collect()
        })
        .get(form)
        .copied()
}

/// Whether `word` (lower case) is the past tense of an irregular verb
/// ("won", "found").
pub fn is_irregular_past(word: &str) -> bool {
    static PAST: OnceLock<HashSet<&'static str>> = OnceLock::new();
    PAST.get_or_init(|| {
        IRREGULAR_VERBS
            .iter()
            .flat_map(|(_, past, _)| past.iter().copied())
            .collect()
    })
    .contains(word)
}

/// Whether `word` (lower case) is the past participle of an irregular verb
/// ("born", "written", "found").
pub fn is_irregular_participle(word: &str) -> bool {
    static PARTICIPLES: OnceLock<HashSet<&'static str>> = OnceLock::new();
    PARTICIPLES
        .get_or_init(|| {
            IRREGULAR_VERBS
                .iter()
                .flat_map(|(_, _, participle)| participle.iter().copied())
                .collect()
        })
        .contains(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_and_their_bases() {
        assert_eq!(irregular_base("won"), Some("win"));
        assert_eq!(irregular_base("written"), Some("write"));
        assert_eq!(irregular_base("said"), Some("say"));
        assert_eq!(irregular_base("found"), None);
        assert_eq!(irregular_base("rose"), None);
        assert_eq!(irregular_base("walked"), None);
        assert!(is_irregular_past("found") && is_irregular_past("began"));
        assert!(!is_irregular_past("begun") && !is_irregular_past("walked"));
        assert!(is_irregular_participle("born") && is_irregular_participle("run"));
        assert!(!is_irregular_participle("ran"));
    }

    #[test]
    fn table_is_lower_case_and_each_base_once() {
        let mut bases = std::collections::HashSet::new();
        for (base, past, participle) in IRREGULAR_VERBS {
            assert!(bases.insert(*base), "{base} twice");
            for w in std::iter::once(base).chain(*past).chain(*participle) {
                assert_eq!(*w, w.to_lowercase(), "{w}");
            }
        }
        for w in HOMOGRAPHS {
            assert_eq!(*w, w.to_lowercase(), "{w}");
        }
    }
}
