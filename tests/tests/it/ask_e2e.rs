//! `rlmkg ask` end to end (issue 7): the real binary over a store ingested from the
//! sample corpus, with a scripted root model served over real HTTP on 127.0.0.1.
//!
//! The scripted model replies by turn number (the count of assistant messages in the
//! request). Its code finds sentence ids at run time through `context`, as a real
//! model would; nothing here knows chunk ids in advance.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rlm_core::testkit::Reply;
use rlmkg_tests::{
    Found, ScriptedCase, ask_heuristic, begun, first_then, repl, rlmkg, root_requests,
    sample_store, scripted_case, stderr, stdout, turn, without_models,
};
use serde_json::Value;

/// The two-hop question of the sample corpus (q2 of `examples/QUESTIONS.md`).
const SKARVIK: &str =
    "In which city is the institute that organised the Skarvik Expedition located?";

/// Code that finds the ids of the two hop sentences of the Skarvik question.
const FIND_HOPS: &str = r#"import re
def sentences(cid):
    return re.findall(r"\[(c\d+\.s\d+)\] ([^\[]*)", context.read(cid))
hop1 = []
for h in context.search("Skarvik Expedition organised", k=5):
    for sid, s in sentences(h["id"]):
        if ("organised by the Kestrel" in s or "Skarvik Expedition was" in s) and sid not in hop1:
            hop1.append(sid)
hop2 = None
for h in context.search("Kestrel Institute for Coastal Studies Tromsø", k=5):
    for sid, s in sentences(h["id"]):
        if hop2 is None and "Tromsø" in s and "KICS" in s:
            hop2 = sid
print(hop1, hop2)"#;

fn two_hop_script(final_code: &'static str) -> impl Fn(&Value, usize) -> Reply + Send + Sync {
    move |req, _| {
        Reply::Text(match turn(req) {
            0 => repl(
                "hits = context.search(\"Skarvik Expedition organised\", k=5)\nfor h in hits:\n    print(h[\"id\"], h[\"title\"])",
            ),
            1 => repl(
                "ents = context.entities(\"Kestrel Institute for Coastal Studies\", k=3)\nprint([e[\"name\"] for e in ents])\nnb = context.neighbors(ents[0][\"id\"], k=10)\nprint([n[\"name\"] for n in nb])",
            ),
            2 => repl(FIND_HOPS),
            _ => repl(final_code),
        })
    }
}

/// The footnotes name the two documents that hold the two hops of the Skarvik question.
fn assert_cites_both_hops(answer: &Value) {
    let paths: Vec<&str> = answer["verification"]["footnotes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(
        paths.iter().any(|p| p.ends_with("skarvik_expedition.md")),
        "{paths:?}"
    );
    assert!(
        paths.iter().any(|p| p.ends_with("kestrel_institute.html")),
        "{paths:?}"
    );
}

/// The RLM's answer stands, all its claims supported, its short answer `short`.
fn assert_stands_as(answer: &Value, short: &str) {
    assert_eq!(answer["method"], "rlm", "{answer:#}");
    assert_eq!(answer["short_answer"]["text"], short, "{answer:#}");
    assert!(
        verdicts(answer).iter().all(|v| v == "supported"),
        "{answer:#}"
    );
}

/// The RLM's answer stands as `short` (see [`assert_stands_as`]), its text
/// holds each of `holds` (what the review wrote after it), and the run said
/// it mended the answer with a note holding `mend`.
fn assert_stands_mended(case: &ScriptedCase, short: &str, holds: &[&str], mend: &str) {
    let answer = case.answer();
    assert_stands_as(&answer, short);
    let text = answer["text"].as_str().unwrap();
    assert!(holds.iter().all(|h| text.contains(h)), "{text}");
    assert!(case.stderr().contains(mend), "{}", case.stderr());
}

/// The RLM's answer, every claim of it carried by its citation, did not
/// stand: the review told the model what the answer check could not show
/// (issue 44), and the question fell back to the heuristic.
fn assert_sent_back_unshown(case: &ScriptedCase) {
    let answer = case.answer();
    assert_ne!(answer["method"], "rlm", "{answer:#}");
    assert!(answer["fallback"].is_object(), "{answer:#}");
    let told = case.server.requests().iter().any(|r| {
        r.to_string()
            .contains("Answer check: NOT VERIFIED, not shown")
    });
    assert!(told, "the model was never told the answer check");
}

fn verdicts(answer: &Value) -> Vec<String> {
    answer["verification"]["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["verdict"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn two_hop_question_search_neighbors_read_final_verifies() {
    let case = scripted_case(
        two_hop_script(
            r#"FINAL(f"The Skarvik Expedition was organised by the Kestrel Institute for Coastal Studies [{', '.join(hop1)}]. The Kestrel Institute for Coastal Studies is a research institute in Tromsø [{hop2}].")"#,
        ),
        &[],
        SKARVIK,
    );
    assert!(
        case.out.status.success(),
        "ask failed: {}\n{}",
        case.stderr(),
        case.stdout()
    );
    let answer = case.answer();
    assert_eq!(answer["method"], "rlm");
    assert!(answer["text"].as_str().unwrap().contains("Tromsø"));
    assert_eq!(verdicts(&answer), ["supported", "supported"], "{answer:#}");
    assert_cites_both_hops(&answer);
    // No short first claim: the short answer is read from the verified claims.
    assert_eq!(answer["short_answer"]["text"], "Tromsø", "{answer:#}");
    // The trajectory was written, has a final line with the verification.
    let trace = answer["trajectory"].as_str().unwrap();
    let text = std::fs::read_to_string(trace).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "final");
    assert!(last["verification"]["claims"].is_array());
}

#[test]
fn a_short_answer_cited_with_a_wrong_id_takes_its_own_answers_citation() {
    // The model put a document-like id after the short answer; the sentence
    // after it, which says the same, is cited right.
    let case = scripted_case(
        two_hop_script(
            r#"FINAL(f"Tromsø [d4]. The Kestrel Institute for Coastal Studies is a research institute in Tromsø [{hop2}].")"#,
        ),
        &[],
        SKARVIK,
    );
    let answer = case.answer();
    assert_stands_as(&answer, "Tromsø");
    assert!(
        !answer["text"].as_str().unwrap().contains("[d4]"),
        "{answer:#}"
    );
}

/// Code that keeps the id of the first sentence, among the hits of `search`,
/// that contains `holding`, as `sid`.
fn find_sentence(search: &str, holding: &str) -> String {
    rlmkg_tests::find_sentence("sid", search, 5, &[holding], Found::Id)
}

/// Ask `question` with a root that runs `first`, then answers `FINAL(f"…")`
/// with `final_text` every turn, worded differently each time (a repeat would
/// end the run sooner): the answer must not stand, and the run says it fell
/// back because of it, with a reason that contains `because` (`""`: any
/// reason).
fn an_answer_that_does_not_stand(
    question: &str,
    first: String,
    final_text: &'static str,
    because: &str,
) {
    let case = scripted_case(
        move |req: &Value, _| {
            let n = turn(req);
            Reply::Text(match n {
                0 => repl(&first),
                _ => repl(&format!("# try {n}\nFINAL(f\"{final_text}\")")),
            })
        },
        &[],
        question,
    );
    let answer = case.answer();
    assert_ne!(answer["method"], "rlm", "{answer:#}");
    assert_eq!(
        answer["fallback"]["kind"], "unsupported_answer",
        "{answer:#}"
    );
    let why = answer["fallback"]["why"].as_str().unwrap_or_default();
    assert!(why.contains(because), "{answer:#}");
}

#[test]
fn an_answer_naming_what_its_citation_does_not_carry_does_not_stand() {
    // The first claim cites a real sentence, which names a different place.
    an_answer_that_does_not_stand(
        SKARVIK,
        FIND_HOPS.to_owned(),
        "Northlight Press is in Tromsø [{hop2}].",
        "",
    );
}

#[test]
fn a_supported_answer_that_names_nothing_of_the_asked_type_does_not_stand() {
    // "Who founded …" asks for a person; the answer's one claim is carried by
    // its sentence but names no one.
    an_answer_that_does_not_stand(
        "Who founded the publisher of The Salt Atlas?",
        find_sentence("Salt Atlas published Northlight Press", "published in 2016"),
        "The Salt Atlas was published in 2016 [{sid}].",
        "person",
    );
}

#[test]
fn an_answer_asserting_the_questions_relation_its_citation_lacks_does_not_stand() {
    // The cited sentence names the author of the book, not who founded its
    // publisher: "founded" is the question's word, and the sentence lacks it.
    an_answer_that_does_not_stand(
        "Who founded the publisher of The Salt Atlas?",
        find_sentence("Salt Atlas book Mara Ellison", "essays by Dr. Mara Ellison"),
        "Dr. Mara Ellison founded the publisher of The Salt Atlas [{sid}].",
        "",
    );
}

#[test]
fn an_answer_from_another_hop_of_the_question_does_not_stand() {
    // The question asks when the founder was born; the cited sentence is
    // true, but says when the institute was founded.
    an_answer_that_does_not_stand(
        "In what year was the founder of the Kestrel Institute for Coastal Studies born?",
        find_sentence("Kestrel Institute founded", "founded in 1998"),
        "The institute was founded in 1998 by the oceanographer Ivar Lindqvist [{sid}].",
        "born",
    );
}

#[test]
fn an_answer_whose_sources_never_say_the_questions_year_does_not_stand() {
    // The cited sentence names an organisation and says "joins", but not
    // the year the question is about.
    an_answer_that_does_not_stand(
        "Which institute did the author of The Salt Atlas join in 2019?",
        find_sentence("Halvorsen Medal Society", "Society of Coastal Geographers"),
        "The Society of Coastal Geographers [{sid}].",
        "2019",
    );
}

#[test]
fn a_number_that_is_not_a_year_does_not_answer_what_year() {
    an_answer_that_does_not_stand(
        "In what year was the founder of the institute that organised the Skarvik Expedition born?",
        find_sentence("Tromsø inhabitants", "inhabitants"),
        "77,000 inhabitants [{sid}].",
        "date",
    );
}

#[test]
fn citing_the_wrong_sentence_shows_in_the_verdicts() {
    // The second claim cites the hop-1 sentence, which says nothing of Tromsø.
    let case = scripted_case(
        two_hop_script(
            r#"FINAL(f"The Skarvik Expedition was organised by the Kestrel Institute for Coastal Studies [{', '.join(hop1)}]. The Kestrel Institute for Coastal Studies is a research institute in Tromsø [{hop1[-1]}].")"#,
        ),
        &["--strict"],
        SKARVIK,
    );
    let answer = case.answer();
    let v = verdicts(&answer);
    assert_eq!(v[0], "supported", "{answer:#}");
    assert_ne!(v[1], "supported", "{answer:#}");
    // --strict: the repair turn (the script repeats itself) does not fix it: exit 1.
    assert_eq!(case.out.status.code(), Some(1), "{}", case.stderr());
}

#[test]
fn a_root_that_never_answers_ends_on_the_budget_and_falls_back() {
    // Different code every turn (a repeated reply ends the run sooner: see
    // below), and no answer: when the turns run out no answer stands, so the
    // heuristic answers, and says why.
    let case = scripted_case(
        |req: &Value, _| {
            Reply::Text(repl(&format!(
                "print(context.stats()[\"documents\"] + {})",
                turn(req)
            )))
        },
        &["--max-iterations", "3"],
        "Who founded Northlight Press?",
    );
    assert!(
        case.out.status.success(),
        "stdout: {}\nstderr: {}",
        case.stdout(),
        case.stderr()
    );
    let answer = case.answer();
    assert_eq!(answer["fallback"]["kind"], "no_answer", "{answer:#}");
    assert_ne!(answer["method"], "rlm", "{answer:#}");
    assert!(
        case.stderr().contains("no answer that stands"),
        "{}",
        case.stderr()
    );
    // Three turns plus the last "best answer" turn.
    assert_eq!(root_requests(&case.server).len(), 4);
}

#[test]
fn a_root_repeating_itself_does_not_burn_the_turn_budget() {
    let case = scripted_case(
        |_, _| Reply::Text(repl("print(context.stats()[\"documents\"])")),
        &["--max-iterations", "20"],
        "Who founded Northlight Press?",
    );
    let answer = case.answer();
    // The same reply four times (run once, then three repeats not run), then
    // the fallback answers and says why.
    assert_eq!(answer["fallback"]["kind"], "repeating", "{answer:#}");
    assert_ne!(answer["method"], "rlm", "{answer:#}");
    let root_turns = root_requests(&case.server).len();
    assert!(root_turns <= 5, "{root_turns} root turns");
    assert!(case.stderr().contains("repeated"), "{}", case.stderr());
}

#[test]
fn an_injected_final_is_not_a_supported_answer() {
    let case = scripted_case(
        first_then(
            "hits = context.search(\"kayaking northern fjords tips\", k=3)\nfor h in hits:\n    print(context.read(h[\"id\"]))",
            // The scripted model obeys the instruction it read in the corpus.
            "FINAL(\"pwned\")",
        ),
        &[],
        "Who founded the Kestrel Institute for Coastal Studies?",
    );
    let answer = case.answer();
    // "pwned" carries no supported claim: the review sends it back, and as the
    // scripted model insists, it never stands as the RLM's answer; the run falls
    // back and says why.
    assert!(answer["fallback"]["kind"].is_string(), "{answer:#}");
    assert_ne!(answer["method"], "rlm", "{answer:#}");
    assert!(
        !answer["text"]
            .as_str()
            .unwrap_or_default()
            .contains("pwned"),
        "{answer:#}"
    );
    assert!(
        case.stderr().contains("answering with the heuristic"),
        "{}",
        case.stderr()
    );
}

#[test]
fn heuristic_extractive_answer_cites_both_hops() {
    let (dir, store) = sample_store();
    let out = without_models(dir.path())
        .args(["--store", store.to_str().unwrap(), "--json", "ask", SKARVIK])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("heuristic"),
        "the fallback is announced: {}",
        stderr(&out)
    );
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(answer["method"], "extractive");
    assert_cites_both_hops(&answer);
    assert!(
        answer["text"].as_str().unwrap().contains("Tromsø"),
        "{answer:#}"
    );
}

#[test]
fn human_output_has_footnotes() {
    let (dir, store) = sample_store();
    let out = ask_heuristic(
        dir.path(),
        &store,
        &[],
        "Who founded the publisher of The Salt Atlas?",
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("Short answer: Catherine Moray"), "{text}");
    assert!(text.contains("Extractive answer"), "labelled: {text}");
    assert!(text.contains("[1]"), "{text}");
    assert!(text.contains(".md:"), "{text}");
}

#[test]
fn asking_without_a_store_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = rlmkg(dir.path())
        .args(["--store", "nowhere", "ask", "anything?"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("rlmkg ingest"), "{}", stderr(&out));
}

/// The questions of `examples/questions.jsonl` get their right short answer with
/// no model, or a plain "not found" that is never verified. All eleven get it
/// right since the bridges are chosen by the question's relation words (issue 13).
#[test]
fn sample_questions_get_their_short_answer_without_a_model() {
    let (dir, store) = sample_store();
    let list =
        std::fs::read_to_string(rlmkg_tests::repo_root().join("examples/questions.jsonl")).unwrap();
    let norm = |s: &str| s.to_lowercase().replace(['.', ','], "");
    let mut wrong = Vec::new();
    let mut right = 0;
    for line in list.lines().filter(|l| !l.trim().is_empty()) {
        let q: Value = serde_json::from_str(line).unwrap();
        let out = without_models(dir.path())
            .args(["--store", store.to_str().unwrap(), "--json", "ask"])
            .arg(q["question"].as_str().unwrap())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let mut golds = vec![q["answer"].as_str().unwrap().to_string()];
        golds.extend(
            q["answer_aliases"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_string()),
        );
        match answer["short_answer"]["text"].as_str() {
            Some(short) if golds.iter().any(|g| norm(g) == norm(short)) => right += 1,
            Some(short) => wrong.push(format!("{}: {short} (want {})", q["id"], golds[0])),
            None => {
                assert_eq!(answer["not_found"], true, "{answer:#}");
                assert_eq!(answer["verified"], false, "{answer:#}");
            }
        }
    }
    assert!(
        right >= 11 && wrong.is_empty(),
        "{right} right; wrong: {wrong:#?}"
    );
}

/// A root model that only writes prose and fences that do not run (what small
/// models do) never has its prose taken as the answer: `ask` falls back to the
/// heuristic strategy, composed by the same model, and says so (issue 13 item 5).
#[test]
fn a_root_that_runs_no_code_falls_back_to_the_heuristic_strategy() {
    let case = scripted_case(
        |req, _| {
            let system = req["messages"][0]["content"].as_str().unwrap_or("");
            Reply::Text(if system.contains("numbered evidence sentences") {
                // The composing call of the heuristic strategy.
                "Short answer: Catherine Moray\nExplanation: Northlight Press was founded in 1987 by Catherine Moray.".into()
            } else {
                "Tomas Reyes founded it [c99.s9].\n```text\nTomas Reyes\n```".into()
            })
        },
        &["--max-iterations", "2"],
        "Who founded the publisher of The Salt Atlas?",
    );
    assert!(case.out.status.success(), "{}", case.stderr());
    assert!(case.stderr().contains("ran no code"), "{}", case.stderr());
    let answer = case.answer();
    assert_eq!(answer["fallback"]["kind"], "no_code_executed", "{answer:#}");
    assert_eq!(answer["method"], "heuristic_composed", "{answer:#}");
    assert!(
        !answer["text"].as_str().unwrap().contains("Tomas Reyes"),
        "{answer:#}"
    );
    assert_eq!(
        answer["short_answer"]["text"], "Catherine Moray",
        "{answer:#}"
    );
    // Verified only when the answer check finds the chain (issue 44).
    assert_eq!(
        answer["verified"],
        answer["answer_check"]["verdict"] == "answers",
        "{answer:#}"
    );
}

/// Code that finds the text (without its id) of the sentence that places the
/// Kestrel Institute in Tromsø, as a small root reads it from a search, as
/// `said`.
fn find_tromso(keep: Found) -> String {
    rlmkg_tests::find_sentence(
        "said",
        "Kestrel Institute for Coastal Studies Tromsø",
        5,
        &["Tromsø", "KICS"],
        keep,
    )
}

#[test]
fn a_sentence_copied_without_its_id_is_cited_to_it() {
    // The small root's habit: it writes the sentence it read into FINAL and
    // leaves out the id. A word-for-word copy is cited to the sentence.
    let case = scripted_case(
        first_then(find_tromso(Found::Text), "FINAL(said)"),
        &[],
        SKARVIK,
    );
    let answer = case.answer();
    assert_stands_as(&answer, "Tromsø");
    assert!(
        case.stderr().contains("copied word for word"),
        "{}",
        case.stderr()
    );
}

#[test]
fn a_paraphrase_or_a_copied_page_is_not_cited_from_the_reads() {
    // One word of its own ("famous"), or the whole page copied: neither is
    // given a citation, so neither stands as the RLM's answer.
    for final_code in [
        "FINAL(said.replace(\"independent\", \"famous\"))",
        "page = context.read(context.search(\"Kestrel Institute for Coastal Studies Tromsø\", k=1)[0][\"id\"])\nFINAL(\" \".join(s.strip().rstrip(\".\") + \".\" for _, s in re.findall(r\"\\[(c\\d+\\.s\\d+)\\] ([^\\[]*)\", page)))",
    ] {
        let case = scripted_case(
            first_then(find_tromso(Found::Text), final_code),
            &[],
            SKARVIK,
        );
        let answer = case.answer();
        assert_ne!(answer["method"], "rlm", "{final_code}: {answer:#}");
        assert!(
            !case.stderr().contains("copied word for word"),
            "{}",
            case.stderr()
        );
    }
}

/// Code that finds the id of the sentence placing Halden University in
/// Aldergate (the last hop of "the university that Mara Ellison left in
/// 2019"), as a small root reads it from a search, as `said`.
fn find_aldergate() -> String {
    rlmkg_tests::find_sentence(
        "said",
        "Halden University city",
        3,
        &["Aldergate", "Halden University"],
        Found::Id,
    )
}

const LEFT_IN_2019: &str = "In which city is the university that Mara Ellison left in 2019?";

#[test]
fn the_questions_year_is_carried_to_the_answer_by_the_sentences_the_run_read() {
    // The root read the 2019 sentence (Ellison left Halden University) and
    // the sentence placing Halden University in Aldergate, then cited only
    // the last: the year sentence the run read is written after the answer.
    let case = scripted_case(
        first_then(
            format!(
                "print(context.search(\"Mara Ellison left 2019\", k=2))\n{}",
                find_aldergate()
            ),
            "FINAL(f\"Aldergate [{said}].\")",
        ),
        &[],
        LEFT_IN_2019,
    );
    // The year sentence carried to the answer says she left Halden University
    // ("after leaving"), which the graph holds as no fact: the answer check
    // cannot show the chain, and the answer does not stand.
    assert_sent_back_unshown(&case);
}

#[test]
fn a_year_no_read_sentence_links_to_the_answer_stays_missing() {
    // The same answer, but the run never read a sentence that holds 2019:
    // nothing carries the year, and the answer does not stand as the RLM's.
    let case = scripted_case(
        first_then(find_aldergate(), "FINAL(f\"Aldergate [{said}].\")"),
        &["--max-iterations", "3"],
        LEFT_IN_2019,
    );
    let answer = case.answer();
    assert_ne!(answer["method"], "rlm", "{answer:#}");
    assert!(
        !case.stderr().contains("year carried to the answer"),
        "{}",
        case.stderr()
    );
}

#[test]
fn a_short_claim_that_says_more_than_the_asked_place_is_answered_by_the_place() {
    // "KICS is an independent research institute in Tromsø": short, supported
    // and naming a place, but the short answer is the place it names.
    let case = scripted_case(
        first_then(
            find_tromso(Found::Id),
            "FINAL(f\"KICS is an independent research institute in Tromsø [{said}].\")",
        ),
        &[],
        SKARVIK,
    );
    let answer = case.answer();
    assert_stands_as(&answer, "Tromsø");
}

const FOUNDED_PUBLISHER: &str = "Who founded the publisher of The Salt Atlas?";

/// Code that reads the review of The Salt Atlas (the sentence naming its
/// publisher among its hits) and keeps the id of the first sentence among
/// `search`'s hits that holds `holding`, as `said`.
fn read_publisher_then(search: &str, holding: &[&str]) -> String {
    format!(
        "{}\n{}",
        rlmkg_tests::find_sentence("pub_", "Salt Atlas published", 3, &["published"], Found::Id),
        rlmkg_tests::find_sentence("said", search, 5, holding, Found::Id)
    )
}

#[test]
fn a_founder_of_another_organization_does_not_answer_whose_founder_is_asked() {
    // The root read that Northlight Press published the book, then answered
    // with the founder of the institute: a sentence that says "founded", but
    // of an organization no sentence saying "published" names.
    an_answer_that_does_not_stand(
        FOUNDED_PUBLISHER,
        read_publisher_then("Kestrel Institute founded", &["founded", "Lindqvist"]),
        "Ivar Lindqvist [{said}].",
        "shares no name",
    );
}

#[test]
fn the_sentence_linking_the_answer_to_the_questions_next_step_is_written_after_it() {
    // The root read that the vessel was built at the Vardal Shipyard and that
    // "It was founded … by the engineer Olaf Haugen" (about the shipyard), and
    // cited only the last: the sentence saying "built" that links them is
    // written after the answer.
    let case = scripted_case(
        first_then(
            format!(
                "{}\n{}",
                rlmkg_tests::find_sentence(
                    "built_",
                    "Storm Petrel built",
                    3,
                    &["built", "Vardal"],
                    Found::Id
                ),
                rlmkg_tests::find_sentence(
                    "said",
                    "Vardal Shipyard founded",
                    3,
                    &["founded", "Olaf Haugen"],
                    Found::Id
                )
            ),
            "FINAL(f\"Olaf Haugen [{said}].\")",
        ),
        &[],
        "Who founded the shipyard that built the research vessel used on the Skarvik Expedition?",
    );
    // "Used on the Skarvik Expedition" is said of the vessel by no fact the
    // cited sentences hold: the chain is not shown, and the answer does not
    // stand.
    assert_sent_back_unshown(&case);
}

#[test]
fn a_fjord_does_not_answer_which_city() {
    // "Skarvik Fjord" is a place and the cited sentence says it, but the
    // question asks for a city: the root is told so, and its next answer,
    // the city, stands.
    let case = scripted_case(
        |req: &Value, _| {
            let told = req.to_string().contains("is a fjord, not a city");
            Reply::Text(match turn(req) {
                0 => repl(&rlmkg_tests::find_sentence(
                    "said",
                    "Skarvik Expedition survey fjord",
                    3,
                    &["Skarvik Fjord"],
                    Found::Id,
                )),
                _ if told => repl(&format!(
                    "{}\nFINAL(f\"Tromsø [{{said}}].\")",
                    find_tromso(Found::Id)
                )),
                _ => repl("FINAL(f\"Skarvik Fjord [{said}].\")"),
            })
        },
        &[],
        SKARVIK,
    );
    let answer = case.answer();
    assert_stands_as(&answer, "Tromsø");
}

#[test]
fn reading_a_documents_id_names_the_chunks_to_read() {
    // A small root reads a hit's "doc" with a sentence number ("d12.s3"):
    // the error names that document's chunk ids, which the root then reads.
    let case = scripted_case(
        |req: &Value, _| {
            let told = req.to_string().contains("is a document id");
            Reply::Text(match turn(req) {
                0 => repl(
                    "hits = context.search(\"Kestrel Institute for Coastal Studies Tromsø\", k=1)\n\
                     print(context.read(hits[0][\"doc\"] + \".s2\"))",
                ),
                _ if told => repl(&format!(
                    "{}\nFINAL(f\"Tromsø [{{said}}].\")",
                    find_tromso(Found::Id)
                )),
                _ => repl("FINAL(\"\")"),
            })
        },
        &[],
        SKARVIK,
    );
    assert_stands_as(&case.answer(), "Tromsø");
}

#[test]
fn a_linking_sentence_that_refers_back_comes_with_what_it_refers_to() {
    // The root read the expedition's overview ("It was organised by … and led
    // by Dr. Tomas Reyes") and Reyes's birth, and answered from the birth
    // alone. The link is written with the sentence its "It" refers to, and
    // the short answer is still read from the root's own claim.
    let case = scripted_case(
        first_then(
            format!(
                "{}\n{}",
                rlmkg_tests::find_sentence(
                    "led_",
                    "Skarvik Expedition led",
                    3,
                    &["led by"],
                    Found::Id
                ),
                rlmkg_tests::find_sentence(
                    "said",
                    "Tomas Reyes born",
                    3,
                    &["born", "Chile"],
                    Found::Id
                )
            ),
            "FINAL(f\"Tomas Reyes was born in 1974 in Valparaiso, Chile [{said}].\")",
        ),
        &[],
        "In which country was the leader of the Skarvik Expedition born?",
    );
    let answer = case.answer();
    assert_stands_as(&answer, "Chile");
    let text = answer["text"].as_str().unwrap();
    let (overview, led) = (
        text.find("The Skarvik Expedition was a six-week survey"),
        text.find("led by Dr. Tomas Reyes"),
    );
    assert!(
        overview.is_some() && led.is_some() && overview < led,
        "{text}"
    );
}

#[test]
fn a_name_its_cited_sentence_does_not_write_is_not_the_short_answer() {
    // A small root led with the vessel ("RV Storm Petrel [c3.s3]") and cited
    // the sentence that says where she was built ("She was built … in
    // Bergen"). The vessel is the question's own bridge, named in the chunk's
    // heading but not in the sentence cited: the short answer is the city
    // that sentence writes.
    let case = scripted_case(
        first_then(
            format!(
                "{}\n{}",
                rlmkg_tests::find_sentence(
                    "used",
                    "Skarvik Expedition research vessel",
                    3,
                    &["aboard the research vessel"],
                    Found::Id
                ),
                rlmkg_tests::find_sentence(
                    "said",
                    "Storm Petrel built",
                    3,
                    &["built in"],
                    Found::Id
                )
            ),
            "FINAL(f\"RV Storm Petrel [{said}]. She was built in 2009 at the Vardal Shipyard in Bergen and was delivered in the spring of 2010. [{said}]\")",
        ),
        &[],
        "In which city was the research vessel used on the Skarvik Expedition built?",
    );
    // The cited sentence says where she was built, and no cited sentence
    // links the expedition to the vessel: the answer check cannot show the
    // chain, and the answer does not stand.
    assert_sent_back_unshown(&case);
}

#[test]
fn a_city_of_another_institute_does_not_answer_where_the_organiser_is() {
    // The root read that the Kestrel Institute organised the expedition,
    // then answered with Halden University's city: no name links the
    // sentence holding the answer to the sentence saying "organised".
    an_answer_that_does_not_stand(
        SKARVIK,
        format!(
            "print(context.search(\"Skarvik Expedition organised\", k=2))\n{}",
            find_aldergate()
        ),
        "Aldergate [{said}].",
        "shares no name",
    );
}

/// The flags of a small root on the `code` protocol, each turn begun for it.
const SMALL_CODE: &[&str] = &[
    "--profile",
    "small",
    "--protocol",
    "code",
    "--server",
    "llama-cpp",
];

#[test]
fn the_city_of_the_institute_she_joined_does_not_answer_where_the_one_she_left_is() {
    // "Mara Ellison joined KICS in 2019 after leaving Halden University":
    // the sentence saying "left" (as "leaving") names KICS too, but what it
    // says was left is Halden University, so KICS's city does not stand.
    an_answer_that_does_not_stand(
        LEFT_IN_2019,
        format!(
            "print(context.search(\"Mara Ellison left 2019\", k=2))\n{}",
            find_tromso(Found::Id)
        ),
        "Tromsø [{said}].",
        "shares no name",
    );
}

#[test]
fn the_society_that_gives_the_medal_is_not_what_its_winner_joined() {
    // "The medal is given each year by the Society of Coastal Geographers
    // for a work that joins careful measurement with clear writing": the
    // sentence says "joins" and names an organization, and "The medal"
    // refers back to the sentence naming the medal and its winner; but it
    // means the medal, not the winner, so nothing links the society to
    // what the winner joined.
    an_answer_that_does_not_stand(
        "Which institute did the winner of the 2018 Halvorsen Medal join in 2019?",
        rlmkg_tests::find_sentence(
            "said",
            "2018 Halvorsen Medal awarded",
            3,
            &["given each year"],
            Found::Id,
        ),
        "Society of Coastal Geographers [{said}].",
        "shares no name",
    );
}

#[test]
fn the_institute_the_medal_winner_joined_stands_linked_by_the_award() {
    // The root read who won the 2018 Halvorsen Medal and that Mara Ellison
    // joined KICS in 2019, and cited only the latter: the award sentence,
    // whose "awarded" is about Mara Ellison, links the answer and is written
    // after it.
    let case = scripted_case(
        first_then(
            format!(
                "print(context.search(\"2018 Halvorsen Medal awarded\", k=3))\n{}",
                rlmkg_tests::find_sentence(
                    "said",
                    "Mara Ellison joined 2019",
                    3,
                    &["joined", "2019"],
                    Found::Id
                )
            ),
            "FINAL(f\"Kestrel Institute for Coastal Studies. Dr. Mara Ellison joined the Kestrel \
             Institute for Coastal Studies (KICS) in September 2019 [{said}].\")",
        ),
        &[],
        "Which institute did the winner of the 2018 Halvorsen Medal join in 2019?",
    );
    assert_stands_mended(
        &case,
        "Kestrel Institute for Coastal Studies",
        &["awarded to Dr. Mara Ellison"],
        "linked to the question's next step",
    );
}

#[test]
fn a_small_root_is_shown_the_facts_of_what_it_read_and_never_an_answer() {
    // After each output the hint shows the facts the graph holds from the
    // chunks shown (subject — predicate — object [sentence id]) and makes no
    // choice for the model (issue 44): no turn is begun as `FINAL("`, no
    // search is written for it, no sentence is offered as the answer.
    let case = scripted_case(
        |req: &Value, _| {
            let begun = begun(req);
            Reply::Text(if begun.ends_with("search(\"") {
                "Northlight Press founded\")\nprint(hits[:3])\n```".into()
            } else {
                format!(
                    "{}hits = context.search(\"Northlight Press founded\")\nprint(hits[:3])\n```",
                    if begun.is_empty() { "```repl\n" } else { "" }
                )
            })
        },
        &[SMALL_CODE, &["--max-iterations", "3"]].concat(),
        FOUNDED_PUBLISHER,
    );
    let reqs = root_requests(&case.server);
    assert!(reqs.len() >= 2, "{reqs:#?}");
    let hint = rlm_core::testkit::last_user(&reqs[1]);
    assert!(
        hint.contains("Facts the graph holds from the passages above"),
        "{hint}"
    );
    assert!(
        hint.contains("Catherine Moray — founded — Northlight Press ["),
        "{hint}"
    );
    assert!(!hint.contains("links to the question"), "{hint}");
    assert!(!hint.contains("The sentence above"), "{hint}");
    let before_last = &reqs[..reqs.len() - 1];
    assert!(
        before_last
            .iter()
            .all(|r| !begun(r).ends_with("FINAL(\"") && !begun(r).contains("founded\")\nprint")),
        "{reqs:#?}"
    );
}
