use super::*;

/// The development seeds (seeds 6–10 are held out: never generated here).
const DEV_SEEDS: std::ops::RangeInclusive<u64> = 1..=5;

fn world(seed: u64) -> World {
    generate(seed).unwrap_or_else(|e| panic!("seed {seed}: {e}"))
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_another_seed_other_bytes() {
    let a = world(1);
    assert_eq!(a, world(1));
    let b = world(2);
    assert_ne!(a.articles, b.articles);
    assert_ne!(a.questions, b.questions);
}

#[test]
fn every_chain_sentence_stands_in_its_file() {
    for seed in DEV_SEEDS {
        let w = world(seed);
        for q in &w.questions {
            assert!(!q.chain.is_empty(), "{q:?}");
            for hop in &q.chain {
                let text = w
                    .articles
                    .iter()
                    .find(|a| a.file == hop.file)
                    .map(|a| a.text.as_str())
                    .unwrap_or_else(|| panic!("seed {seed}: no file {}", hop.file));
                assert!(text.contains(&hop.sentence), "seed {seed}: {hop:?}");
                assert!(q.gold.gold_titles.contains(&hop.file), "{q:?}");
            }
        }
    }
}

#[test]
fn every_kind_has_enough_questions_and_every_answer_is_unambiguous() {
    for seed in DEV_SEEDS {
        let w = world(seed);
        assert!(
            w.questions.len() >= 60,
            "seed {seed}: {}",
            w.questions.len()
        );
        for kind in Kind::ALL {
            let n = w.questions.iter().filter(|q| q.kind == kind).count();
            assert!(n >= MIN_PER_KIND, "seed {seed}: {n} {kind:?}");
        }
        assert_eq!(check(&w), Vec::<String>::new(), "seed {seed}");
    }
}

#[test]
fn the_confusions_are_there() {
    let w = world(1);
    let text = |file: &str| {
        w.articles
            .iter()
            .find(|a| a.file == file)
            .map_or("", |a| a.text.as_str())
    };
    // A founder's article names a relative with another birthplace.
    let founder_born = w
        .questions
        .iter()
        .find(|q| {
            q.gold
                .question
                .starts_with("In which town was the founder of")
        })
        .expect("a founder question");
    let last = founder_born.chain.last().expect("a chain");
    let others: Vec<&Fact> = w
        .facts
        .iter()
        .filter(|f| {
            f.file == last.file && f.predicate == Predicate::BornIn && f.subject != last.subject
        })
        .collect();
    assert!(!others.is_empty(), "{}", text(&last.file));
    assert!(others.iter().all(|f| f.object != founder_born.gold.answer));
    // Towns one letter apart.
    let towns: Vec<&str> = w
        .facts
        .iter()
        .filter(|f| {
            f.predicate == Predicate::LocatedIn && f.file.ends_with(&names::slug(&f.subject))
        })
        .map(|f| f.subject.as_str())
        .collect();
    let one_apart = towns.iter().any(|a| {
        towns.iter().any(|b| {
            b.len() == a.len() + 1 && {
                let (x, y) = (a.as_bytes(), b.as_bytes());
                (0..y.len()).any(|i| y.get(..i) == x.get(..i) && y.get(i + 1..) == x.get(i..))
            }
        })
    });
    assert!(one_apart, "{towns:?}");
    // Facts said with pronouns and definite descriptions.
    for opening in ["He ", "She ", "It was founded", "The company"] {
        assert!(
            w.facts.iter().any(|f| f.sentence.starts_with(opening)),
            "no fact opens with {opening:?}"
        );
    }
}

#[test]
fn questions_serialize_with_their_kind_and_chain() {
    let w = world(3);
    let q = w.questions.first().expect("a question");
    let v = serde_json::to_value(q).expect("json");
    assert_eq!(v["kind"], "two-hop");
    for key in ["id", "question", "answer", "answer_aliases", "gold_titles"] {
        assert!(v.get(key).is_some(), "{key} in {v}");
    }
    let hop = &v["chain"][0];
    for key in ["subject", "predicate", "object", "file", "sentence"] {
        assert!(hop[key].is_string(), "{key} in {hop}");
    }
}

/// A change made to a sound world.
type Tamper = Box<dyn Fn(&mut World)>;

/// A world with one change made by `tamper`, and what [`check`] says of it.
fn tampered(tamper: impl Fn(&mut World)) -> Vec<String> {
    let mut w = world(4);
    assert_eq!(check(&w), Vec::<String>::new());
    tamper(&mut w);
    check(&w)
}

#[test]
fn the_check_finds_ambiguous_and_wrong_answers() {
    let first = |w: &World, kind: Kind| {
        w.questions
            .iter()
            .position(|q| q.kind == kind)
            .expect("a question of the kind")
    };
    let cases: Vec<(&str, Tamper)> = vec![
        (
            "a second value for a hop",
            Box::new(move |w| {
                let i = first(w, Kind::TwoHop);
                let mut other = w.questions[i].chain[1].clone();
                other.object = "Elsewhere".into();
                other.sentence = "Some say Elsewhere.".into();
                if let Some(a) = w.articles.iter_mut().find(|a| a.file == other.file) {
                    a.text.push_str("\nSome say Elsewhere.\n");
                }
                w.facts.push(other);
            }),
        ),
        (
            "another answer",
            Box::new(move |w| {
                let i = first(w, Kind::ThreeHop);
                w.questions[i].gold.answer = "Elsewhere".into();
            }),
        ),
        (
            "a confusion with the same value",
            Box::new(move |w| {
                let i = first(w, Kind::TwoHop);
                let last = w.questions[i].chain[1].clone();
                w.facts.push(Fact {
                    subject: "A Cousin".into(),
                    ..last
                });
            }),
        ),
        (
            "compared years that are equal",
            Box::new(move |w| {
                let i = first(w, Kind::Comparison);
                let year = w.questions[i].chain[0].object.clone();
                w.questions[i].chain[1].object = year;
            }),
        ),
        (
            "a count off by one",
            Box::new(move |w| {
                let i = first(w, Kind::Count);
                let n: usize = w.questions[i].gold.answer.parse().expect("a count");
                w.questions[i].gold.answer = (n + 1).to_string();
            }),
        ),
        (
            "a sentence not in its file",
            Box::new(move |w| {
                let i = first(w, Kind::Date);
                w.questions[i].chain[0].sentence = "Nobody wrote this.".into();
            }),
        ),
        (
            "a broken chain",
            Box::new(move |w| {
                let i = first(w, Kind::Date);
                w.questions[i].chain.swap(0, 1);
            }),
        ),
    ];
    for (name, tamper) in cases {
        assert!(!tampered(tamper).is_empty(), "{name} went unnoticed");
    }
}
