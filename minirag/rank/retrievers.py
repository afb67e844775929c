"""Channels: retrievers that rank chunks by themselves, from an index.

Every retriever answers `search(query, k) -> [(chunk_id, score), ...]`, best first:
- `DenseRetriever`: cosine over a FlatVectorStore of precomputed, hash-checked vectors.
- `IVFRetriever`: the same cosine over the rows of an IVF index's `nprobe` nearest lists.
- `BM25Retriever`: a BM25Index over the chunks (index/bm25/index.py); `BM25.from_chunks(chunks)`
  builds one in memory, the seed lab's API.
Both also answer `search_batch(queries, k)`, which the retrieve stage uses; it ranks each
query exactly as `search` does, so a run file and a live search agree to the last digit.

What it leaves out: rankings made from other rankings (fusion.py, diversify.py) and
loading indexes from disk (query/sources.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..index.bm25.index import BM25Index, BM25Settings
from ..index.ivf import IVFIndex
from ..index.store import FlatVectorStore
from ..text.analyze import Analyzer
from ..text.chunks import Chunk, index_text
from ..text.query import nfc
from .ranking import Ranking

if TYPE_CHECKING:  # a domain's query expander, built where it expands (query/sources.py)
    from ..text.expansion import QueryExpander


class DenseRetriever:
    def __init__(self, store: FlatVectorStore):
        self.store = store

    def search(self, query: str, k: int = 5) -> Ranking:
        return [(c.id, s) for c, s in self.store.search(query, k)]  # the store normalises the query

    def search_batch(self, queries: list[str], k: int) -> list[Ranking]:
        # One query at a time, as `search` (the CLI, the server) does: a batched embedding or
        # matrix product rounds differently in the last bits, and a run file's 6-decimal scores
        # must be the ones a live search returns.
        return [self.search(q, k) for q in queries]


class IVFRetriever:
    """Approximate dense search: queries embedded as for the flat store, rows from the probed lists."""

    def __init__(self, index: IVFIndex, embedder, chunk_ids: Sequence[str], nprobe: int):
        assert index.n == len(chunk_ids), (index.n, len(chunk_ids))
        self.index, self.embedder, self.chunk_ids, self.nprobe = index, embedder, list(chunk_ids), nprobe
        self.computations = 0  # distance computations of every search so far (nlist + rows scanned)

    def search(self, query: str, k: int = 5) -> Ranking:
        q = self.embedder.embed([nfc(query)])[0]  # (d,)
        rows, scores, computed = self.index.search(q, k, self.nprobe)
        self.computations += computed
        return [(self.chunk_ids[i], float(s)) for i, s in zip(rows, scores)]

    def search_batch(self, queries: list[str], k: int) -> list[Ranking]:
        return [self.search(q, k) for q in queries]  # one at a time, as DenseRetriever, for the same reason


class BM25Retriever:
    """A BM25 index whose item i is chunk_ids[i], or, small-to-big, a unit (a table row, a
    sentence) of chunk parents[i]: a chunk then ranks by its best unit, and chunks are returned."""

    def __init__(self, index: BM25Index, chunk_ids: Sequence[str], parents: Sequence[str] | None = None,
                 expander: QueryExpander | None = None):
        assert index.n_items == len(chunk_ids), (index.n_items, len(chunk_ids))
        self.index = index
        self.chunk_ids = list(chunk_ids)
        self.parents = list(parents) if parents is not None else None
        self.expander = expander  # queries become concepts (a domain's expander, text/expansion.py)

    def search(self, query: str, k: int = 5) -> Ranking:
        return self.search_batch([query], k)[0]

    def _search(self, queries: list[str], k: int):
        if self.expander is None:
            return self.index.search_batch(queries, k)
        return [self.index.search_concepts(self.expander.concepts(q), k) for q in queries]

    def search_batch(self, queries: list[str], k: int) -> list[Ranking]:
        queries = [nfc(q) for q in queries]  # as the documents are
        if self.parents is None:
            return [[(self.chunk_ids[i], float(s)) for i, s in zip(idx, scores)]
                    for idx, scores in self._search(queries, k)]
        # a chunk holds several units: read deep enough that k chunks are reached
        return [best_per_parent(idx, scores, self.parents, k)
                for idx, scores in self._search(queries, self.index.n_items)]

    @classmethod
    def from_chunks(cls, chunks: Sequence[Chunk], settings: BM25Settings = BM25Settings()) -> "BM25Retriever":
        """Index chunks in memory as the bm25 stage does (title + section + text, the analyzer, the title field)."""
        texts = [index_text(c, with_context=settings.with_context) for c in chunks]
        index = BM25Index.build(texts, Analyzer(settings.analyzer), settings.scoring(), titles=[c.title for c in chunks])
        return cls(index, [c.id for c in chunks])


BM25 = BM25Retriever  # the seed lab's name: BM25.from_chunks(chunks).search(query, k)


def best_per_parent(idx, scores, parents: Sequence[str], k: int) -> Ranking:
    """Chunks in the order of their best unit, each with that unit's score, the first k."""
    out: dict[str, float] = {}
    for i, s in zip(idx, scores):
        parent = parents[i]
        if parent not in out:
            out[parent] = float(s)
            if len(out) == k:
                break
    return list(out.items())
