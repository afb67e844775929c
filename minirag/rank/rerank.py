"""A learned reranker: features of (query, chunk) a first-stage score cannot see, weighed by logistic regression.

A first-stage run ranks by the sum of its terms' scores over a whole chunk. A grammar
question is usually answered by one line of it (a table row under its header, a sentence),
so the reranker looks, for each of the top N candidates, at:

    rank        1 / sqrt(first-stage rank)            score   first-stage score, min-max over the N
    cover       idf-weighted share of the query's terms anywhere in the chunk (with its context)
    line        the best line's idf-weighted share (a row counts its table header)
    line_all    1 if the best line holds every query term
    near        the best line's matched terms / words spanned between the first and last match
    context     idf-weighted share of the query's terms in the title › headings › header
    quoted      share of the query's quoted words found in the chunk (0 when nothing is quoted)
    length      log of the chunk's words

and scores it p = sigmoid(w · f + b). The weights are learned (`fit_logistic`: L2-regularised
logistic regression, full-batch Newton steps) on questions the graph synthesizes from the
corpus's own tables and headings ("what is the past participle of begin?", with learner
misspellings) and, optionally, the dev split's questions over the real first-stage run:
never the test split. Candidates after the top N keep their order below the reranked ones.

What it leaves out: cross-encoders and anything neural (the features are counts); the
synthesis of questions (synth.py) and the training stage (stages/train_reranker.py).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..text.analyze import QUOTED_RE, Analyzer, AnalyzerConfig
from ..text.chunks import Chunk
from .ranking import Ranking

FEATURES = ("rank", "score", "cover", "line", "line_all", "near", "context", "quoted", "length")
SEPARATOR_RE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")


@dataclass
class Line:
    words: list[str]      # analyzed words of the line, with its table header for a row
    positions: dict[str, list[int]]


class FeatureMaker:
    """Features of candidates for a query; `idf` is over the corpus's chunks."""

    def __init__(self, analyzer: Analyzer, chunks: Sequence[Chunk]):
        self.analyzer = analyzer
        df: dict[str, int] = {}
        for c in chunks:
            for w in set(analyzer.words(c.context + "\n" + c.text)):
                df[w] = df.get(w, 0) + 1
        n = len(chunks)
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
        self.default_idf = math.log(1 + (n + 0.5) / 0.5)
        self._lines: dict[str, list[Line]] = {}
        self._words: dict[str, tuple[set[str], set[str], int]] = {}

    def weight(self, w: str) -> float:
        return self.idf.get(w, self.default_idf)

    def lines(self, c: Chunk) -> list[Line]:
        if c.id not in self._lines:
            header = next((ln for ln in c.context.split("\n")[1:] if ln.startswith("|")), "")
            out, raw = [], c.text.split("\n")
            for i, line in enumerate(raw):
                if not line.strip() or SEPARATOR_RE.match(line):
                    continue
                if line.lstrip().startswith("|") and i + 1 < len(raw) and SEPARATOR_RE.match(raw[i + 1]):
                    header = line  # a header row inside the chunk names the rows below it
                    continue
                text = f"{header}\n{line}" if line.lstrip().startswith("|") and header else line
                words = self.analyzer.words(text)
                pos: dict[str, list[int]] = {}
                for j, w in enumerate(words):
                    pos.setdefault(w, []).append(j)
                out.append(Line(words, pos))
            self._lines[c.id] = out
        return self._lines[c.id]

    def chunk_words(self, c: Chunk) -> tuple[set[str], set[str], int]:
        if c.id not in self._words:
            body = self.analyzer.words(c.text)
            self._words[c.id] = (set(body) | set(self.analyzer.words(c.context)),
                                 set(self.analyzer.words(c.context)), len(body))
        return self._words[c.id]

    def query_terms(self, query: str) -> tuple[list[str], list[str]]:
        """(the query's distinct words less filler, its quoted words)."""
        terms = list(dict.fromkeys(self.analyzer.query(query)))
        quoted = list(dict.fromkeys(w for m in QUOTED_RE.finditer(query) for w in self.analyzer.words(m.group(2))))
        return terms, quoted

    def features(self, query: str, ranking: Ranking, chunks: dict[str, Chunk]) -> np.ndarray:
        """(len(ranking), len(FEATURES)) float64."""
        terms, quoted = self.query_terms(query)
        weights = np.array([self.weight(t) for t in terms])  # (T,)
        total = float(weights.sum()) or 1.0
        scores = np.array([s for _, s in ranking], dtype=np.float64)  # (N,)
        spread = float(scores.max() - scores.min()) if len(scores) else 0.0
        out = np.zeros((len(ranking), len(FEATURES)))  # (N, F)
        for i, (cid, s) in enumerate(ranking):
            c = chunks[cid]
            words, context, length = self.chunk_words(c)
            best_line, best_all, best_near = 0.0, 0.0, 0.0
            for line in self.lines(c):
                hit = [t for t in terms if t in line.positions]
                share = sum(self.weight(t) for t in hit) / total
                if share > best_line or (share == best_line and share > 0):
                    firsts = [line.positions[t][0] for t in hit]
                    near = len(hit) / (max(firsts) - min(firsts) + 1) if hit else 0.0
                    if share > best_line or near > best_near:
                        best_near = near
                    best_line = share
                    best_all = max(best_all, float(len(hit) == len(terms) and bool(terms)))
            out[i] = [1 / math.sqrt(i + 1), (s - scores.min()) / spread if spread else 1.0,
                      sum(w for t, w in zip(terms, weights) if t in words) / total, best_line, best_all, best_near,
                      sum(w for t, w in zip(terms, weights) if t in context) / total,
                      sum(t in words for t in quoted) / len(quoted) if quoted else 0.0, math.log1p(length)]
        return out


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 25) -> tuple[np.ndarray, float, list[float]]:
    """L2-regularised logistic regression by Newton's method: minimise
    -Σ [y log p + (1-y) log(1-p)] / n + l2 |w|² / (2n), p = sigmoid(x w + b); the bias is not
    regularised. Features are standardised first (mean 0, std 1; folded into w and b after).
    Returns (w (F,), b, loss per step)."""
    n, f = x.shape
    mu, sd = x.mean(axis=0), x.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    z = np.hstack([(x - mu) / sd, np.ones((n, 1))])  # (n, F+1)
    theta = np.zeros(f + 1)
    reg = np.full(f + 1, l2 / n)
    reg[-1] = 0.0
    losses = []
    for _ in range(steps):
        p = sigmoid(z @ theta)  # (n,)
        eps = 1e-12
        losses.append(float(-np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)) + 0.5 * reg @ theta**2))
        grad = z.T @ (p - y) / n + reg * theta  # (F+1,)
        hess = (z * (p * (1 - p))[:, None]).T @ z / n + np.diag(reg) + 1e-9 * np.eye(f + 1)
        theta -= np.linalg.solve(hess, grad)
    w = theta[:-1] / sd
    b = float(theta[-1] - (theta[:-1] * mu / sd).sum())
    return w, b, losses


def rerank(ranking: Ranking, x: np.ndarray, w: np.ndarray, b: float, n: int) -> Ranking:
    """The top n re-ordered by the model's probability (ties keep the first-stage order), the rest
    after them in their order; scores are positional (n, n-1, ...), as diversify.py writes them."""
    head, tail = ranking[:n], ranking[n:]
    p = sigmoid(x[: len(head)] @ w + b)  # (n,)
    order = sorted(range(len(head)), key=lambda i: (-p[i], i))
    ids = [head[i][0] for i in order] + [cid for cid, _ in tail]
    return [(cid, float(len(ids) - i)) for i, cid in enumerate(ids)]


DEFAULT_ANALYZER = AnalyzerConfig(fold_accents=True, query_stopwords=("en", "es"))
