"""Retrievers: rank chunks for a query, by vectors, by BM25, or by fusing other rankings.

Every retriever answers `search(query, k) -> [(chunk_id, score), ...]`, best first:
- `DenseRetriever`: cosine over a FlatVectorStore of precomputed, hash-checked vectors.
- `BM25Retriever`: a BM25Index over the chunks (bm25.py).
- `FusionRetriever`: Reciprocal Rank Fusion of two or more retrievers.

    RRF(c) = sum over rankings r of 1 / (k + rank_r(c)),   k = 60

(Cormack, Clarke & Buettcher, SIGIR 2009). Only ranks count, never raw scores, which is
what lets a cosine in [-1, 1] and a BM25 score in [0, 30] be fused without calibration.
Each fused ranking contributes its top max(k, 20), as in the seed lab.

`combine` applies a fusion (rrf, linear) or a diversifier (cap, mmr) to one query's input
rankings; the retrieve stage calls it on run files and `ComposedRetriever` on live
retrievers, so `python -m minirag answer` ranks exactly as the run file does.

What it leaves out: the score-based fusion and diversification formulas themselves
(fusion.py, diversify.py) and reranking.
"""

from __future__ import annotations

from typing import Mapping, Protocol, Sequence

from .store import FlatVectorStore

Ranking = list[tuple[str, float]]


class Retriever(Protocol):
    def search(self, query: str, k: int = 5) -> Ranking: ...


class DenseRetriever:
    def __init__(self, store: FlatVectorStore):
        self.store = store

    def search(self, query: str, k: int = 5) -> Ranking:
        return [(c.id, s) for c, s in self.store.search(query, k)]

    def search_batch(self, queries: list[str], k: int) -> list[Ranking]:
        qvecs = self.store.embedder.embed(queries)  # (Q, d)
        ids = [c.id for c in self.store.chunks]
        return [[(ids[i], float(s)) for i, s in zip(idx, sims)]
                for idx, sims in self.store.search_vectors(qvecs, k)]


class BM25Retriever:
    def __init__(self, index, chunk_ids: Sequence[str]):
        assert index.n_items == len(chunk_ids), (index.n_items, len(chunk_ids))
        self.index = index
        self.chunk_ids = list(chunk_ids)

    def search(self, query: str, k: int = 5) -> Ranking:
        idx, scores = self.index.search(query, k)
        return [(self.chunk_ids[i], float(s)) for i, s in zip(idx, scores)]

    def search_batch(self, queries: list[str], k: int) -> list[Ranking]:
        return [[(self.chunk_ids[i], float(s)) for i, s in zip(idx, scores)]
                for idx, scores in self.index.search_batch(queries, k)]


def reciprocal_rank_fusion(rankings: Sequence[Ranking], k_rrf: int = 60, top_k: int | None = None) -> Ranking:
    """Fuse rankings by RRF; ties keep the order in which ids were first seen."""
    score: dict[str, float] = {}
    for ranking in rankings:
        for rank, (cid, _) in enumerate(ranking, start=1):
            score[cid] = score.get(cid, 0.0) + 1.0 / (k_rrf + rank)
    fused = sorted(score.items(), key=lambda x: -x[1])
    return fused if top_k is None else fused[:top_k]


class FusionRetriever:
    def __init__(self, retrievers: Sequence[Retriever], k_rrf: int = 60):
        self.retrievers = list(retrievers)
        self.k_rrf = k_rrf

    def search(self, query: str, k: int = 5) -> Ranking:
        n = max(k, 20)
        return reciprocal_rank_fusion([r.search(query, n) for r in self.retrievers], self.k_rrf, top_k=k)


def combine(spec: dict, rankings: Sequence[Ranking], doc_of: Mapping[str, str], vectors=None,
            depth: int = 100) -> Ranking:
    """One query's ranking from the rankings a fusion or diversifier reads (config `spec`)."""
    kind = spec["type"]
    if kind == "rrf":
        n = max(depth, 20)
        return reciprocal_rank_fusion([r[:n] for r in rankings], spec["k"], top_k=depth)
    if kind == "linear":
        from .fusion import linear_fusion
        weights = spec.get("weights") or [spec["alpha"], 1.0 - spec["alpha"]]
        return linear_fusion(rankings, weights, norm=spec["norm"], top_k=depth)
    if kind == "cap":
        from .diversify import source_cap
        return source_cap(rankings[0], doc_of, cap=spec["cap"], k=depth)
    if kind == "mmr":
        from .diversify import mmr
        return mmr(rankings[0], vectors, lam=spec["lambda"], k=depth, pool=spec["pool"])
    raise ValueError(f"retrievers: {kind!r} does not combine other runs")


class ComposedRetriever:
    """A fusion or diversifier over live retrievers, each asked for `depth` results as in the graph."""

    def __init__(self, spec: dict, inputs: Sequence[Retriever], doc_of: Mapping[str, str], vectors=None,
                 depth: int = 100):
        self.spec, self.inputs, self.doc_of, self.vectors, self.depth = spec, list(inputs), doc_of, vectors, depth

    def search(self, query: str, k: int = 5) -> Ranking:
        rankings = [r.search(query, k=self.depth) for r in self.inputs]
        return combine(self.spec, rankings, self.doc_of, self.vectors, self.depth)[:k]
