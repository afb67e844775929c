"""A built corpus opened for questions: what the CLI's `search`/`answer --json` print and the
HTTP service returns, from one place, so the two cannot disagree.

`BuiltCorpus.open(configfile, corpus, results)` reads the config and the chunks (default: the
config's first built corpus); `search` and `answer` open the retriever and reader they are asked
for (checked against their receipts and the chunks' content hashes, sources.py) and return plain
JSON-ready dicts:

    search -> {"query", "retriever", "results": [{"rank", "chunk_id", "score", "doc_id", "section", "text",
               "snippet"}]}
    answer -> {"query", "retriever", "retriever_why", "reader", "answer", "abstained", ["why"], "citations": [{"n",
               "chunk_id", "doc_id", "line", "rank", "section", "text"}], "evidence": [{"n", "text"}],
               "retrieved": [rows as in search], ["abstention": {"threshold", "calibrated_on", "warning"}],
               "latency_ms", "prompt"}

`why` says why it abstained ("the documents never name Zumba", or which probability missed the
threshold). `score` is None for a retriever whose run's scores are positions (a reranker, MMR, a cap). Unasked, the
retriever is the config's `serve`, else the dev split's best (`retriever_why`, defaults.py). Every
cited chunk is listed with its line and its rank (citations.py).

A request that cannot be served as asked raises `UsageError` naming the field (`query`, `retriever`,
`reader`, `k`); an unknown retriever or reader is an `UnknownName`, listing the known ones.
`load_all()` opens every retriever and reader at once: a server answers from one set of artifacts
loaded together, never from one opened later beside a rebuilt one. What it leaves out: HTTP (serve/),
argument parsing (cli.py) and building anything.
"""

from __future__ import annotations

import time
from functools import cached_property
from pathlib import Path
from typing import Callable

from ..text.chunks import Chunk
from ..text.corpus import FOLDERS
from .citations import Recorded, front_lines, snippet

MAX_QUERY_CHARS = 2000  # the default cap of the CLI, the server and this API alike

class UsageError(ValueError):
    """A request that cannot be served as asked; `field` names the request field it is about."""

    def __init__(self, field: str, reason: str):
        super().__init__(f"{field}: {reason}")
        self.field, self.reason = field, reason


class UnknownName(UsageError):
    """A retriever or reader the config does not have."""


class QueryTooLong(UsageError):
    """A query over the length a server accepts (MAX_QUERY_CHARS unless it says)."""


def check_query(query: str, max_chars: int | None = None, example: Callable[[], str] = str) -> str:
    """The query in NFC (text/query.py), or UsageError: not text, empty (the message gives `example()`, a
    question of the corpus's own, asked only then: a query is checked before anything of a corpus is read),
    or over `max_chars`."""
    from ..text.query import QueryError, query_text, shows_nothing
    try:
        query = query_text(query)
    except QueryError as exc:
        raise UsageError("query", str(exc)) from None
    if shows_nothing(query):
        shown = example()
        raise UsageError("query", "the query is empty: ask a question" + (f", e.g. \"{shown}\"" if shown else ""))
    if max_chars is not None and len(query) > max_chars:
        raise QueryTooLong("query", f"{len(query)} characters, at most {max_chars} (--max-query-chars)")
    return query


def open_corpus(results: str | Path, corpus: str, settings):
    """(layout, chunks, sources) of a built corpus (`settings`: its checked config, as KindFiles takes it): the
    sources hold every configured retriever
    kind's `serves` (pipeline/kind_files.py `retriever_files`), the files a server ranks with."""
    from ..artifacts.layout import CorpusLayout
    from ..pipeline.kind_files import KindFiles
    from ..text.chunks import load_chunks
    from .sources import Sources
    layout = CorpusLayout.of(results, corpus)
    chunks = load_chunks(layout.chunks, layout.docs)
    return layout, chunks, Sources(chunks, KindFiles(settings, layout).retriever_files(), layout.docs)


class BuiltCorpus:
    """The artifacts of one built corpus, with its retrievers and readers opened on demand."""

    def __init__(self, corpus: str, settings, results: str | Path):
        """`settings`: the corpus's checked config, typed (config/typed.py), or as corpus_config serialises it."""
        from ..config.typed import Corpus
        self.corpus, self.results = corpus, Path(results)
        self.settings = settings if isinstance(settings, Corpus) else Corpus.of(settings)
        self.layout, chunks, self.sources = open_corpus(results, corpus, self.settings)
        self.by_id: dict[str, Chunk] = {c.id: c for c in chunks}
        self._retrievers: dict = {}
        self._readers: dict = {}
        self._front: dict[str, int] = {}

    @classmethod
    def open(cls, configfile: str | Path = "workflow/config.yaml", corpus: str | None = None,
             results: str | Path = "results") -> "BuiltCorpus":
        """The corpus `corpus` of the config (default: its first built corpus) as the graph built it."""
        from ..artifacts.missing import MissingArtifact
        from .defaults import build_command, named_corpus
        corpus, settings = named_corpus(configfile, corpus, results)
        try:
            return cls(corpus, settings, results)
        except MissingArtifact as exc:
            raise MissingArtifact(f"corpus {corpus!r} is not built ({exc.args[0].split(';')[0]}); "
                                  f"build it with: {build_command(configfile)}") from None

    # ------------------------------------------------------------ names
    @cached_property
    def metrics(self) -> dict | None:
        """eval/metrics.json (checked against its receipt), or None when the corpus has not been evaluated."""
        from ..artifacts.integrity import load_json
        path = self.layout.eval("metrics.json")
        return load_json(path, "metrics") if path.exists() else None

    @cached_property
    def served(self) -> tuple[str, str]:
        """(the default retriever, why): the config's `serve`, else the best on the dev split (defaults.py)."""
        from .defaults import served_retriever
        return served_retriever(self.settings, None if self.settings.serve else self.metrics)

    @property
    def default_retriever(self) -> str:
        return self.served[0]

    @property
    def default_reader(self) -> str:
        return next(iter(self.settings.readers))

    @property
    def depth(self) -> int:
        return self.settings.depth

    def retriever_names(self) -> list[str]:
        return list(self.settings.retrievers)

    def reader_names(self) -> list[str]:
        return list(self.settings.readers)

    def describe_retrievers(self) -> list[dict]:
        return [{"name": r, "family": kind.family, "description": kind.describe(self.settings),
                 "default": r == self.default_retriever, "scored": kind.scored}
                for r, kind in self.settings.retrievers.items()]

    @cached_property
    def example(self) -> str:
        """An example question of the corpus's own (defaults.py), "" when it has no questions."""
        from ..artifacts.integrity import load_records
        from .defaults import example_question
        path = self.layout.questions
        example = example_question(load_records(path, "questions") if path.exists() else [])
        return example["query"] if example else ""

    @cached_property
    def placeholder(self) -> str:
        """What the page's question box says: the corpus's name and an example question."""
        return f"Ask {self.corpus} a question" + (f", e.g. {self.example}" if self.example else "")

    def describe_readers(self) -> list[dict]:
        return [{"name": r, "type": kind.type, "default": r == self.default_reader}
                for r, kind in self.settings.readers.items()]

    # ------------------------------------------------------------ opening
    def retriever(self, name: str | None = None):
        from .sources import open_retriever
        name = self.default_retriever if name is None else name  # "" is a name, and no retriever's
        if name not in self.settings.retrievers:
            raise UnknownName("retriever", f"no retriever named {name!r} (have: {', '.join(self.settings.retrievers)})")
        if name not in self._retrievers:
            self._retrievers[name] = open_retriever(self.sources, self.settings, name)
        return name, self._retrievers[name]

    def reader(self, name: str | None = None):
        """The reader `name` (default: the config's first), a trained one from its checked weights."""
        from ..answer.readers import make_reader
        from ..artifacts.missing import require
        name = self.default_reader if name is None else name
        if name not in self.settings.readers:
            raise UnknownName("reader", f"no reader named {name!r} (have: {', '.join(self.settings.readers)})")
        if name not in self._readers:
            model = None
            if self.settings.readers[name].trained:
                model = require(self.layout.reader_model(name), f"weights of reader {name!r}")
            self._readers[name] = make_reader(self.settings.reader_spec(name), model)
        return name, self._readers[name]

    @cached_property
    def docs(self) -> dict[str, dict]:
        """docs.jsonl by document id."""
        from ..artifacts.integrity import load_records
        return {d["doc_id"]: d for d in load_records(self.layout.docs, "documents")}

    @cached_property
    def langs(self) -> dict[str, str]:
        """Each document's language (docs.jsonl), which the answer selector reads its candidates in."""
        return {doc_id: d.get("lang", "") for doc_id, d in self.docs.items()}

    def front_lines(self, doc_id: str) -> int:
        """The lines of a document's markdown file before its curated text (its front matter), read once."""
        if doc_id not in self._front:
            src, doc = self.settings.source, self.docs[doc_id]  # a converted file has no front matter
            path = Path(src.path) / doc_id if src.format in FOLDERS and "source" not in doc else None
            self._front[doc_id] = front_lines(path, doc["text"])
        return self._front[doc_id]

    @cached_property
    def selector(self):
        """The corpus's answer selector (its first extractive reader's weights over the chunks, lexicon and
        terms file), or None when it has none: answers then read the prompt's evidence lines alone."""
        from ..answer.select.selector import load_selector
        from ..artifacts.missing import require
        name = self.settings.selector_reader()  # as the graph decides, without its imports
        if name is None:
            return None
        model = require(self.layout.reader_model(name), f"weights of reader {name!r}")
        files = self.settings.domain_files()  # a domain's reader reads its lexicon and terms file too
        lexicon, terms = (self.layout.lexicon, files["terms"]) if files else (None, None)
        return load_selector(model, list(self.by_id.values()), self.langs, lexicon, terms,
                             self.settings.candidates.depth, {"docs": self.layout.docs, "chunks": self.layout.chunks})

    def is_remote(self, reader: str | None = None) -> bool:
        """Whether the reader (default: the first) answers by calling another server."""
        name = reader or self.default_reader
        return name in self.settings.readers and self.settings.readers[name].remote

    def load_all(self) -> "BuiltCorpus":
        """Open every retriever and local reader now, so all of them stand on the artifacts read together."""
        for name in self.settings.retrievers:
            # One search makes every lazy read (a reranker's lexicon, MMR's vectors) happen now.
            self.retriever(name)[1].search("warm up", k=1)
        self.sources.read_all_chunks()
        for name in self.settings.readers:
            if not self.is_remote(name):
                self.reader(name)
        if self.selector is not None:  # every chunk's candidates read now, not on a first question
            self.selector.prepare(list(self.by_id.values()), self.langs)
        self.served, self.placeholder  # the default retriever (metrics), the page's example question
        for doc_id in self.docs:
            self.front_lines(doc_id)
        return self

    # ------------------------------------------------------------ asking
    def check_k(self, k: int | None) -> None:
        if k is not None and not (1 <= k <= self.depth):
            raise UsageError("k", f"between 1 and the run depth, {self.depth} (corpora.{self.corpus}.depth), got {k}")

    def scored(self, retriever: str) -> bool:
        """Whether the retriever's scores mean something: a reorder's (a reranker, MMR, a cap) are positions."""
        return self.settings.retrievers[retriever].scored

    def rows(self, ranked, retriever: str) -> list[dict]:
        """The ranking as rows; `score` None when the retriever's scores are positions."""
        shown = self.scored(retriever)
        return [{"rank": i, "chunk_id": cid, "score": round(score, 6) if shown else None,
                 "doc_id": self.by_id[cid].doc_id, "section": self.by_id[cid].section, "text": self.by_id[cid].text,
                 "snippet": snippet(self.by_id[cid].text)} for i, (cid, score) in enumerate(ranked, 1)]

    def search(self, query: str, retriever: str | None = None, k: int = 5, max_chars: int = MAX_QUERY_CHARS) -> dict:
        query = check_query(query, max_chars, lambda: self.example)
        self.check_k(k)
        name, r = self.retriever(retriever)
        ranked = r.search(query, k=k)
        return {"query": query, "retriever": name, "results": self.rows(ranked, name)}

    def answer(self, query: str, retriever: str | None = None, reader: str | None = None,
               k: int | None = None, max_chars: int = MAX_QUERY_CHARS) -> dict:
        from ..answer.rag import prompt_keywords, rag_answer
        from ..settings import settings_to_dict
        from .citations import cite
        query = check_query(query, max_chars, lambda: self.example)
        self.check_k(k)
        t0 = time.perf_counter()
        name, r = self.retriever(retriever)
        reader_name, rd = self.reader(reader)
        p = settings_to_dict(self.settings.prompt)
        r = Recorded(r)  # the whole ranking the selector read, for the ranks of citations below the top k
        ranked, prompt, answer = rag_answer(query, r, rd, self.by_id, k=k or p["k"], selector=self.selector,
                                            langs=self.langs if self.selector else {}, **prompt_keywords(p))
        total_ms = (time.perf_counter() - t0) * 1000
        ranks = {cid: i for i, (cid, _) in enumerate(r.ranked, 1)}
        cited = []
        for cid in answer.citations:
            n, c = prompt.citations.index(cid) + 1, self.by_id[cid]
            evidence = [ln["text"] for ln in prompt.evidence if ln["n"] == n]
            cited.append(cite(n, c, self.docs[c.doc_id]["text"], self.front_lines(c.doc_id), evidence, ranks,
                              answer.text))
        why = self.served[1] if retriever in (None, self.default_retriever) else "asked for"
        return {"query": query, "retriever": name, "retriever_why": why, "reader": reader_name, "answer": answer.text,
                "abstained": answer.abstained, **({"why": answer.why} if answer.why else {}), "citations": cited,
                "evidence": [{"n": ln["n"], "text": ln["text"]} for ln in prompt.evidence],
                "retrieved": self.rows(ranked, name),
                **answer.origin, **abstention_of(rd), "latency_ms": round(total_ms, 3), "prompt": prompt.text}


def abstention_of(reader) -> dict:
    """What an answer selector's abstention threshold was calibrated on ("dev": the corpus's dev questions;
    "dev+synthetic": those and held-out synthesized ones; "synthetic": held-out synthesized ones alone, with
    a warning; "config": set by hand; "never": abstention off); {} for other readers."""
    on = getattr(reader, "calibrated_on", "")
    if not on:
        return {}
    warning = ("no real question was used: the threshold was calibrated on held-out synthesized questions"
               if on == "synthetic" else "")
    return {"abstention": {"threshold": reader.threshold, "calibrated_on": on,
                           **({"warning": warning} if warning else {})}}
