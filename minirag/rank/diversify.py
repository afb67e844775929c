"""Diversification applied on top of any ranking: a per-source cap and MMR.

- `source_cap`: the seed write-up's ten-line fix for one document taking 4 of the top 5.
  Walk the ranking best first and keep a chunk while its document has fewer than `cap`
  chunks kept, until k are kept. The signal is the document id: discrete and exact, so
  no relevance gap can beat it.
- `mmr`: Maximal Marginal Relevance (Carbonell & Goldstein, SIGIR 1998). Greedily pick

      argmax_c  lam * rel(c) - (1 - lam) * max_{s in S} cos(c, s)

  over the candidates not yet picked, S being those already picked (the max over an
  empty S is 0, so the first pick is the most relevant chunk). rel is the base ranking's
  score min-max normalised over the pool, so lam weighs two quantities in [0, 1] whatever
  the base retriever's scale. cos is the dot product of the chunk vectors, which are unit
  rows. Equal MMR values go to the chunk ranked higher in the base ranking.

Both keep the run's depth: the diversified top comes first, then every other chunk of
the base ranking in its base order. Both return positional scores, n - position for a
ranking of n chunks (n, n-1, ..., 1), strictly decreasing, because the TREC writer sorts
by score and the base scores would undo the new order.

What it leaves out: learned diversification (xQuAD, PM-2) and query aspects; a chunk's
vector is whatever the embed stage stored, not recomputed.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from .fusion import minmax_normalise
from .ranking import Ranking

# chunk id -> unit vector, or (ids, (N, d) matrix) as loaded by artifacts.load_aligned_vectors
Vectors = Mapping[str, np.ndarray] | tuple[Sequence[str], np.ndarray]


def vectors_for(ids: Sequence[str], vectors: Vectors) -> np.ndarray:
    """The (len(ids), d) matrix of the given chunks' vectors; a missing id raises KeyError."""
    if isinstance(vectors, tuple):
        all_ids, matrix = vectors
        row = {cid: i for i, cid in enumerate(all_ids)}
        missing = [cid for cid in ids if cid not in row]
        if missing:
            raise KeyError(f"no vector for chunk {missing[0]} ({len(missing)} missing)")
        return matrix[[row[cid] for cid in ids]]  # (n, d)
    missing = [cid for cid in ids if cid not in vectors]
    if missing:
        raise KeyError(f"no vector for chunk {missing[0]} ({len(missing)} missing)")
    if not ids:
        return np.empty((0, 0), dtype=np.float32)
    return np.stack([np.asarray(vectors[cid]) for cid in ids])  # (n, d)


def positional(ids: Sequence[str]) -> Ranking:
    """Scores n, n-1, ..., 1: strictly decreasing, so any writer keeps this order."""
    n = len(ids)
    return [(cid, float(n - i)) for i, cid in enumerate(ids)]


def source_cap(ranking: Ranking, doc_of: Mapping[str, str], cap: int = 2, k: int | None = None) -> Ranking:
    """At most `cap` chunks per document among the first k (the whole list when k is None).

    The first k chunks that pass the cap come first; the chunks the cap skipped and
    those after the k-th kept one follow in their base order, so the run keeps its depth.
    """
    if cap < 1:
        raise ValueError(f"source_cap: cap must be at least 1, got {cap}")
    limit = len(ranking) if k is None else k
    kept: list[str] = []
    per_doc: dict[str, int] = {}
    for cid, _ in ranking:
        if len(kept) == limit:
            break
        doc = doc_of[cid]
        if per_doc.get(doc, 0) < cap:
            kept.append(cid)
            per_doc[doc] = per_doc.get(doc, 0) + 1
    top = set(kept)
    return positional(kept + [cid for cid, _ in ranking if cid not in top])


def mmr(ranking: Ranking, vectors: Vectors, lam: float = 0.7, k: int = 10, pool: int = 100) -> Ranking:
    """Re-pick the first k of the top `pool` by MMR; the rest follow in base order."""
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"mmr: lam must be in [0, 1], got {lam}")
    candidates = [cid for cid, _ in ranking[:pool]]
    if not candidates:
        return []
    rel = minmax_normalise([s for _, s in ranking[:pool]])  # (P,)
    vecs = vectors_for(candidates, vectors).astype(np.float64)  # (P, d)
    sim = vecs @ vecs.T  # (P, P) cosines of unit rows
    redundancy = np.zeros(len(candidates))  # (P,) max cosine to the picked set, 0 while it is empty
    free = np.ones(len(candidates), dtype=bool)
    picked: list[int] = []
    for _ in range(min(k, len(candidates))):
        value = np.where(free, lam * rel - (1.0 - lam) * redundancy, -np.inf)  # (P,)
        best = int(np.argmax(value))  # first maximum: the higher base rank wins a tie
        picked.append(best)
        free[best] = False
        redundancy = np.maximum(redundancy, sim[:, best])
    top = [candidates[i] for i in picked]
    chosen = set(top)
    return positional(top + [cid for cid, _ in ranking if cid not in chosen])
