//! Cases written for the fact rules: a relative's or successor's fact beside
//! the subject's own in one passage, facts said with "It" and with a
//! definite description, two people of one surname, appositions, relative
//! clauses, passives and dates.

use crate::extract::Extraction;

fn run(title: &str, text: &str) -> Extraction {
    crate::extract::tests::run_titled(text, title)
}

/// The facts as `subject | label | object` lines.
fn facts(ex: &Extraction) -> Vec<String> {
    ex.relations
        .iter()
        .filter(|r| rlmkg_graph::is_fact(&r.label))
        .map(|r| format!("{} | {} | {}", r.subject, r.label, r.object))
        .collect()
}

struct Case {
    title: &'static str,
    text: &'static str,
    has: &'static [&'static str],
    not: &'static [&'static str],
}

const CASES: &[Case] = &[
    // A relative's birthplace beside the subject's own.
    Case {
        title: "Olaf Haugen",
        text: "Olaf Haugen was a Norwegian shipwright. He was born in Bergen in 1881. \
               His cousin Per Haugen, who was born in Vik, worked with him at the yard.",
        has: &[
            "olaf_haugen | born in | bergen",
            "olaf_haugen | date of birth | 1881",
            "olaf_haugen | relative of | per_haugen",
            "per_haugen | born in | vik",
        ],
        not: &[
            "olaf_haugen | born in | vik",
            "per_haugen | born in | bergen",
        ],
    },
    // Facts said with "It" and a definite description; a passive with an
    // apposition ("by the shipwright X").
    Case {
        title: "Vardal Shipyard",
        text: "The Vardal Shipyard is a shipyard in Bergen. It was founded in 1923 by the \
               shipwright Olaf Haugen. The shipyard built the research vessel Storm Petrel.",
        has: &[
            "vardal_shipyard | located in | bergen",
            "olaf_haugen | founded | vardal_shipyard",
            "vardal_shipyard | date of founding | 1923",
            "storm_petrel | built by | vardal_shipyard",
        ],
        not: &["vardal_shipyard | founded | olaf_haugen"],
    },
    // A successor's fact beside the subject's own, and a relative clause.
    Case {
        title: "Kestrel Institute",
        text: "The Kestrel Institute is a research institute in Tromsø. The institute was \
               founded in 1998 by the oceanographer Ivar Lindqvist, who was born in Narvik. \
               Tomas Reyes, who was born in Oslo, succeeded Lindqvist as director.",
        has: &[
            "ivar_lindqvist | founded | kestrel_institute",
            "ivar_lindqvist | born in | narvik",
            "tomas_reyes | born in | oslo",
            "tomas_reyes | succeeded | ivar_lindqvist",
            "kestrel_institute | located in | tromsø",
        ],
        not: &[
            "tomas_reyes | born in | narvik",
            "ivar_lindqvist | born in | oslo",
        ],
    },
    // A work, its author and publisher, with "It".
    Case {
        title: "The Salt Atlas",
        text: "The Salt Atlas is a book by the geographer Mara Ellison. It was published by \
               Northlight Press in 2016. Northlight Press was founded by Catherine Moray.",
        has: &[
            "mara_ellison | author of | salt_atlas",
            "salt_atlas | published by | northlight_press",
            "catherine_moray | founded | northlight_press",
        ],
        not: &["catherine_moray | founded | salt_atlas"],
    },
    // A title that is not the text's subject: "It" is the subject named.
    Case {
        title: "Review: The Salt Atlas",
        text: "The Salt Atlas is a book of maps by Mara Ellison. It was published in 2016 by \
               Northlight Press.",
        has: &[
            "mara_ellison | author of | salt_atlas",
            "salt_atlas | published by | northlight_press",
        ],
        not: &["review_the_salt_atlas | published by | northlight_press"],
    },
    // A participle after a date is about the subject ("a 1931 film directed
    // by X"); a role with titles between "of" and the name; a role shared by
    // two coordinated names.
    Case {
        title: "The Goose Woman",
        text: "The Goose Woman is a 1925 silent film drama directed by Clarence Brown. \
               Its star Dana Holt was the second son of the famous hetman Piotr Holt and \
               Anna Wiles.",
        has: &[
            "clarence_brown | led | goose_woman",
            "piotr_holt | parent of | dana_holt",
            "anna_wiles | parent of | dana_holt",
        ],
        not: &["1925 | led | goose_woman"],
    },
    // Two people of one surname: the bare surname is the last of them named.
    Case {
        title: "Haugen family",
        text: "Anna Haugen and Erik Haugen were siblings. Erik Haugen moved to Oslo. \
               Haugen was born in Tromsø.",
        has: &["erik_haugen | born in | tromsø"],
        not: &["anna_haugen | born in | tromsø"],
    },
    // Active voice with an object and its date; a role noun with "of".
    Case {
        title: "Lena Okafor",
        text: "Lena Okafor founded the Marsh Society in 2004. She is the daughter of \
               Samuel Okafor. Okafor wrote The Tidal Year.",
        has: &[
            "lena_okafor | founded | marsh_society",
            "marsh_society | date of founding | 2004",
            "samuel_okafor | parent of | lena_okafor",
            "lena_okafor | author of | tidal_year",
        ],
        not: &[
            "lena_okafor | date of founding | 2004",
            "samuel_okafor | author of | tidal_year",
        ],
    },
    // A parenthesis after the subject; a verb outside the vocabulary.
    Case {
        title: "Helen Hunt",
        text: "Helen Hunt (born 1963) is an American actress. She starred in Twister.",
        has: &[
            "helen_hunt | date of birth | 1963",
            "helen_hunt | other: starred in | twister",
        ],
        not: &[],
    },
    // A leading participle takes the sentence's subject.
    Case {
        title: "Ingrid Dahl",
        text: "Born in Hamar, Ingrid Dahl later joined the Nordic Shorelines Fund.",
        has: &[
            "ingrid_dahl | born in | hamar",
            "ingrid_dahl | member of | nordic_shorelines_fund",
        ],
        not: &[],
    },
];

#[test]
fn fact_cases() {
    let mut failures = Vec::new();
    for case in CASES {
        let ex = run(case.title, case.text);
        let got = facts(&ex);
        for want in case.has {
            if !got.iter().any(|g| g == want) {
                failures.push(format!("{}: missing `{want}`; got {got:#?}", case.title));
            }
        }
        for bad in case.not {
            if got.iter().any(|g| g == bad) {
                failures.push(format!("{}: wrong `{bad}`", case.title));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Types: a definition types its subject; no nationality adjectives or
/// opening participles as entities; "X for Y" is two names.
#[test]
fn types_and_names() {
    let ex = run(
        "The Salt Atlas",
        "The Salt Atlas is a book about marshes. Based in Oslo, the Italian American \
         producer Donna Gigliotti for Altar Identity Studios joined. Mara Ellison won the \
         Halvorsen Medal for The Salt Atlas.",
    );
    let kind = |k: &str| {
        ex.entities
            .iter()
            .find(|e| e.key == k)
            .map(|e| e.kind.as_str())
    };
    assert_eq!(kind("salt_atlas"), Some("work"), "{:?}", ex.entities);
    for gone in ["based", "italian_american", "american"] {
        assert_eq!(kind(gone), None, "{gone}: {:?}", ex.entities);
    }
    assert!(kind("donna_gigliotti").is_some(), "{:?}", ex.entities);
    assert!(
        kind("altar_identity_studios").is_some(),
        "{:?}",
        ex.entities
    );
    assert!(kind("mara_ellison").is_some(), "{:?}", ex.entities);
}
