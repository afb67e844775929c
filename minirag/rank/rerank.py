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
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..text.analyze import QUOTED_RE, Analyzer, language_analyzer
from ..text.chunks import Chunk
from .ranking import Ranking
from .rerank_lines import ChunkCode, Matches, encode, line_features, set_counts, set_shares

if TYPE_CHECKING:  # a domain's query expander, built where it expands (query/sources.py)
    from ..text.expansion import QueryExpander

FEATURES = ("rank", "score", "cover", "line", "line_all", "near", "context", "quoted", "length")


class FeatureMaker:
    """Features of candidates for a query; `idf` is over the corpus's chunks. Words are matched
    as index terms (the analyzer's case, accents and stems); with an `expander`, a query word
    is a concept matched by any of its alternatives at that alternative's weight. The matching
    runs over all candidates and lines at once (rerank_lines.py)."""

    def __init__(self, analyzer: Analyzer, chunks: Sequence[Chunk], expander: QueryExpander | None = None,
                 stored: dict | None = None, codes: dict[str, np.ndarray] | None = None):
        self.analyzer, self.expander = analyzer, expander
        self.texts_sha256 = texts_sha256(chunks)
        n = len(chunks)
        self._ids: dict[str, int] = {}  # word -> term id of the chunk codes
        self._codes: dict[str, ChunkCode] = {}
        self._stored: StoredCodes | None = None
        if isinstance(stored, dict) and stored.get("texts_sha256") == self.texts_sha256 and stored.get("n") == n:
            df = stored["terms"]  # counted by train_reranker over these very texts (df_record)
            if codes is not None:  # and every chunk's code, its term ids the positions of df's sorted terms
                self._ids = {w: i for i, w in enumerate(df)}
                self._stored = StoredCodes(codes, chunks)
        else:
            df = {}
            for c in chunks:
                for w in set(analyzer(c.context + "\n" + c.text)):
                    df[w] = df.get(w, 0) + 1
        self.df, self.n = df, n
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
        self.default_idf = math.log(1 + (n + 0.5) / 0.5)

    def df_record(self) -> dict:
        """The document frequencies, for the reranker's sidecar: a FeatureMaker over the same chunk
        texts reads them instead of analyzing every chunk again."""
        return {"n": self.n, "texts_sha256": self.texts_sha256, "terms": dict(sorted(self.df.items()))}

    def weight(self, w: str) -> float:
        return self.idf.get(w, self.default_idf)

    def codes_record(self, chunks: Sequence[Chunk]) -> dict[str, np.ndarray] | None:
        """Every chunk's code (in `chunks` order, the texts df_record counted), its term ids the positions
        of df_record's sorted terms, as the arrays train_reranker keeps beside the weights: a feature
        maker over the same texts reads a candidate's code instead of analyzing it for each question.
        None if a chunk holds a word the document frequencies do not count (nothing to number it by)."""
        if self.texts_sha256 != texts_sha256(chunks):
            return None
        ids = {w: i for i, w in enumerate(sorted(self.df))}
        codes = [encode(c, self.analyzer, ids) for c in chunks]  # a word df does not count adds an id
        return pack_codes(codes) if len(ids) == len(self.df) else None

    def code(self, c: Chunk) -> ChunkCode:
        """The chunk's words and lines as term ids (read once; from the stored codes when they hold it)."""
        if c.id not in self._codes:
            stored = self._stored.get(c) if self._stored is not None else None
            self._codes[c.id] = stored if stored is not None else encode(c, self.analyzer, self._ids)
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


CODE_ARRAYS = ("code_entries", "code_sets", "code_index")


def pack_codes(codes: list[ChunkCode]) -> dict[str, np.ndarray]:
    """ChunkCodes as three int32 arrays: `code_entries` (E, 3) every chunk's (line, term, first) entries
    one after the other; `code_sets` every chunk's `words` then its `context`; `code_index` (N, 5) per
    chunk its entries' end, its words' end, its context's end (each start is the previous chunk's end),
    its lines and its length."""
    entries = [np.stack([c.line, c.term, c.first], axis=1) for c in codes]
    sets = [a for c in codes for a in (c.words, c.context)]
    ends = np.cumsum([len(c.line) for c in codes], dtype=np.int64)
    set_ends = np.cumsum([len(a) for a in sets], dtype=np.int64).reshape(-1, 2)
    index = np.column_stack([ends, set_ends, [c.n_lines for c in codes], [c.length for c in codes]]) \
        if codes else np.zeros((0, 5), dtype=np.int64)
    return {"code_entries": (np.concatenate(entries) if codes else np.zeros((0, 3))).astype(np.int32),
            "code_sets": (np.concatenate(sets) if codes else np.zeros(0)).astype(np.int32),
            "code_index": index.astype(np.int32)}


def codes_problem(codes: dict[str, np.ndarray], n_chunks: int, n_terms: int) -> str | None:
    """What is wrong with stored codes for `n_chunks` chunks over `n_terms` terms, or None: shapes, ends
    rising within their arrays, term ids among the terms, lines within their chunk's, no negative count."""
    e, s, x = (codes.get(k) for k in CODE_ARRAYS)
    if any(a is None or a.dtype.kind not in "iu" for a in (e, s, x)):
        return f"the chunk codes need integer arrays {', '.join(CODE_ARRAYS)}"
    if e.ndim != 2 or e.shape[1] != 3 or s.ndim != 1 or x.shape != (n_chunks, 5):
        return f"chunk codes of shapes {e.shape}, {s.shape}, {x.shape}, not (E, 3), (S,), ({n_chunks}, 5)"
    ends, set_ends = x[:, 0].astype(np.int64), x[:, 1:3].reshape(-1).astype(np.int64)
    for name, at, total in (("entries", ends, len(e)), ("sets", set_ends, len(s))):
        if (at[-1] if len(at) else 0) != total or (np.diff(at, prepend=0) < 0).any():
            return f"the chunk codes' {name} ends do not rise to the {total} stored"
    if (x[:, 3:] < 0).any() or (len(e) and (e[:, 0].min() < 0 or e[:, 2].min() < 0)):
        return "a negative line, position, line count or length in the chunk codes"
    if (len(e) and (e[:, 1].min() < 0 or e[:, 1].max() >= n_terms)) or (len(s) and (s.min() < 0 or s.max() >= n_terms)):
        return f"a term id outside the {n_terms} terms of the document frequencies"
    if len(e) and (e[:, 0] >= np.repeat(x[:, 3], np.diff(ends, prepend=0))).any():
        return "an entry's line beyond its chunk's lines"
    return None


class StoredCodes:
    """The chunk codes train_reranker kept, read a chunk at a time (`get`: None for a chunk not among them)."""

    def __init__(self, codes: dict[str, np.ndarray], chunks: Sequence[Chunk]):
        self.entries = np.ascontiguousarray(codes["code_entries"].T, dtype=np.int64)  # (3, E): lines, terms, firsts
        self.sets = codes["code_sets"].astype(np.int64)
        index = codes["code_index"].tolist()
        starts, set_start = [0] + [r[0] for r in index[:-1]], [0] + [r[2] for r in index[:-1]]
        self.rows = [(s, r[0], t, r[1], r[2], r[3], r[4]) for s, t, r in zip(starts, set_start, index)]
        self.chunks = chunks
        self.at = {c.id: i for i, c in enumerate(chunks)}

    def get(self, c: Chunk) -> ChunkCode | None:
        i = self.at.get(c.id)
        if i is None or not (self.chunks[i] is c or (self.chunks[i].text == c.text and self.chunks[i].context == c.context)):
            return None
        e0, e1, w0, w1, x1, n_lines, length = self.rows[i]
        line, term, first = self.entries[:, e0:e1]
        return ChunkCode(line, term, first, n_lines, self.sets[w0:w1], self.sets[w1:x1], length)


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


def save_model(path, w: np.ndarray, b: float, sidecar: dict, codes: dict[str, np.ndarray] | None = None,
               features: Sequence[str] = FEATURES) -> None:
    """Weights as .npz (with `codes`, FeatureMaker.codes_record's arrays, when given), and beside it (.json)
    the feature names (`features`: more than FEATURES with rerank_dense.py's) and how the model was trained."""
    from pathlib import Path

    from ..artifacts.io import save_npz, write_json
    save_npz(path, w=w.astype(np.float64), b=np.array([b]), **(codes or {}))
    write_json(Path(path).with_suffix(".json"), {"features": list(features), "weights": dict(zip(features, w.tolist())),
                                                 "bias": b, **sidecar})


def load_model(path, features: Sequence[str] = FEATURES) -> dict:
    """A trained reranker's {"w": (F,), "b": float, "df": its document frequencies or None, "codes": its
    chunks' codes (FeatureMaker.codes_record) or None}, both files checked against their job's receipt;
    refused unless trained on `features`."""
    from pathlib import Path

    from ..artifacts.content import fail, weights
    from ..artifacts.integrity import load_json, verified
    from ..artifacts.io import load_npz
    meta = load_json(Path(path).with_suffix(".json"), "reranker sidecar")
    if meta.get("features") != list(features):
        raise ValueError(f"{path}: trained on features {meta.get('features')}, these are {list(features)}; "
                         "re-run train_reranker")
    arrays = load_npz(verified(path, "reranker model"))
    weights(arrays, path)
    df, codes = meta.get("df"), None
    if isinstance(df, dict) and any(k in arrays for k in CODE_ARRAYS):
        codes = {k: arrays[k] for k in CODE_ARRAYS if k in arrays}
        problem = codes_problem(codes, df.get("n"), len(df.get("terms") or {}))
        if problem:
            fail(path, problem + "; re-run train_reranker")
    return {"w": arrays["w"], "b": float(arrays["b"][0]), "df": df, "codes": codes}


# The grammar domain's analyzer: the one an English/Spanish corpus's languages give (question filler of
# both, Spanish stems, accents folded); a corpus without `domain: grammar` gets its own languages' one.
DEFAULT_ANALYZER = language_analyzer(("en", "es"))
