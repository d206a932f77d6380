"""rlmkg: answer questions over document collections with a recursive language
model walking a knowledge graph, every claim checked against the source text it
cites.

The results read most are classes with typed attributes and `to_dict()`:
`Answer`, `Verification` and its `Claim`s, `SearchHit`, `Entity` and its
`Neighbor`s. The rest (`read`, `path`, `related`, `sparql`, `stats`, the ingest
report, the eval summary) are dicts and lists with the field names of the Rust
types (the same as `rlmkg --json`).
"""

import os
from typing import Any, Awaitable, Callable, Optional, Sequence, Union

__version__: str

StrPath = Union[str, "os.PathLike[str]"]
Paths = Union[StrPath, Sequence[StrPath]]
Event = dict[str, Any]

class RlmkgError(Exception):
    """The base of every rlmkg exception."""

class StoreError(RlmkgError):
    """The store failed."""

class StoreNotFoundError(StoreError):
    """No rlmkg store at the path (create one with Store.create)."""

class StoreLockedError(StoreError):
    """Another writer holds the store's lock."""

class NotFoundError(StoreError):
    """An id that names nothing in the store."""

class ModelError(RlmkgError):
    """A model, a model backend or the RLM run failed (or none is configured)."""

class VerificationError(RlmkgError):
    """The citation checker could not read its sources."""

class EvalError(RlmkgError):
    """An evaluation could not run (the dataset, its corpus, the runtime)."""

class ModelConfig:
    """An OpenAI-compatible model endpoint (llama.cpp, vLLM, Ollama, OpenAI, ...).

    `base_url` ends in `/v1`; `server` is one of `openai`, `vllm`, `llama-cpp`,
    `llama-cpp-python`, `ollama`. `server` and `context_window` are asked of the
    server when not given. `replicas` are the base URLs of further servers of the
    same model; the calls are spread over all of them.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: Optional[str] = None,
        context_window: Optional[int] = None,
        server: Optional[str] = None,
        replicas: Optional[Sequence[str]] = None,
    ) -> None: ...
    @property
    def base_url(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def api_key(self) -> Optional[str]: ...
    @property
    def context_window(self) -> Optional[int]: ...
    @property
    def server(self) -> Optional[str]: ...
    @property
    def replicas(self) -> list[str]: ...

class Claim:
    """One claim of an answer, checked against the sentences it cites."""

    @property
    def text(self) -> str:
        """The claim's text, citations removed."""
    @property
    def verdict(self) -> str:
        """`supported`, `partial`, `overreach`, `unsupported`, `uncited`,
        `broken` or `exempt` (a connective sentence, not checked)."""
    @property
    def score(self) -> float:
        """Weighted share of the claim's terms the cited text carries (0 to 1)."""
    @property
    def reasons(self) -> list[dict[str, Any]]:
        """Why: dicts with `kind` and `detail`."""
    @property
    def citations(self) -> list[dict[str, Any]]:
        """Dicts with `raw`, `id`, `resolved`, `precise`, `footnote`."""
    @property
    def evidence(self) -> list[dict[str, Any]]:
        """The best-matching source sentences, best first."""
    def to_dict(self) -> dict[str, Any]:
        """The whole claim report."""

class Verification:
    """The checker's report on an answer's citations."""

    @property
    def answer(self) -> str:
        """The answer as given."""
    @property
    def claims(self) -> list[Claim]: ...
    @property
    def supported(self) -> bool:
        """Every factual claim is supported."""
    @property
    def footnotes(self) -> list[dict[str, Any]]:
        """Dicts with `number`, `id`, `path`, `title`, `line_start`, `line_end`, `page`."""
    @property
    def totals(self) -> dict[str, Any]:
        """`claims`, `factual`, `verdicts` (claims per verdict), `support_rate`,
        `citation_precision`, `citation_recall`."""
    def to_dict(self) -> dict[str, Any]:
        """The whole report (the fields of `rlmkg --json verify`)."""

class SearchHit:
    """One BM25 hit: a chunk and its document."""

    @property
    def id(self) -> str:
        """The chunk's id (`c12`)."""
    @property
    def doc(self) -> str:
        """The document's id (`d3`)."""
    @property
    def title(self) -> str:
        """The document's title."""
    @property
    def path(self) -> str:
        """The source file's path."""
    @property
    def score(self) -> float:
        """The BM25 score."""
    @property
    def text(self) -> str:
        """The chunk's text."""
    def to_dict(self) -> dict[str, Any]: ...

class Neighbor:
    """A neighbor of an entity across one relation."""

    @property
    def id(self) -> str:
        """The neighbor's entity id."""
    @property
    def name(self) -> str:
        """The neighbor's display name."""
    @property
    def type(self) -> str:
        """The neighbor's type guess."""
    @property
    def relation(self) -> str:
        """`co-occurs` or a verb phrase; `<-` before it when the neighbor is the subject."""
    @property
    def weight(self) -> float: ...
    @property
    def evidence(self) -> list[str]:
        """The chunk ids of the evidence."""
    def to_dict(self) -> dict[str, Any]: ...

class Entity:
    """An entity of the graph with its neighbors, strongest first."""

    @property
    def id(self) -> str:
        """The entity's id (its canonical key, `catherine_moray`)."""
    @property
    def name(self) -> str:
        """Its display name (the most frequent declared name)."""
    @property
    def aliases(self) -> list[str]:
        """Its other names."""
    @property
    def type(self) -> str:
        """Its type guess (`person`, `place`, `organization`, ...)."""
    @property
    def mentions(self) -> int:
        """How often it is mentioned."""
    @property
    def neighbors(self) -> list[Neighbor]:
        """Its neighbors, strongest first."""
    def to_dict(self) -> dict[str, Any]: ...

class Answer:
    """A verified answer: text with inline citations (`[c12.s3]`), its short
    answer, and every claim with its verdict. `str(answer)` is the text."""

    @property
    def question(self) -> str: ...
    @property
    def short_answer(self) -> Optional[str]:
        """The short answer the text opens with, when there is one."""
    @property
    def answer_type(self) -> dict[str, Any]:
        """What the question asks for (`type`, and `options` for a choice)."""
    @property
    def not_found(self) -> bool:
        """The sources carry no answer of the asked type."""
    @property
    def text(self) -> str: ...
    @property
    def method(self) -> str:
        """`rlm`, `heuristic_composed` or `extractive`."""
    @property
    def claims(self) -> list[Claim]: ...
    @property
    def answer_check(self) -> dict[str, Any]:
        """The answer checked as an answer: `verdict` (`answers`, `about_another`,
        `not_shown`), `chain` (hops: `from`, `relation`, `to`, `sentence`), `reason`."""
    @property
    def verified(self) -> bool:
        """There is an answer, every factual claim of it is supported, and the
        answer check finds that it answers the question."""
    @property
    def repaired(self) -> bool: ...
    @property
    def stop_reason(self) -> str: ...
    @property
    def usage(self) -> dict[str, Any]:
        """Model calls, tokens, turns, seconds, ..."""
    @property
    def read_ids(self) -> list[str]: ...
    @property
    def trajectory_path(self) -> Optional[str]:
        """The trajectory file, when one was written (`trajectory_path=` of ask)."""
    @property
    def fallback(self) -> Optional[dict[str, Any]]:
        """Why the root model's run was set aside for the heuristic strategy."""
    @property
    def verification(self) -> Verification:
        """The checker's whole report: claims, footnotes, totals."""
    @property
    def notes(self) -> list[str]:
        """Remarks of the run (which strategy answered, fallbacks, repairs)."""
    def to_dict(self) -> dict[str, Any]:
        """The whole answer (the fields of `rlmkg --json ask`)."""

class Store:
    """A store: documents, chunks, the full-text index and the entity graph in
    one directory. `Store(path)` opens an existing store for reading."""

    def __init__(self, path: StrPath) -> None:
        """Raises StoreNotFoundError when there is no store at `path`."""
    @staticmethod
    def create(path: StrPath) -> "Store":
        """Create a store at `path` (or open the one there)."""
    @property
    def directory(self) -> str: ...
    def ingest(
        self,
        paths: Paths,
        exclude: Optional[Sequence[str]] = None,
        *,
        prune: bool = True,
        chunk_tokens: Optional[int] = None,
        overlap: Optional[int] = None,
        tokenizer: Optional[str] = None,
        text_field: Optional[str] = None,
        title_field: Optional[str] = None,
        threads: int = 0,
        max_file_size: Optional[int] = None,
        progress: Optional[Callable[[Event], Any]] = None,
    ) -> dict[str, Any]:
        """Ingest files and folders; returns the ingest report (files, ingested,
        unchanged, skipped, removed, docs, chunks, entities, ..., peak_rss_mb).
        `progress` gets `{"event": "start" | "file_done" | "warning" | "finish", ...}`."""
    def search(self, query: str, k: int = 10) -> list[SearchHit]:
        """BM25 hits, best first. Any text is a query; syntax that reaches
        beyond titles and texts (`kind:doc`, `title:*`, ranges) is read as words."""
    def read(self, id: str) -> dict[str, Any]:
        """A chunk `c12`, sentence `c12.s3` or range `c12.s2-s4`."""
    def entity(
        self, name: str, k: int = 20, relation: Optional[str] = None
    ) -> Optional[Entity]:
        """An entity by id, name or alias with its `k` strongest neighbors, or None."""
    def entities(self, query: str, k: int = 10) -> list[dict[str, Any]]: ...
    def neighbors(
        self, entity: str, k: int = 20, relation: Optional[str] = None
    ) -> list[Neighbor]: ...
    def facts(self, entity: str, k: int = 20) -> list[dict[str, Any]]:
        """What the documents state of an entity: dicts of subject, subject_name,
        predicate, object, object_name, object_type, sentence (the id to cite)
        and evidence (chunk ids), grouped by predicate."""
    def path(self, from_: str, to: str, max_hops: int = 3) -> list[dict[str, Any]]:
        """Shortest connecting paths from the entity `from_` to the entity `to`."""
    def related(
        self,
        query: Optional[str] = None,
        k: int = 10,
        *,
        entities: Optional[Sequence[str]] = None,
    ) -> list[dict[str, Any]]:
        """Chunks ranked by personalized PageRank from the query's entities and hits."""
    def sparql(self, query: str, timeout: float = 30.0) -> dict[str, Any]:
        """`{"kind": "select", "vars", "rows"}`, `{"kind": "ask", "value"}` or
        `{"kind": "graph", "triples"}`; the vocabulary is `rk: <https://rlmkg.invalid/ns#>`."""
    def stats(self) -> dict[str, Any]: ...
    def ask(
        self,
        question: str,
        *,
        strategy: str = "auto",
        model: Optional[ModelConfig] = None,
        sub_model: Optional[ModelConfig] = None,
        model_path: Optional[StrPath] = None,
        embedded_root: bool = False,
        strict: bool = False,
        max_iterations: Optional[int] = None,
        max_seconds: Optional[float] = None,
        max_sub_calls: Optional[int] = None,
        max_total_tokens: Optional[int] = None,
        max_depth: Optional[int] = None,
        max_cost: Optional[float] = None,
        temperature: Optional[float] = None,
        max_tokens: Optional[int] = None,
        seed: Optional[int] = None,
        timeout: Optional[float] = None,
        profile: Optional[str] = None,
        protocol: Optional[str] = None,
        cache_dir: Optional[StrPath] = None,
        trajectory_path: Optional[StrPath] = None,
        on_event: Optional[Callable[[Event], Any]] = None,
    ) -> Answer:
        """Answer with citations, every claim verified. `strategy` is `auto` (the
        RLM when a root model is given, else the heuristic), `rlm` or `heuristic`.
        Without `model`, the embedded model at `model_path` (or the installed
        default) composes heuristic answers, and is the root with `embedded_root`.
        `on_event` gets `{"event": "run" | "note" | "draft", ...}`."""
    def ask_async(self, question: str, **kwargs: Any) -> Awaitable[Answer]:
        """`ask` on the running event loop's default executor (a thread)."""
    def eval(
        self,
        dataset: StrPath,
        *,
        format: Optional[str] = None,
        corpus: Optional[Paths] = None,
        passages_file: Optional[StrPath] = None,
        limit: Optional[int] = None,
        retrieval_only: bool = False,
        strategy: str = "auto",
        model: Optional[ModelConfig] = None,
        sub_model: Optional[ModelConfig] = None,
        model_path: Optional[StrPath] = None,
        embedded_root: bool = False,
        max_iterations: Optional[int] = None,
        max_seconds: Optional[float] = None,
        max_sub_calls: Optional[int] = None,
        max_total_tokens: Optional[int] = None,
        temperature: Optional[float] = None,
        max_tokens: Optional[int] = None,
        seed: Optional[int] = None,
        timeout: Optional[float] = None,
        cache_dir: Optional[StrPath] = None,
        trajectories_dir: Optional[StrPath] = None,
        progress: Optional[Callable[[Event], Any]] = None,
    ) -> dict[str, Any]:
        """Score a dataset's questions against this store (HotpotQA, MuSiQue, or
        JSONL with `gold_titles`); `corpus` is ingested first, and a dataset's own
        passages are written to `passages_file` and ingested. Returns the summary
        (bm25 and graph recall@2/5/10; em, f1, claims_supported, ... with runs)."""

def verify(text: str, store: Store) -> Verification:
    """Check the inline citations of `text` against `store`: the checker's
    report (claims with verdicts and reasons, footnotes, totals)."""
