"""The rlmkg Python package end to end: the sample corpus ingested, searched,
asked (heuristic and a scripted RLM), verified and evaluated, errors as
exceptions, and asyncio callers running two questions at once."""

import asyncio
import json
import threading

import pytest

import rlmkg
from conftest import CORPUS, QUESTIONS, is_root_request, last_user, sample_questions


def test_ingest_reports_counts_and_progress(tmp_path):
    events = []
    store = rlmkg.Store.create(tmp_path / "s")
    report = store.ingest(str(CORPUS), progress=events.append)
    assert report["files"] == 14 and report["ingested"] == 14, report
    assert report["docs"] >= 14 and report["chunks"] > report["docs"], report
    assert report["entities"] > 50 and report["relations"] > 0, report
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and events[0]["total_files"] == 14, events[:2]
    assert kinds.count("file_done") == 14 and kinds[-1] == "finish", kinds
    assert all(e["bytes"] > 0 for e in events if e["event"] == "file_done")
    # The reader sees the commit.
    assert store.stats()["docs"] == report["docs"]
    # Again: nothing changed.
    again = store.ingest([CORPUS])
    assert again["unchanged"] == 14 and again["ingested"] == 0, again


def test_a_raising_progress_callback_is_raised_after_the_ingest(tmp_path):
    calls = []

    def progress(event):
        calls.append(event)
        raise KeyError("stop")

    store = rlmkg.Store.create(tmp_path / "s")
    with pytest.raises(KeyError, match="stop"):
        store.ingest([CORPUS], progress=progress)
    assert len(calls) == 1  # not called again after it raised
    assert store.stats()["files"] == 14  # the ingest itself went through


def test_search_hits(store):
    hits = store.search("Skarvik Expedition", 3)
    assert len(hits) == 3
    top = hits[0]
    assert isinstance(top, rlmkg.SearchHit), top
    assert top.title == "The Skarvik Expedition (2021)", top
    assert top.path.endswith("skarvik_expedition.md"), top
    assert "Skarvik" in top.text
    assert top.score >= hits[1].score >= hits[2].score > 0
    assert top.id.startswith("c") and top.doc.startswith("d"), top
    assert top.to_dict() == {
        "id": top.id, "doc": top.doc, "title": top.title, "path": top.path,
        "score": top.score, "text": top.text,
    }


@pytest.mark.parametrize("query", ['title:* AND ("', "kind:doc", "*", "id:c1", "start:[0 TO 9]"])
def test_any_text_is_a_search(store, query):
    # Syntax reaching beyond titles and texts is read as words, never an error.
    assert all(isinstance(h, rlmkg.SearchHit) for h in store.search(query, 3))


def test_read_entity_path_related_sparql(store):
    hit = store.search("Northlight Press founded", 1)[0]
    passage = store.read(hit.id)
    assert passage["text"] == hit.text
    assert passage["sentences"] and passage["sentences"][0]["id"].startswith(hit.id + ".s")
    sentence = store.read(passage["sentences"][0]["id"])
    assert sentence["text"] in passage["text"]

    moray = store.entity("Catherine Moray")
    assert isinstance(moray, rlmkg.Entity), moray
    assert moray.id == "catherine_moray" and moray.type == "person", moray
    assert "Moray" in moray.aliases and moray.mentions > 0
    assert store.entity("Nobody Atall") is None
    neighbors = store.neighbors("Catherine Moray")
    assert all(isinstance(n, rlmkg.Neighbor) for n in neighbors)
    assert any(n.name == "1987" for n in neighbors)
    # The entity carries its neighbors, the same as `neighbors` gives.
    assert [n.to_dict() for n in moray.neighbors] == [n.to_dict() for n in neighbors]
    assert moray.to_dict()["neighbors"] == [n.to_dict() for n in neighbors]
    assert all(e.startswith("c") for n in moray.neighbors for e in n.evidence)

    # Facts: what the documents state of her, each with the sentence to cite.
    facts = store.facts("Catherine Moray")
    assert any(
        f["predicate"] == "founded" and f["object"] == "northlight_press" and f["sentence"]
        for f in facts
    ), facts

    paths = store.path("Tomas Reyes", "Kestrel Institute for Coastal Studies")
    # A chain of facts: he led the expedition, the institute organised it.
    assert paths and paths[0]["names"] == [
        "Tomas Reyes",
        "Skarvik Expedition",
        "Kestrel Institute for Coastal Studies",
    ], paths
    named = store.path(from_="Tomas Reyes", to="Kestrel Institute for Coastal Studies")
    assert named == paths

    ranked = store.related("Who founded the publisher of The Salt Atlas?", 5)
    assert len(ranked) == 5
    assert {"Northlight Press", "Review: The Salt Atlas"} <= {c["title"] for c in ranked}

    out = store.sparql("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")
    assert out["kind"] == "select" and out["vars"] == ["n"], out
    assert int(out["rows"][0][0].split('"')[1]) > 1000, out
    assert store.sparql("ASK { GRAPH ?g { ?s ?p ?o } }") == {"kind": "ask", "value": True}


def test_ask_a_sample_question_checked_as_an_answer(store):
    q = sample_questions()["q2"]  # the Skarvik Expedition's institute's city
    answer = store.ask(q["question"], strategy="heuristic")
    assert isinstance(answer, rlmkg.Answer)
    assert answer.short_answer in [q["answer"], *q["answer_aliases"]], answer.text
    assert answer.question == q["question"]
    assert answer.method == "extractive" and not answer.not_found
    # The extractive answer cites who organised the expedition and where
    # that institute is: the answer check's chain runs from the question's
    # name to the city, so it is verified.
    assert answer.answer_check["verdict"] == "answers", answer.answer_check
    chain = answer.answer_check["chain"]
    assert chain[0]["from"] == "Skarvik Expedition" and chain[-1]["to"] == "Tromsø", chain
    assert answer.verified
    # The city of the university she left: the graph holds no fact for
    # "after leaving Halden University", so no chain reaches the city.
    other = store.ask(sample_questions()["q8"]["question"], strategy="heuristic")
    assert other.short_answer == sample_questions()["q8"]["answer"], other.text
    assert other.answer_check["verdict"] == "not_shown", other.answer_check
    assert "Mara Ellison" in other.answer_check["reason"], other.answer_check
    assert not other.verified
    assert isinstance(answer.verification, rlmkg.Verification) and answer.verification.supported
    assert answer.verification.claims[0] is answer.claims[0]
    assert answer.answer_type == {"type": "place"}
    assert answer.trajectory_path is None  # no RLM run, nothing written
    assert answer.claims and all(isinstance(c, rlmkg.Claim) for c in answer.claims)
    for claim in answer.claims:
        assert claim.verdict in ("supported", "exempt"), claim
    cited = [c for c in answer.claims if c.citations]
    assert cited and all(cit["resolved"] for c in cited for cit in c.citations)
    assert "[c" in answer.text and str(answer) == answer.text
    assert repr(answer).startswith("Answer(short_answer='Tromsø', method='extractive', verified=True")
    d = answer.to_dict()
    assert d["short_answer"]["text"] == answer.short_answer and d["verified"] is True
    assert d["answer_check"] == answer.answer_check


def test_auto_without_a_model_says_the_heuristic_answered(store):
    answer = store.ask("Who founded the publisher of The Salt Atlas?")
    assert answer.short_answer == "Catherine Moray", answer.text
    assert any("heuristic" in n for n in answer.notes), answer.notes
    missing = store.ask("Who was the first person to walk on Mars?")
    assert missing.not_found and missing.short_answer is None and not missing.verified


def test_verify_a_planted_wrong_claim(store):
    right = store.search("Kestrel Institute independent research institute Tromsø", 1)[0]
    sentence = next(s for s in store.read(right.id)["sentences"] if "Tromsø" in s["text"])
    sid = sentence["id"]
    good = rlmkg.verify(f"The Kestrel Institute for Coastal Studies is in Tromsø [{sid}].", store)
    # The same typed results as an answer's: a Verification of Claims.
    assert isinstance(good, rlmkg.Verification) and good.supported, good
    assert all(isinstance(c, rlmkg.Claim) for c in good.claims)
    assert [c.verdict for c in good.claims] == ["supported"], good.claims
    wrong = rlmkg.verify(f"The Kestrel Institute for Coastal Studies is in Bergen [{sid}].", store)
    (claim,) = wrong.claims
    assert claim.verdict not in ("supported", "exempt"), claim
    assert any("bergen" in r["detail"].lower() for r in claim.reasons), claim.reasons
    assert not wrong.supported and wrong.totals["verdicts"].get("supported", 0) == 0
    assert wrong.to_dict()["claims"][0]["verdict"] == claim.verdict
    broken = rlmkg.verify("Tromsø is in Norway [c99999.s1].", store)
    assert broken.claims[0].verdict == "broken"


def test_errors_are_typed_exceptions(store, tmp_path):
    missing = tmp_path / "no-store-here"
    with pytest.raises(rlmkg.StoreNotFoundError) as e:
        rlmkg.Store(missing)
    assert str(missing) in str(e.value)
    assert isinstance(e.value, rlmkg.StoreError) and isinstance(e.value, rlmkg.RlmkgError)
    with pytest.raises(rlmkg.NotFoundError, match="c99999"):
        store.read("c99999")
    with pytest.raises(rlmkg.StoreError, match="invalid argument"):
        store.read("not an id")
    with pytest.raises(rlmkg.ModelError, match="needs a root model"):
        store.ask("Who founded Northlight Press?", strategy="rlm")
    with pytest.raises(ValueError, match="strategy"):
        store.ask("Who founded Northlight Press?", strategy="oracle")
    with pytest.raises(ValueError, match="server"):
        rlmkg.ModelConfig("http://127.0.0.1:9/v1", "m", server="nope")
    with pytest.raises(rlmkg.StoreError):
        store.sparql("SELECT nonsense")


def explore_then_final(req):
    """The scripted root: search who published the book, explore who founded
    Northlight Press, print both ids, then FINAL citing the chain (the answer
    check needs both hops)."""
    if not is_root_request(req):
        return "unused"
    if "FOUND " in last_user(req):
        code = (
            "FINAL(f\"Catherine Moray [{b}]. The Salt Atlas was published by Northlight Press [{a}]. "
            "Northlight Press was founded in 1987 by Catherine Moray [{b}].\")"
        )
    else:
        code = (
            'a = context.search("Salt Atlas published Northlight Press")[0]["id"]\n'
            'found = context.explore("Who founded Northlight Press?")\n'
            'b = [e for e in found["evidence"] if "founded" in e["text"]][0]["id"]\n'
            'print("FOUND " + a + " " + b)'
        )
    return f"```repl\n{code}\n```\n"


def test_ask_with_a_scripted_model_server(store, chat_server, tmp_path):
    server = chat_server(explore_then_final)
    model = rlmkg.ModelConfig(server.base_url, "scripted", context_window=32768)
    assert model.api_key is None and model.replicas == []
    assert repr(model) == (
        f"ModelConfig(base_url='{server.base_url}', model='scripted', api_key=None, "
        "context_window=32768, server=None, replicas=[])"
    )
    keyed = rlmkg.ModelConfig("http://a/v1", "m", api_key="secret", replicas=["http://b/v1"])
    assert "secret" not in repr(keyed) and keyed.api_key == "secret"
    assert keyed.replicas == ["http://b/v1"]
    events = []
    trace = tmp_path / "trace.jsonl"
    answer = store.ask(
        "Who founded the publisher of The Salt Atlas?",
        strategy="rlm",
        model=model,
        max_iterations=5,
        trajectory_path=trace,
        on_event=events.append,
    )
    assert answer.method == "rlm", (answer.text, answer.notes, answer.fallback)
    assert answer.text.startswith("Catherine Moray [c")
    assert answer.verified and answer.claims[0].verdict == "supported", answer.verification
    assert answer.answer_check["verdict"] == "answers", answer.answer_check
    assert answer.fallback is None
    assert answer.usage["iterations"] == 2 and answer.usage["calls"] >= 2, answer.usage
    assert len(server.requests) >= 2 and all(r["model"] == "scripted" for r in server.requests)
    assert answer.trajectory_path == str(trace)
    lines = [json.loads(l) for l in trace.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[-1]["type"] == "final", lines[-1]
    runs = [e["line"]["type"] for e in events if e["event"] == "run"]
    assert runs[0] == "header" and runs[-1] == "final" and runs.count("iteration") == 2, runs
    assert any(e["event"] == "draft" and "Catherine Moray" in e["text"] for e in events)


def test_ask_async_two_questions_at_once(store):
    qs = sample_questions()

    async def both():
        return await asyncio.gather(
            store.ask_async(qs["q2"]["question"], strategy="heuristic"),
            store.ask_async(qs["q4"]["question"], strategy="heuristic"),
        )

    a2, a4 = asyncio.run(both())
    assert a2.short_answer == "Tromsø" and a4.short_answer == "Catherine Moray", (a2.text, a4.text)
    for a in (a2, a4):
        assert a.verified == (a.answer_check["verdict"] == "answers" and a.verification.supported), a.text


def test_ask_async_runs_concurrently(store, chat_server):
    # Each run's first root turn waits at a barrier for the other run's: the
    # two runs only finish if they are in flight at the same time.
    barrier = threading.Barrier(2, timeout=30)

    def script(req):
        if is_root_request(req) and "FOUND " not in last_user(req):
            barrier.wait()
        return explore_then_final(req)

    server = chat_server(script)
    model = rlmkg.ModelConfig(server.base_url, "scripted", context_window=32768)
    question = "Who founded the publisher of The Salt Atlas?"

    async def both():
        return await asyncio.gather(
            *(store.ask_async(question, strategy="rlm", model=model, max_iterations=5) for _ in range(2))
        )

    answers = asyncio.run(both())
    assert not barrier.broken
    for a in answers:
        assert a.method == "rlm" and a.verified, (a.text, a.notes)
        assert a.short_answer is None or "Moray" in a.short_answer


def test_eval_scores_the_sample_questions(tmp_path):
    store = rlmkg.Store.create(tmp_path / "eval")
    progress = []
    summary = store.eval(
        QUESTIONS, corpus=[CORPUS], limit=4, strategy="heuristic", progress=progress.append
    )
    assert summary["questions"] == 4, summary
    assert summary["bm25"]["r@10"] > 0.5 and summary["graph"]["r@10"] > 0.5, summary
    assert summary["em"] >= 0.5 and summary["run_errors"] == 0, summary
    assert [m["method"] for m in summary["by_method"]] == ["extractive"], summary["by_method"]
    done = [e for e in progress if e["event"] == "question"]
    assert [e["done"] for e in done] == [1, 2, 3, 4] and done[0]["id"] == "q1"
    assert store.stats()["files"] == 14  # the corpus went into this store

    retrieval = store.eval(QUESTIONS, retrieval_only=True)
    assert retrieval["questions"] == len(sample_questions()) and "em" not in retrieval
    with pytest.raises(rlmkg.EvalError, match="cannot read"):
        store.eval(tmp_path / "missing.jsonl")


def test_the_type_stubs_name_what_the_module_has():
    import ast
    import inspect
    from pathlib import Path

    stub = Path(rlmkg.__file__).with_name("__init__.pyi")
    assert stub.is_file() and stub.with_name("py.typed").is_file()
    tree = ast.parse(stub.read_text())
    top = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    # Everything public but the extension module itself (`rlmkg.rlmkg`).
    public = {
        n for n in dir(rlmkg) if not n.startswith("_") and not inspect.ismodule(getattr(rlmkg, n))
    }
    assert top == public, (top ^ public)
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        stubbed = {f.name for f in cls.body if isinstance(f, ast.FunctionDef) and not f.name.startswith("_")}
        actual = {n for n in dir(getattr(rlmkg, cls.name)) if not n.startswith("_")}
        actual -= set(dir(Exception))  # args, with_traceback, add_note
        assert stubbed == actual, (cls.name, stubbed ^ actual)
