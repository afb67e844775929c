"""Candidates that give the same answer pooled into one, their probabilities summed.

    pool(["went", "Went", "gone"], p=[0.5, 0.2, 0.3], keys=["went", "went", "gone"])
    -> [Answer("went", 0.7, best=0), Answer("gone", 0.3, best=2)]

What it leaves out: the keys themselves (keys.py: folded text, numbers kept) and scoring (scorer.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .keys import answer_key


@dataclass(frozen=True)
class Answer:
    """One distinct answer of a selection, its probability and best candidate."""
    text: str
    p: float
    best: int  # index of the candidate it is cited from


def pool(texts: list[str], p: np.ndarray, keys: list[str], analysis: Any = None) -> list[Answer]:
    """Answers by `keys` (the candidates' folded texts), probabilities summed, best first (ties: first
    seen), each shown as the text of its likeliest candidate. Given the question's analysis, a candidate
    that names one of the options the question offers ("an" of "a hour or an hour?") gives that option."""
    options = {}
    if analysis is not None and analysis.options:
        for k in set(keys):
            if (option := analysis.option_of(k)):
                options[k] = option
    keys = [answer_key(options[k]) if k in options else k for k in keys]
    if not keys:
        return []
    distinct, of = np.unique(np.array(keys, dtype=object), return_inverse=True)  # (K,), (m,)
    total = np.bincount(of, weights=p, minlength=len(distinct))                  # (K,)
    order_in = np.lexsort((-p, of))  # by key, likeliest candidate first (ties: the first seen)
    first = np.ones(len(order_in), dtype=bool)
    first[1:] = of[order_in[1:]] != of[order_in[:-1]]
    best = np.empty(len(distinct), dtype=np.int64)
    best[of[order_in[first]]] = order_in[first]                                 # (K,) each key's likeliest
    shown = {answer_key(o): o for o in options.values()}
    ranked = sorted(range(len(distinct)), key=lambda j: (-total[j], best[j]))
    return [Answer(shown.get(distinct[j], texts[best[j]]), float(total[j]), int(best[j])) for j in ranked]
