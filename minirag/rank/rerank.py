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
from typing import Sequence

import numpy as np

from ..text.analyze import QUOTED_RE, Analyzer, AnalyzerConfig
from ..text.chunks import Chunk
from ..text.expand import QueryExpander
from .ranking import Ranking
from .rerank_lines import ChunkCode, Matches, encode, line_features, set_counts, set_shares

FEATURES = ("rank", "score", "cover", "line", "line_all", "near", "context", "quoted", "length")


class FeatureMaker:
    """Features of candidates for a query; `idf` is over the corpus's chunks. Words are matched
    as index terms (the analyzer's case, accents and stems); with an `expander`, a query word
    is a concept matched by any of its alternatives at that alternative's weight. The matching
    runs over all candidates and lines at once (rerank_lines.py)."""

    def __init__(self, analyzer: Analyzer, chunks: Sequence[Chunk], expander: QueryExpander | None = None,
                 stored: dict | None = None):
        self.analyzer, self.expander = analyzer, expander
        self.texts_sha256 = texts_sha256(chunks)
        n = len(chunks)
        if isinstance(stored, dict) and stored.get("texts_sha256") == self.texts_sha256 and stored.get("n") == n:
            df = stored["terms"]  # counted by train_reranker over these very texts (df_record)
        else:
            df = {}
            for c in chunks:
                for w in set(analyzer(c.context + "\n" + c.text)):
                    df[w] = df.get(w, 0) + 1
        self.df, self.n = df, n
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
        self.default_idf = math.log(1 + (n + 0.5) / 0.5)
        self._ids: dict[str, int] = {}  # word -> term id of the chunk codes
        self._codes: dict[str, ChunkCode] = {}

    def df_record(self) -> dict:
        """The document frequencies, for the reranker's sidecar: a FeatureMaker over the same chunk
        texts reads them instead of analyzing every chunk again."""
        return {"n": self.n, "texts_sha256": self.texts_sha256, "terms": dict(sorted(self.df.items()))}

    def weight(self, w: str) -> float:
        return self.idf.get(w, self.default_idf)

    def code(self, c: Chunk) -> ChunkCode:
        """The chunk's words and lines as term ids (read once)."""
        if c.id not in self._codes:
            self._codes[c.id] = encode(c, self.analyzer, self._ids)
        return self._codes[c.id]

    def query_concepts(self, query: str) -> tuple[list[dict[str, float]], list[str]]:
        """(the query's concepts {term: weight}, one per distinct word less filler; its quoted terms)."""
        if self.expander is not None:
            concepts = self.expander.concepts(query)
        else:
            concepts = [{t: 1.0} for t in self.analyzer.query(query)]
        unique = list({tuple(sorted(c.items())): c for c in concepts if c}.values())
        quoted = list(dict.fromkeys(t for m in QUOTED_RE.finditer(query) for t in self.analyzer(m.group(2))))
        return unique, quoted

    def concept_weight(self, concept: dict[str, float]) -> float:
        """The idf of the concept's best way to match, its own word's when present."""
        return max(w * self.weight(t) for t, w in concept.items())

    def features(self, query: str, ranking: Ranking, chunks: dict[str, Chunk]) -> np.ndarray:
        """(len(ranking), len(FEATURES)) float64."""
        concepts, quoted = self.query_concepts(query)
        codes = [self.code(chunks[cid]) for cid, _ in ranking]  # first: they give the words their ids
        weights = np.array([self.concept_weight(c) for c in concepts])  # (T,)
        total = sum(weights.tolist()) or 1.0
        out = np.zeros((len(ranking), len(FEATURES)))  # (N, F)
        if not len(ranking):
            return out
        scores = np.array([s for _, s in ranking], dtype=np.float64)  # (N,)
        spread = scores.max() - scores.min()
        out[:, 0] = 1 / np.sqrt(np.arange(1, len(ranking) + 1))
        out[:, 1] = (scores - scores.min()) / spread if spread else 1.0
        out[:, 8] = [math.log1p(c.length) for c in codes]
        if quoted:  # each candidate's count of the quoted words (distinct) among its words
            out[:, 7] = set_counts([c.words for c in codes], [self._ids.get(t, -1) for t in quoted]) / len(quoted)
        if concepts:  # term ids of the concepts' words, with the concept and the weight each matches at
            m = Matches([(self._ids[t], ci, w) for ci, c in enumerate(concepts) for t, w in c.items()
                         if t in self._ids], len(concepts), len(self._ids))
            out[:, 2] = set_shares([c.words for c in codes], m, weights, total)
            out[:, 3], out[:, 4], out[:, 5] = line_features(codes, m, weights, total)
            out[:, 6] = set_shares([c.context for c in codes], m, weights, total)
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


def texts_sha256(chunks: Sequence[Chunk]) -> str:
    """The sha256 of the chunks' texts with their context, as the document frequencies count them."""
    import hashlib
    h = hashlib.sha256()
    for c in chunks:
        h.update((c.context + "\n" + c.text).encode("utf-8") + b"\0")
    return h.hexdigest()


def rerank(ranking: Ranking, x: np.ndarray, w: np.ndarray, b: float, n: int) -> Ranking:
    """The top n re-ordered by the model's probability (ties keep the first-stage order), the rest
    after them in their order; scores are positional (n, n-1, ...), as diversify.py writes them."""
    head, tail = ranking[:n], ranking[n:]
    p = sigmoid(x[: len(head)] @ w + b)  # (n,)
    order = sorted(range(len(head)), key=lambda i: (-p[i], i))
    ids = [head[i][0] for i in order] + [cid for cid, _ in tail]
    return [(cid, float(len(ids) - i)) for i, cid in enumerate(ids)]


def save_model(path, w: np.ndarray, b: float, sidecar: dict) -> None:
    """Weights as .npz, and beside it (.json) the feature names and how the model was trained."""
    from pathlib import Path

    from ..artifacts.io import save_npz, write_json
    save_npz(path, w=w.astype(np.float64), b=np.array([b]))
    write_json(Path(path).with_suffix(".json"), {"features": list(FEATURES), "weights": dict(zip(FEATURES, w.tolist())),
                                                 "bias": b, **sidecar})


def load_model(path) -> dict:
    """A trained reranker's {"w": (F,), "b": float, "df": its document frequencies or None}, both files
    checked against their job's receipt."""
    from pathlib import Path

    from ..artifacts.content import weights
    from ..artifacts.integrity import load_json, verified
    from ..artifacts.io import load_npz
    meta = load_json(Path(path).with_suffix(".json"), "reranker sidecar")
    if meta.get("features") != list(FEATURES):
        raise ValueError(f"{path}: trained on features {meta.get('features')}, these are {list(FEATURES)}; "
                         "re-run train_reranker")
    arrays = load_npz(verified(path, "reranker model"))
    weights(arrays, path)
    return {"w": arrays["w"], "b": float(arrays["b"][0]), "df": meta.get("df")}


DEFAULT_ANALYZER = AnalyzerConfig(fold_accents=True, query_stopwords=("en", "es"), stemmer="spanish")
