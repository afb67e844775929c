"""Built artifacts back into retrievers: what `search`, `answer` and the retrieve stage rank with.

`Sources` holds what retriever kinds share: the chunks (and, by id, units and documents' languages), the
files a job or a server was given by their file keys (`file`, `path`, `given`), the query-side embedder
rebuilt from a vectors' sidecar (refusing an encoder or tokenizer other than the ones the vectors were
made with), the lexicon's query expander, the reranker's feature maker, a reader answering over a ranking
(answering.py, a layer above the kinds, imported by name when a kind first answers), and a cache
(`cached`) of what a kind loads itself. Each kind loads its own files (rank/kinds/: a dense channel its
vectors, an IVF or BM25 channel its index, a reranker its model), checked: vectors aligned with the chunks
by content hash, an index whose items are the chunks.
`open_retriever` rebuilds any retriever of the config from the layout, asking each kind for its live
retriever (a combining kind composes its inputs' recursively), ranking exactly as its run file does.
A missing artifact is reported with the command that builds it.

Every file is checked against its job's receipt before it is used (integrity.py).

What it leaves out: building anything (the stages do), loading a kind's own files (its kind does) and
the call site (answer/rag.py).
"""

from __future__ import annotations

import importlib
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Mapping

from ..artifacts.missing import MissingArtifact, require
from ..evaluation.trec import trec_order
from ..index.embedders import EMBEDDERS
from ..rank.kinds.base import file_key
from ..rank.ranking import Ranking, Retriever
from ..text.chunks import Chunk, load_chunks


class Sources:
    """The artifacts retriever kinds read, by their file keys (rank/kinds/base.py `file_key`):
    `vectors:<embedder>` an embedder's .npy, `query:<embedder>:<file>` the files its query side
    needs (embedders.py `files`), `bm25:<index>` and `ivf:<index>` an index's folder,
    `reranker:<retriever>` a trained reranker, `fitted:<retriever>` the receipt holding a fitted
    fusion's weights, `units` and `lexicon`. The mapping is what the kinds' `reads` gave the job
    (or, for a server, `serves`): a new kind that reads a new file adds its key, not a parameter.
    """

    def __init__(self, chunks: list[Chunk], files: Mapping[str, Path] | None = None, docs: Path | None = None,
                 mmap: bool = False):
        self.chunks = chunks
        self._files = {k: Path(v) for k, v in (files or {}).items()}
        self._docs = docs    # the documents, for units (their rows carry no document fields)
        self.mmap = mmap     # vectors as read-only memory maps (a build stage); in RAM for a server
        self._features: dict = {}
        self._expanders: dict = {}
        self._cache: dict = {}

    @cached_property
    def units(self) -> list[Chunk]:
        if "units" not in self._files or self._docs is None:
            raise MissingArtifact("no units.jsonl was given to this stage")
        return load_chunks(self._files["units"], self._docs)

    @cached_property
    def chunks_by_id(self) -> dict[str, Chunk]:
        return {c.id: c for c in self.chunks}

    def features(self, analyzer, expansion, stored: dict | None = None, codes: dict | None = None):
        """The reranker's feature maker over these chunks (one per analyzer and expansion, built once;
        `stored`: the document frequencies a trained reranker's sidecar holds, and `codes` the chunk codes
        its weights file holds, read if they are these chunks')."""
        from ..rank.rerank import FeatureMaker
        from ..text.analyze import Analyzer, settled
        if (analyzer, expansion) not in self._features:
            a = Analyzer(settled(analyzer, self.langs.values()) if analyzer.languages else analyzer)
            self._features[analyzer, expansion] = FeatureMaker(a, self.chunks, self.expander(a, expansion), stored,
                                                               codes)
        return self._features[analyzer, expansion]

    def read_all_chunks(self) -> None:
        """Every feature maker opened so far reads every chunk now: a server pays it once at start
        rather than on the first queries that rank each chunk."""
        for maker in self._features.values():
            for c in self.chunks:
                maker.code(c)

    def cached(self, key: tuple, build: Callable[[], Any]) -> Any:
        """What `build()` gives, built once per `key` for these sources: what a kind loads from its files
        (a model, vectors by id), shared by every retriever opened over them (a kind's own key: its type first)."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def given(self, key: str) -> Path | None:
        """The file given under `key`, None when none was (a kind that reads it only if it is there)."""
        return self._files.get(key)

    def file(self, key: str, what: str) -> Path:
        """The file given under `key` (a kind's own, from its `reads`), required to be there."""
        if key not in self._files:
            raise MissingArtifact(f"no {what} was given to this stage (file key {key!r})")
        return require(self._files[key], what)

    def path(self, role: str, name: str, what: str) -> Path:
        """The file of `role` for `name` (`file_key(role, name)`), required to be there: `path("vectors", e,
        "vectors of embedder")`; a missing one is named `{what} {name!r}`."""
        return self.file(file_key(role, name), f"{what} {name!r}")

    def query_embedder(self, embedder: str, sidecar: dict):
        """The query side of `embedder`, as its vectors' sidecar describes it."""
        prefix = file_key("query", embedder, "")
        files = {k[len(prefix):]: require(p, f"{k[len(prefix):]} of embedder {embedder!r}")
                 for k, p in self._files.items() if k.startswith(prefix)}
        kind = EMBEDDERS.get(sidecar["params"].get("type"))
        if kind is None:
            raise ValueError(f"{self._files[file_key('vectors', embedder)]}: vectors of an unknown embedder type {sidecar['params'].get('type')!r}")
        return kind.query_embedder(sidecar, files)

    def answer(self, reader: str, spec: dict, query: str, ranked: list[str], depth: int, prompt: Mapping):
        """The reader `reader`'s answer over these ranked chunk ids (query/answering.py `answer_over`)."""
        return answering().answer_over(self, reader, spec, query, ranked, depth, prompt)

    def answerer(self, reader: str, spec: dict, depth: int):
        """(answer selector, extractive reader) of the trained reader `reader` (query/answering.py)."""
        return answering().answerer(self, reader, spec, depth)

    @property
    def docs(self) -> Path | None:
        return self._docs

    @cached_property
    def langs(self) -> dict[str, str]:
        """Each document's language (docs.jsonl), which the answer selector reads its candidates in."""
        from ..artifacts.integrity import load_records
        if self._docs is None:
            raise MissingArtifact("no docs.jsonl was given to this stage")
        return {d["doc_id"]: d.get("lang", "") for d in load_records(self._docs, "documents")}

    def expander(self, analyzer, settings):
        """The query expander of the lexicon stage's file (None when `settings` expand nothing), built once
        per analyzer settings and expansion: an expanded BM25 channel and a reranker over it share one."""
        if not settings.enabled():
            return None
        from ..domain import hook
        if "lexicon" not in self._files:
            raise MissingArtifact("no lexicon was given to this stage (query expansion needs one)")
        key = (analyzer.config, settings)
        if key not in self._expanders:
            self._expanders[key] = hook("query.expander").from_file(self.file("lexicon", "lexicon"), analyzer, settings)
        return self._expanders[key]

ANSWERING = "minirag.query.answering"  # imported by name: the feedback kind names it as the code it runs


def answering():
    """query/answering.py, imported when a kind first answers: only the jobs of a kind that answers (it says
    so: `RetrieverKind.runs_also`) run the answer stack and list it as their code."""
    return importlib.import_module(ANSWERING)


class RunOrder:
    """Ranks like the run file: `depth` results in trec_eval's order (ties: id descending), cut to k."""

    def __init__(self, retriever: Retriever, depth: int):
        self.retriever, self.depth = retriever, depth

    def search(self, query: str, k: int = 5) -> Ranking:
        return trec_order(self.retriever.search(query, k=max(k, self.depth)))[:k]


def open_retriever(sources: Sources, corpus, name: str) -> Retriever:
    """A live retriever for the corpus's retriever `name` (`corpus`: its config/typed.py `Corpus`, or what
    of it the retrieve stage has; not imported here: the retrieve stage's code is this module's imports),
    ranking exactly as runs/<name>.trec does."""
    if name not in corpus.retrievers:
        raise KeyError(f"retrievers: no retriever named {name!r} (have: {', '.join(corpus.retrievers)})")
    kind, depth = corpus.retrievers[name], corpus.depth
    return RunOrder(kind.live(sources, lambda r: open_retriever(sources, corpus, r), depth), depth)
