"""The reranker's dense features: how close an embedder puts the query and each candidate.

With `dense: <embedder>` a rerank kind adds, to the count features of rerank.py:

    dense       the cosine of the query's vector and the candidate chunk's vector

(The gap to the best cosine among the candidates, and the cosine's rank among them, were tried
on the KB's dev split and left out: bench/README.md.)

The query is embedded live by the embedder's query side (the very encoder its vectors were made
with: sources.py refuses another); the chunk vectors are the embed stage's, aligned with the
chunks by content hash before they get here. A dense run ranks by the same cosine, but fusion by
rank (RRF) throws it away: here the weight of the cosine is learned beside the line features.

What it leaves out: reading and checking the vectors (query/sources.py) and the count features.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .ranking import Ranking

DENSE_FEATURES = ("dense",)


def feature_names(dense: bool) -> tuple[str, ...]:
    """The features a reranker weighs: the count features, then the dense ones when it has an embedder."""
    from .rerank import FEATURES
    return FEATURES + DENSE_FEATURES if dense else FEATURES


class DenseFeatures:
    """Cosines of queries and candidates: `embedder` embeds queries (`embed(texts)` -> (Q, d)),
    `vectors` (N, d) are the rows of the chunks `ids` names, in that order."""

    def __init__(self, embedder, vectors: np.ndarray, ids: Sequence[str]):
        self.embedder = embedder
        self.vectors = vectors  # (N, d), a memory map in a build stage
        self.row = {cid: i for i, cid in enumerate(ids)}

    def query_vectors(self, queries: list[str]) -> np.ndarray:
        """(Q, d) float64, one embed call for all of them."""
        return np.asarray(self.embedder.embed(list(queries)), dtype=np.float64).reshape(len(queries), -1)

    def features(self, query: str, ranking: Ranking, q: np.ndarray | None = None) -> np.ndarray:
        """(len(ranking), len(DENSE_FEATURES)) float64 for the candidates of `ranking`; `q` (d,) the query's
        vector when already embedded."""
        out = np.zeros((len(ranking), len(DENSE_FEATURES)))  # (N, 1)
        if not len(ranking):
            return out
        q = self.query_vectors([query])[0] if q is None else np.asarray(q, dtype=np.float64)  # (d,)
        rows = np.array([self.row[cid] for cid, _ in ranking])  # (N,); KeyError: a chunk the vectors lack
        v = np.asarray(self.vectors[rows], dtype=np.float64)  # (N, d)
        norms = np.linalg.norm(v, axis=1) * np.linalg.norm(q)  # (N,)
        cos = np.divide(v @ q, norms, out=np.zeros(len(rows)), where=norms > 0)  # (N,)
        out[:, 0] = cos
        return out
