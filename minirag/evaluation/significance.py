"""Paired significance of a difference between two runs scored on the same questions.

Each question gives a pair of scores (a run's and its control's: a hit, a reciprocal rank, a
reader's answer being right); d = a - b per question, and the difference the report states
is mean(d). Three tools, numpy only, seeded so that a report is byte-identical from build
to build:

- `randomization_p`: Fisher's paired randomization test (Smucker et al., CIKM 2007; the
  test ranx's `compare(..., stat_test="fisher")` runs). Under the null hypothesis the two
  scores of a question are exchangeable, so each d_i keeps its size and takes either sign.
  Two-sided p = (#{sign vectors s : |Σ s_i d_i| >= |Σ d_i|} + 1) / (permutations + 1) over
  seeded random sign vectors; when every sign vector of the nonzero d_i fits within the
  budget (2^m <= permutations) they are all enumerated and p is exact (count / 2^m).
  Questions with d_i = 0 change no sum and are left out of the draws.
- `bootstrap_interval`: the percentile interval of mean(d) over questions resampled with
  replacement (Efron & Tibshirani 1993, ch. 13), pairs kept together.
- `holm`: Holm's step-down adjustment of a table's p-values (Holm 1979), which keeps the
  chance of any false "significant" in the table at or below alpha.

`compare` gives all of it for one pair of score lists; `with_holm` adjusts a table's
comparisons together; `Comparison.text` is how the report writes one:
"+3.3 pp [−1.2, +7.8], p = 0.16", with " *" when significant after Holm.

What it leaves out: unpaired tests, the t-test, effect sizes, and which comparisons a
table makes (report/paired.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from ..settings import setting

BLOCK = 1 << 20  # sign or index draws held at once (rows x questions), so memory stays bounded
MINUS = "\u2212"  # a typographic minus, as a table of signed figures prints it


@dataclass(frozen=True)
class SignificanceSettings:
    """How every paired comparison of the report and of `minirag diff` is tested."""
    permutations: int = setting(10_000, minimum=100)  # random sign vectors of the randomization test
    resamples: int = setting(10_000, minimum=100)     # bootstrap resamples of the interval
    level: float = setting(0.95, exclusive_minimum=0.0, maximum=0.999)  # the interval's coverage
    alpha: float = setting(0.05, exclusive_minimum=0.0, maximum=0.5)    # significant: Holm-adjusted p below this
    seed: int = 0                                     # one seed for every comparison: a p depends on the data alone


def differences(a: Sequence[float], b: Sequence[float]) -> np.ndarray:
    """d = a - b as float64 (n,), the pairs in the given order; unequal lengths are an error."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired scores need two lists of one length, got {a.shape} and {b.shape}")
    return a - b


def randomization_p(d: np.ndarray, permutations: int = 10_000, seed: int = 0) -> float:
    """Two-sided p of Fisher's paired randomization test on the differences d (n,)."""
    d = d[d != 0]  # (m,) a zero difference is the same under either sign
    m = len(d)
    if m == 0:
        return 1.0
    observed = abs(d.sum())
    tol = 1e-9 * max(1.0, float(np.abs(d).sum()))  # sums of the same terms in another order may differ in the last bit
    if m <= 20 and 2 ** m <= permutations:  # every sign vector: the exact p
        signs = 1 - 2 * ((np.arange(2 ** m)[:, None] >> np.arange(m)) & 1)  # (2^m, m) of +-1
        return float(np.count_nonzero(np.abs(signs @ d) >= observed - tol) / 2 ** m)
    rng = np.random.default_rng(seed)
    rows, hits = max(1, BLOCK // m), 0
    for start in range(0, permutations, rows):
        n = min(rows, permutations - start)
        signs = rng.integers(0, 2, size=(n, m), dtype=np.int8) * 2 - 1  # (n, m) of +-1
        hits += int(np.count_nonzero(np.abs(signs @ d) >= observed - tol))
    return (hits + 1) / (permutations + 1)


def bootstrap_interval(d: np.ndarray, resamples: int = 10_000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """The percentile interval (low, high) of mean(d) over seeded resamples of the questions."""
    n = len(d)
    if n == 0:
        return 0.0, 0.0
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)  # (R,)
    rows = max(1, BLOCK // n)
    for start in range(0, resamples, rows):
        idx = rng.integers(0, n, size=(min(rows, resamples - start), n))  # (r, n) questions drawn with replacement
        means[start:start + len(idx)] = d[idx].mean(axis=1)
    tail = (1 - level) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(low), float(high)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the given order: the i-th smallest of m is
    multiplied by (m - i + 1), made monotone, and capped at 1."""
    p = np.asarray(pvalues, dtype=np.float64)  # (m,)
    order = np.argsort(p, kind="stable")
    m = len(p)
    adjusted = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))  # (m,) in ascending order
    out = np.empty(m)
    out[order] = adjusted
    return out.tolist()


@dataclass(frozen=True)
class Comparison:
    """mean(a - b) over n paired questions, its interval, its p, and after Holm its adjusted p."""
    delta: float
    low: float
    high: float
    p: float
    n: int
    p_holm: float | None = None  # None until the comparisons of its table are adjusted together
    alpha: float = 0.05

    @property
    def significant(self) -> bool:
        return (self.p if self.p_holm is None else self.p_holm) < self.alpha

    def text(self) -> str:
        """"+3.3 pp [−1.2, +7.8], p = 0.16", and " *" when significant (after Holm, once adjusted)."""
        return (f"{signed(self.delta)} pp [{signed(self.low)}, {signed(self.high)}], p {p_text(self.p)}"
                + " *" * self.significant)

    def __str__(self) -> str:
        return self.text()

    def to_dict(self) -> dict:
        return {"delta": self.delta, "low": self.low, "high": self.high, "p": self.p, "p_holm": self.p_holm,
                "n": self.n, "significant": self.significant}


def signed(x: float) -> str:
    """A difference of shares in percentage points, signed, one decimal, typographic minus."""
    text = f"{x * 100:+.1f}"
    return MINUS + text[1:] if text.startswith("-") else text


def p_text(p: float) -> str:
    """"= 0.16", "= 0.004", "< 0.001" (10,000 draws resolve no finer)."""
    return "< 0.001" if p < 0.001 else f"= {p:.3f}" if p < 0.01 else f"= {p:.2f}"


def compare(a: Sequence[float], b: Sequence[float], settings: SignificanceSettings = SignificanceSettings()) -> Comparison:
    """a against b, paired by position: the mean difference, its bootstrap interval and its p."""
    d = differences(a, b)
    s = settings
    low, high = bootstrap_interval(d, s.resamples, s.level, s.seed)
    return Comparison(float(d.mean()) if len(d) else 0.0, low, high, randomization_p(d, s.permutations, s.seed),
                      len(d), alpha=s.alpha)


def with_holm(comparisons: Sequence[Comparison | None]) -> list[Comparison | None]:
    """The comparisons of one table, each with its Holm-adjusted p (None entries stay None)."""
    present = [c for c in comparisons if c is not None]
    adjusted = iter(holm([c.p for c in present]))
    return [None if c is None else replace(c, p_holm=next(adjusted)) for c in comparisons]
