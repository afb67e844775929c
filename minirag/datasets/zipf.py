"""Zipf's law over ranked words: its probabilities, its exponent fitted from counts, and a sampling CDF.

    p(r) = r^-s / H(V, s),   H(V, s) = sum_{r=1..V} r^-s      (Zipf 1949; rank r of V words)

What it leaves out: which words the ranks are (synth_corpus.py takes wordfreq's English list).
"""

from __future__ import annotations

import numpy as np


def zipf_probabilities(v: int, s: float) -> np.ndarray:
    """p(r) = r^-s / H(V, s) for ranks r = 1..V (Zipf's law, normalised): (V,) float64."""
    w = np.arange(1, v + 1, dtype=np.float64) ** -s  # (V,)
    return w / w.sum()


def fit_zipf_exponent(counts: np.ndarray, lo: int = 1, hi: int | None = None) -> float:
    """s of the least-squares line log f(r) = c - s log r over ranks lo..hi of the sorted
    counts (zero counts dropped): the usual estimate of a Zipf exponent from word counts."""
    f = np.sort(np.asarray(counts, dtype=np.float64))[::-1]  # (V,)
    f = f[f > 0]
    r = np.arange(1, len(f) + 1, dtype=np.float64)
    hi = len(f) if hi is None else min(hi, len(f))
    slope = np.polyfit(np.log(r[lo - 1:hi]), np.log(f[lo - 1:hi]), 1)[0]
    return float(-slope)


def cdf(weights: np.ndarray) -> np.ndarray:
    """Cumulative weights normalised to end at exactly 1: (V,) -> (V,)."""
    c = np.cumsum(weights)
    c /= c[-1]
    c[-1] = 1.0
    return c
