"""The reranker's word-matching features for all candidates and all their lines at once (rerank.py).

Each chunk is read once into integer arrays (`ChunkCode`): per line, its distinct words with their first
position; the chunk's words (with its context) and its context's words, as sorted term ids. For a query,
the (term, concept, weight) triples of its concepts are matched against the candidates' arrays
concatenated, and per (line or chunk, concept) the best weight and the first position are taken with
np.maximum.at / np.minimum.at into (rows, concepts) arrays. A share of the query is then a row's weights
times the concepts' idf, summed by np.cumsum along the concepts: one after the other in concept order,
as rerank.py's `share` sums them (an absent concept adds 0.0, which changes no sum), so every feature is
the one the per-line loop computed, bit for bit.

What it leaves out: the features that need no matching (rank, score, length), the query's concepts and
idf (rerank.py's FeatureMaker), and the choice of features.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..text.analyze import Analyzer
from ..text.chunks import Chunk
from ..text.structure import reading_lines

SEPARATOR_RE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")


@dataclass(frozen=True)
class ChunkCode:
    """A chunk's lines and words as term ids, as the reranker's features match them."""
    line: np.ndarray     # (E,) line of each (line, distinct word) entry, 0.. in reading order
    term: np.ndarray     # (E,) the word's term id
    first: np.ndarray    # (E,) its first position in the line's words
    n_lines: int
    words: np.ndarray    # (W,) sorted term ids of the chunk's words and its context's
    context: np.ndarray  # (X,) sorted term ids of the context's words
    length: int          # words in the chunk's text


def chunk_lines(c: Chunk, analyzer: Analyzer) -> list[list[str]]:
    """The analyzed words of each line of the chunk (a wrapped paragraph is one: reading_lines), a table row
    with its header (the header row above a separator inside the chunk, else the context's); blank lines and
    separators left out."""
    header = next((ln for ln in c.context.split("\n")[1:] if ln.startswith("|")), "")
    out, raw = [], reading_lines(c.text)
    for i, line in enumerate(raw):
        if not line.strip() or SEPARATOR_RE.match(line):
            continue
        if line.lstrip().startswith("|") and i + 1 < len(raw) and SEPARATOR_RE.match(raw[i + 1]):
            header = line  # a header row inside the chunk names the rows below it
            continue
        out.append(analyzer(f"{header}\n{line}" if line.lstrip().startswith("|") and header else line))
    return out


def distinct_ids(ids: list[int]) -> np.ndarray:
    """The sorted distinct term ids, as np.unique gives them (which, on numpy 2, imports numpy.ma to ask
    whether its input is masked: a tenth of a cold `answer`'s imports)."""
    return np.array(sorted(set(ids)), dtype=np.int64)


def encode(c: Chunk, analyzer: Analyzer, ids: dict[str, int]) -> ChunkCode:
    """The chunk's ChunkCode; `ids` gives each word a term id (new words are added)."""
    def code(words) -> list[int]:
        return [ids.setdefault(w, len(ids)) for w in words]

    line, term, first = [], [], []
    lines = chunk_lines(c, analyzer)
    for n, words in enumerate(lines):
        firsts: dict[str, int] = {}
        for j, w in enumerate(words):
            firsts.setdefault(w, j)
        line += [n] * len(firsts)
        term += code(firsts)
        first += list(firsts.values())
    body, context = analyzer(c.text), analyzer(c.context)
    words = distinct_ids(code(body) + code(context))
    return ChunkCode(np.array(line, dtype=np.int64), np.array(term, dtype=np.int64), np.array(first, dtype=np.int64),
                     len(lines), words, distinct_ids(code(context)), len(body))


class Matches:
    """A query's (term id, concept, weight) triples, matched against arrays of term ids (< n_ids)."""

    def __init__(self, triples: list[tuple[int, int, float]], n_concepts: int, n_ids: int):
        t = np.array([x[0] for x in triples], dtype=np.int64)
        order = np.argsort(t, kind="stable")
        self.c = np.array([x[1] for x in triples], dtype=np.int64)[order]
        self.w = np.array([x[2] for x in triples], dtype=np.float64)[order]
        self.n_concepts = n_concepts
        terms, self.lo, self.n = np.unique(t[order], return_index=True, return_counts=True)
        self.slot = np.full(n_ids, -1, dtype=np.int64)  # (n_ids,) term id -> its place in `terms`, or -1
        self.slot[terms] = np.arange(len(terms))

    def of(self, terms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For every (entry, concept) match of the term ids (E,): (entry, concept, weight)."""
        k = self.slot[terms]  # (E,)
        hit = np.flatnonzero(k >= 0)
        n = self.n[k[hit]]  # concepts each matching term matches
        at = np.repeat(self.lo[k[hit]] - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))
        return np.repeat(hit, n), self.c[at], self.w[at]

    def best(self, rows: np.ndarray, terms: np.ndarray, n_rows: int) -> np.ndarray:
        """(n_rows, concepts) the best positive weight each row's terms match each concept at (0: none)."""
        e, c, w = self.of(terms)
        out = np.zeros((n_rows, self.n_concepts))
        np.maximum.at(out, (rows[e], c), w)
        return out


def shares(best: np.ndarray, weights: np.ndarray, total: float) -> np.ndarray:
    """(rows,) the idf-weighted share of the query each row matches, summed in concept order."""
    return np.cumsum(best * weights, axis=1)[:, -1] / total  # (rows,)


def line_features(codes: list[ChunkCode], m: Matches, weights: np.ndarray, total: float):
    """Per candidate (N,): the best line's share, 1.0 if a line holds every concept, the best line's
    nearness (matched concepts / words spanned), as rerank.py's loop over lines took them."""
    n, lines = len(codes), np.array([c.n_lines for c in codes], dtype=np.int64)  # (N,)
    start = np.cumsum(lines) - lines  # (N,) each candidate's first line in the concatenation
    g = np.concatenate([c.line + s for c, s in zip(codes, start)]) if n else np.zeros(0, dtype=np.int64)
    terms = np.concatenate([c.term for c in codes]) if n else np.zeros(0, dtype=np.int64)
    first = np.concatenate([c.first for c in codes]) if n else np.zeros(0, dtype=np.int64)
    G, T = int(lines.sum()), m.n_concepts
    e, ci, w = m.of(terms)
    best = np.zeros((G, T))  # (G, T)
    np.maximum.at(best, (g[e], ci), w)
    seen = np.zeros((G, T), dtype=bool)  # a term of the concept is in the line, whatever its weight
    seen[g[e], ci] = True
    pos = np.full((G, T), np.iinfo(np.int64).max)
    np.minimum.at(pos, (g[e], ci), first[e])
    matched = (best > 0).any(1)  # (G,) lines with a positive match; the others are skipped
    share = shares(best, weights, total)
    span = np.where(seen, pos, -1).max(1) - np.where(seen, pos, np.iinfo(np.int64).max).min(1) + 1
    near = seen.sum(1) / np.where(matched, span, 1)  # (G,)
    owner = np.repeat(np.arange(n), lines)[matched]  # (M,) candidate of each matched line
    out_line, out_near, out_all = np.zeros(n), np.zeros(n), np.zeros(n)
    np.maximum.at(out_line, owner, share[matched])
    top = share[matched] == out_line[owner]  # lines as good as the best: the nearest of them counts
    np.maximum.at(out_near, owner[top], near[matched][top])
    np.maximum.at(out_all, owner, ((best[matched] > 0).sum(1) == T).astype(np.float64))
    return out_line, out_all, out_near


def set_shares(sets: list[np.ndarray], m: Matches, weights: np.ndarray, total: float) -> np.ndarray:
    """(N,) the share of the query each candidate's set of term ids matches."""
    rows = np.repeat(np.arange(len(sets)), [len(s) for s in sets])
    terms = np.concatenate(sets) if sets else np.zeros(0, dtype=np.int64)
    return shares(m.best(rows, terms, len(sets)), weights, total)


def set_counts(sets: list[np.ndarray], wanted: list[int]) -> np.ndarray:
    """(N,) int: how many of the distinct term ids `wanted` each candidate's set of term ids holds."""
    want = distinct_ids(wanted)
    rows = np.repeat(np.arange(len(sets)), [len(s) for s in sets])
    terms = np.concatenate(sets) if sets else np.zeros(0, dtype=np.int64)
    at = np.minimum(np.searchsorted(want, terms), len(want) - 1)
    return np.bincount(rows[want[at] == terms], minlength=len(sets))
