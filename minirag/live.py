"""Built artifacts back into retrievers: what `search`, `answer` and the retrieve stage rank with.

`Sources` resolves what a retriever kind asks for (rank/kinds.py) to files and loads it
checked: an embedder's vectors aligned with the chunks by content hash, the query-side
embedder rebuilt from the vectors' sidecar (refusing an encoder or tokenizer other than
the ones the vectors were made with), a BM25 index whose items are the chunks.
`open_retriever` rebuilds any retriever of the config from the layout, fusions and
diversifiers over their inputs recursively, ranking exactly as its run file does.
A missing artifact is reported with the command that builds it.

What it leaves out: building anything (the stages do) and the call site (answer/rag.py).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Mapping

from .evaluation.trec import trec_order
from .index.embedders import EMBEDDERS, embedder_kind
from .index.store import FlatVectorStore
from .index.vectors import load_aligned_vectors, load_vectors_by_id
from .io import read_json
from .layout import CorpusLayout
from .rank.channels import BM25Retriever, DenseRetriever
from .rank.kinds import ComposedRetriever, kind_of
from .rank.ranking import Ranking, Retriever
from .text.chunk import Chunk, load_chunks


class MissingArtifact(FileNotFoundError):
    pass


def require(path: Path, what: str) -> Path:
    if not Path(path).exists():
        raise MissingArtifact(f"{path} is missing ({what}); build it with: "
                              f"snakemake -c1 {path}   (or snakemake -c1 results/report.md)")
    return Path(path)


class Sources:
    """The artifacts a retriever kind reads, by name: vectors of an embedder, a BM25 index.

    `vectors` maps an embedder name to its .npy, `query_files` to the files its query side
    needs (embedders.py `files`), `indexes` a BM25 index name to its folder.
    """

    def __init__(self, chunks: list[Chunk], vectors: Mapping[str, Path] | None = None,
                 query_files: Mapping[str, Mapping[str, Path]] | None = None,
                 indexes: Mapping[str, Path] | None = None):
        self.chunks = chunks
        self._vectors, self._query_files, self._indexes = vectors or {}, query_files or {}, indexes or {}

    @classmethod
    def from_layout(cls, layout: CorpusLayout, cc: dict, chunks: list[Chunk]) -> "Sources":
        return cls(chunks, {e: layout.vectors(e) for e in cc["embedders"]},
                   {e: embedder_kind(cc, e).files(layout, e) for e in cc["embedders"]},
                   {i: layout.bm25(i) for i in cc["bm25"]})

    @cached_property
    def doc_of(self) -> dict[str, str]:
        return {c.id: c.doc_id for c in self.chunks}

    def _path(self, table: Mapping[str, Path], name: str, what: str) -> Path:
        if name not in table:
            raise MissingArtifact(f"no {what} {name!r} was given to this stage")
        return require(table[name], f"{what} {name!r}")

    def dense(self, embedder: str) -> DenseRetriever:
        vectors, sidecar = load_aligned_vectors(self._path(self._vectors, embedder, "vectors of embedder"), self.chunks)
        files = {k: require(p, f"{k} of embedder {embedder!r}") for k, p in self._query_files.get(embedder, {}).items()}
        kind = EMBEDDERS.get(sidecar["params"].get("type"))
        if kind is None:
            raise ValueError(f"{self._vectors[embedder]}: vectors of an unknown embedder type {sidecar['params'].get('type')!r}")
        store = FlatVectorStore(kind.query_embedder(sidecar, files))
        store.add(self.chunks, vectors)
        return DenseRetriever(store)

    def vectors_by_id(self, embedder: str):
        return load_vectors_by_id(self._path(self._vectors, embedder, "vectors of embedder"), self.chunks)

    def bm25(self, index: str) -> BM25Retriever:
        from .index.bm25 import BM25Index
        directory = self._path(self._indexes, index, "BM25 index")
        bm = BM25Index.load(directory)
        ids = read_json(directory / "items.json")
        if ids != [c.id for c in self.chunks]:
            raise RuntimeError(f"{directory}: indexed chunk ids differ from the chunks; re-run bm25")
        return BM25Retriever(bm, ids)


class RunOrder:
    """Ranks like the run file: `depth` results in trec_eval's order (ties: id descending), cut to k."""

    def __init__(self, retriever: Retriever, depth: int):
        self.retriever, self.depth = retriever, depth

    def search(self, query: str, k: int = 5) -> Ranking:
        return trec_order(self.retriever.search(query, k=max(k, self.depth)))[:k]


def open_retriever(sources: Sources, cc: dict, name: str) -> Retriever:
    """A live retriever for the config's retriever `name`, ranking exactly as runs/<name>.trec does."""
    if name not in cc["retrievers"]:
        raise KeyError(f"retrievers: no retriever named {name!r} (have: {', '.join(cc['retrievers'])})")
    kind = kind_of(cc, name)
    if kind.family == "channel":
        inner = kind.open(sources)
    else:
        inputs = [open_retriever(sources, cc, r) for r in kind.upstream()]  # ordered as their run files
        inner = ComposedRetriever(kind, inputs, sources, cc["depth"])
    return RunOrder(inner, cc["depth"])


def open_corpus(results: str | Path, corpus: str, cc: dict) -> tuple[CorpusLayout, list[Chunk], Sources]:
    """The layout, the chunks and the sources of a built corpus."""
    layout = CorpusLayout.of(results, corpus)
    chunks = load_chunks(require(layout.chunks, "chunks"))
    return layout, chunks, Sources.from_layout(layout, cc, chunks)
