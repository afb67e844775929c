"""Ranking metrics over one query's ranked ids and its relevance judgements.

Definitions follow trec_eval, so the figures match pytrec_eval on the same run and
qrels (a reference test checks it):
- hit@k: 1 if any relevant id is in the top k.
- MRR (trec_eval `recip_rank`): 1 / rank of the first relevant id, 0 if none is ranked.
- recall@k: relevant ids in the top k / all relevant ids.
- nDCG@k (trec_eval `ndcg_cut_k`): DCG = Σ_{i≤k} gain_i / log2(i + 1) with gain = the
  judged grade; divided by the DCG of the ideal ordering of all judged grades.

What it leaves out: averaging and slicing (evaluate.py). Queries with no relevant id
are not scored here; the caller leaves them out, as trec_eval does.
"""

from __future__ import annotations

import math
from typing import Sequence


def hit_at(ranked: Sequence[str], relevant: dict[str, int], k: int) -> float:
    return 1.0 if any(relevant.get(d, 0) > 0 for d in ranked[:k]) else 0.0


def reciprocal_rank(ranked: Sequence[str], relevant: dict[str, int]) -> float:
    for i, d in enumerate(ranked, start=1):
        if relevant.get(d, 0) > 0:
            return 1.0 / i
    return 0.0


def first_relevant_rank(ranked: Sequence[str], relevant: dict[str, int]) -> int | None:
    for i, d in enumerate(ranked, start=1):
        if relevant.get(d, 0) > 0:
            return i
    return None


def recall_at(ranked: Sequence[str], relevant: dict[str, int], k: int) -> float:
    n_rel = sum(1 for g in relevant.values() if g > 0)
    if n_rel == 0:
        return 0.0
    return sum(1 for d in ranked[:k] if relevant.get(d, 0) > 0) / n_rel


def ndcg_at(ranked: Sequence[str], relevant: dict[str, int], k: int) -> float:
    dcg = sum(relevant.get(d, 0) / math.log2(i + 1) for i, d in enumerate(ranked[:k], start=1)
              if relevant.get(d, 0) > 0)
    ideal = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, start=1))
    return dcg / idcg if idcg > 0 else 0.0


def retrieval_metrics(ranked: Sequence[str], relevant: dict[str, int]) -> dict[str, float]:
    """The contract's metric keys for one query."""
    return {"hit@1": hit_at(ranked, relevant, 1), "hit@3": hit_at(ranked, relevant, 3),
            "hit@5": hit_at(ranked, relevant, 5), "mrr": reciprocal_rank(ranked, relevant),
            "recall@5": recall_at(ranked, relevant, 5), "recall@100": recall_at(ranked, relevant, 100),
            "ndcg@10": ndcg_at(ranked, relevant, 10)}
