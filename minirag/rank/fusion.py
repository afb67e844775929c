"""Fusion: one ranking from two or more, by their ranks (RRF) or by their scores (linear).

Reciprocal Rank Fusion, the seed lab's hybrid:

    RRF(c) = sum over rankings r of 1 / (k + rank_r(c)),   k = 60

(Cormack, Clarke & Buettcher, SIGIR 2009). Only ranks count, never raw scores, which is
what lets a cosine in [-1, 1] and a BM25 score in [0, 30] be fused without calibration.
`HybridRetriever` fuses live retrievers, each contributing its top max(k, 20) as in the seed lab.

Linear fusion fuses scores, the seed write-up's hybrid:

    fused(c) = sum over rankings r of  w_r * norm_r(score_r(c))

with w = (0.6, 0.4) for (dense, lexical) in the write-up. Normalising first is the
point: a cosine lives in a narrow band (0.3-0.8) and a BM25 score reaches 30+, so an
unnormalised sum lets BM25 decide alone. Each ranking is normalised over its own
candidate list, the list as given (the caller decides its depth), by min-max or z-score.

A chunk missing from a ranking gets that ranking's lowest normalised value (0 for
min-max): it scored no better than the list's last entry, so the minimum is the most
it can have earned there, and a chunk found by one channel only is neither rewarded
nor punished beyond what the channel that missed it says about its own tail.

Ties (equal fused scores) keep the order in which ids were first seen, walking the
rankings in the order given and each best first, as `reciprocal_rank_fusion` does.
The TREC writer later rounds scores to 6 decimals and breaks its own ties by id.

Weights (RRF's per ranking, linear's) are given by the config or fitted on the dev split
(fit.py). What it leaves out: score calibration across queries; weights are used as given, not
rescaled to sum to 1.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .ranking import Ranking, Retriever


def reciprocal_rank_fusion(rankings: Sequence[Ranking], k_rrf: int = 60, top_k: int | None = None,
                           weights: Sequence[float] | None = None) -> Ranking:
    """Fuse rankings by RRF, each ranking's terms times its weight when `weights` are given
    (weighted RRF); ties keep the order in which ids were first seen."""
    score: dict[str, float] = {}
    for r, ranking in enumerate(rankings):
        w = 1.0 if weights is None else float(weights[r])
        for rank, (cid, _) in enumerate(ranking, start=1):
            score[cid] = score.get(cid, 0.0) + (1.0 / (k_rrf + rank) if weights is None else w / (k_rrf + rank))
    fused = sorted(score.items(), key=lambda x: -x[1])
    return fused if top_k is None else fused[:top_k]


class HybridRetriever:
    """RRF of live retrievers (the seed lab's `HybridRetriever(dense, bm25)`; any number of them)."""

    def __init__(self, *retrievers: Retriever, k_rrf: int = 60):
        self.retrievers = list(retrievers)
        self.k_rrf = k_rrf

    def search(self, query: str, k: int = 5) -> Ranking:
        n = max(k, 20)
        return reciprocal_rank_fusion([r.search(query, n) for r in self.retrievers], self.k_rrf, top_k=k)


def minmax_normalise(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """x' = (x - min) / (max - min), in [0, 1]; all 0 when every score is equal.

    The "MinMax" normalisation of Lee, "Analyses of multiple evidence combination",
    SIGIR 1997, used before CombSUM (Fox & Shaw, TREC-2, 1994).
    """
    x = np.asarray(scores, dtype=np.float64)  # (n,)
    if x.size == 0 or x.max() == x.min():
        return np.zeros_like(x)
    return (x - x.min()) / (x.max() - x.min())


def zscore_normalise(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """z = (x - mean) / std with the population std (ddof = 0); all 0 when std = 0.

    Zero mean, unit variance ("ZMUV"): Montague & Aslam, "Relevance score
    normalization for metasearch", CIKM 2001. Unlike min-max, one outlier at the top
    does not squash the rest of the list towards 0.
    """
    x = np.asarray(scores, dtype=np.float64)  # (n,)
    # equal scores are tested exactly: their computed std can be a rounding error above 0
    if x.size == 0 or x.max() == x.min():
        return np.zeros_like(x)
    return (x - x.mean()) / x.std()


NORMALISERS = {"minmax": minmax_normalise, "zscore": zscore_normalise}


def linear_fusion(rankings: Sequence[Ranking], weights: Sequence[float], norm: str = "minmax",
                  top_k: int | None = None) -> Ranking:
    """Fuse rankings of one query by sum_r w_r * norm(score_r); best first, ties first-seen."""
    if len(rankings) != len(weights):
        raise ValueError(f"linear_fusion: {len(rankings)} rankings but {len(weights)} weights")
    if norm not in NORMALISERS:
        raise ValueError(f"linear_fusion: unknown norm {norm!r} (one of {', '.join(NORMALISERS)})")
    normalise = NORMALISERS[norm]
    first_seen: dict[str, None] = {}
    channels: list[tuple[dict[str, float], float]] = []  # (normalised score by id, floor for missing ids)
    for ranking in rankings:
        best: dict[str, float] = {}
        for cid, score in ranking:
            best.setdefault(cid, float(score))  # a repeated id keeps its best (first) entry
            first_seen.setdefault(cid, None)
        z = normalise(list(best.values()))
        channels.append((dict(zip(best, z.tolist())), float(z.min()) if z.size else 0.0))
    fused = {cid: sum(w * vals.get(cid, floor) for w, (vals, floor) in zip(weights, channels))
             for cid in first_seen}
    ranked = sorted(fused.items(), key=lambda x: -x[1])  # stable sort: ties stay first-seen
    return ranked if top_k is None else ranked[:top_k]
