"""Comparing two engines' top-k lists (bench/scale.py, bench/bm25_speed.py): the positive part of
a list, and equality up to the order of tied scores.

What it leaves out: running the engines (the benchmarks do).
"""

from __future__ import annotations

import numpy as np


def positive_top(items, scores, k: int) -> tuple[list[int], list[float]]:
    """The top k (item, score) with a positive score (bm25s pads short lists with zeros)."""
    kept = [(int(i), float(s)) for i, s in zip(items, scores) if s > 0][:k]
    return [i for i, _ in kept], [s for _, s in kept]


def same_but_ties(a: tuple[list[int], list[float]], b: tuple[list[int], list[float]]) -> bool:
    """Two top-k lists that differ at most in the order of equal scores and in which of the
    items tied at the k-th score made the cut: the same scores rank by rank (float32
    tolerance) and the same items above the last score."""
    (ia, sa), (ib, sb) = a, b
    if len(sa) != len(sb) or not np.allclose(sa, sb, rtol=1e-5, atol=1e-6):
        return False
    if not sa:
        return True
    cut = sa[-1] + 1e-5 * abs(sa[-1])
    return {i for i, s in zip(ia, sa) if s > cut} == {i for i, s in zip(ib, sb) if s > cut}
