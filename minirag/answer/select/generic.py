"""Generic question analysis and candidate features: what any corpus's question asks, and where a span sits.

    q = GenericQuestion.of("When was the Duke of Normandy born?", idf)
    q.type -> "date"; q.stems -> {"duke": 2.1, "norman": 1.3, "born": 2.8}

The expected answer type comes from the question word, in English and Spanish:

    who / whom / whose / quién          person      a name
    when / cuándo / what year / century date        a date or year
    where / dónde                       place       a name
    how many / how much / cuántos       number      a number (an amount)
    why / por qué                       reason      a clause
    what X / which X / qué / cuál       thing       a noun phrase or a name

Features of each candidate (GENERIC names them): whether its kind fits the expected type; its kind; how much
of the question (IDF-weighted stems) its sentence covers, and whether that is the best sentence; how
much of the question sits within a few words of the span and how far the nearest question word is; how
much of the span the question already says (an answer is what the question does not say); its length;
its chunk's rank; for a table cell, whether its row key and its column header are named by the question;
whether its header or line names the attribute the question asks for in other words and its value carries
that attribute's unit ("how heavy": a *Weight* row, "3.1 kg"; attributes.py).
The "none of them" option gets NULL_GENERIC: how well the best sentence covers the question, what share
of the question's weight no retrieved chunk holds, the question's type, a negation.

What it leaves out: grammar concepts (features.py: the KB's own feature set, on top of these).
"""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

from ...text.words import crude_stem, fold
from .attributes import cues_of, named, with_unit
from .candidates import Candidate
from .spans import FUNCTION, TOKEN_RE

TYPES = ("person", "date", "place", "number", "reason", "manner", "thing")
KINDS = ("name", "date", "number", "phrase", "quote", "clause", "sentence", "item", "cell", "other")
FITS = {"person": {"name"}, "date": {"date"}, "place": {"name"}, "number": {"number"}, "reason": {"clause"},
        "manner": {"phrase", "clause"}, "thing": {"phrase", "name", "quote", "cell", "item"}}
GENERIC = (("g_type_fit", "g_type_clash") + tuple(f"g_kind_{k}" for k in KINDS)
           + ("g_cov", "g_cov_best", "g_cov_gap", "g_near", "g_dist", "g_in_q", "g_all_in_q", "g_log_words",
              "g_one_word", "g_long", "g_left_q", "g_right_q", "g_inv_rank", "g_top1", "g_caption_q",
              "g_row_q", "g_column_q", "g_row_and_column", "g_fit_best_line", "g_attr_header", "g_attr_line",
              "g_attr_unit", "g_attr_both", "g_unit", "g_counted"))
NULL_GENERIC = (("gn_bias", "gn_best_cov", "gn_best_near", "gn_missing", "gn_missing_best", "gn_negation",
                 "gn_no_candidates", "gn_fit_in_best", "gn_rarest_missing", "gn_numbers_missing", "gn_names_missing",
                 "gn_words", "gn_log_candidates", "gn_attr_asked", "gn_attr_found") + tuple(f"gn_type_{t}" for t in TYPES))
G = {n: i for i, n in enumerate(GENERIC)}
WINDOW = 6
UNIT_WORDS = 6  # a candidate longer than this states more than a value
NUMBER_RE = re.compile(r"^\W*\d[\d.,\s–-]*\W*$")  # a cell that is a number (a range) and nothing else
TYPE_RULES = (  # (pattern over the folded question, type), first match wins
    (r"\b(how many|how much|cuant[oa]s?|how long|how old|how far|how big|how large|what percentage|"
     r"what number|how tall|what temperature|how often|how fast|how high|how heavy|how loud|how soon|how hot|"
     r"how wide|how deep|how expensive|how warm|how cold|how early)\b", "number"),
    (r"\b(when|cuando|what year|which year|what century|what decade|what date|en que ano|que ano|"
     r"what time|what period)\b", "date"),
    (r"\b(who|whom|whose|quien|quienes)\b", "person"),
    (r"\b(where|donde|adonde|what country|what city|which country|which city)\b", "place"),
    (r"\b(why|por que)\b", "reason"),
    (r"\bhow\b", "manner"),
)
COUNTED_RE = re.compile(r"\b(?:how many|how much|cuant[oa]s?)\s+([^\W\d_]+)")  # "how much butter": butter
COUNTED_WINDOW = 3  # "225 g unsalted butter", "27 working days": the counted noun in the span or three words after it
NEGATION_RE = re.compile(r"\b(not|never|no|n't|nunca|tampoco)\b")


def span_words(text: str) -> list[str]:
    """The words of a text, a hyphenated one as its parts ("swim-only" names the row *Swim only*)."""
    return [w for m in TOKEN_RE.finditer(text) if m.group()[0].isalnum()
            for w in (m.group().split("-") if "-" in m.group() and not m.group()[0].isdigit() else (m.group(),)) if w]


def content_stems(text: str) -> list[str]:
    return [crude_stem(w) for w in span_words(text) if fold(w) not in FUNCTION and len(w) > 1]


def span_key(text: str) -> str:
    """An answer's words with its numbers, folded: candidates with one key are one answer."""
    return " ".join(fold(w) for w in span_words(text))


class GenericQuestion:
    def __init__(self, query: str, idf: dict[str, float], default_idf: float):
        folded = fold(query)
        self.type = next((t for pattern, t in TYPE_RULES if re.search(pattern, folded)), "thing")
        self.stems = {s: idf.get(s, default_idf) for s in content_stems(query)}
        self.total = sum(self.stems.values()) or 1.0
        self.negated = bool(NEGATION_RE.search(folded))
        toks = span_words(query)
        self.numbers = {crude_stem(w) for w in toks if any(ch.isdigit() for ch in w)}
        self.names = {crude_stem(w) for i, w in enumerate(toks) if i and w[0].isupper() and fold(w) not in FUNCTION}
        attrs, cues = cues_of(query)
        self.attrs = attrs
        self.cue_stems = {crude_stem(w) for w in cues}  # "how heavy": words asking for a value, not content
        counted = COUNTED_RE.search(folded)  # what a "how much / how many" question counts, if it names it
        self.counted = crude_stem(counted.group(1)) if counted and counted.group(1) not in FUNCTION else ""

    @property
    def wants_sentence(self) -> bool:
        """A why, a how (not how much) or a what-do-I-do question: answered by a sentence, not a span in it."""
        return self.type in ("reason", "manner") or "action" in self.attrs


class Line:
    """One sentence (or row) of a chunk: its word stems, and where each of its candidates sits in it."""
    __slots__ = ("stems", "spans", "rows")

    def __init__(self, text: str):
        self.stems = [crude_stem(w) for w in span_words(text)]
        self.spans: list[tuple[int, int]] = []
        self.rows: list[int] = []


class GenericBlock:
    """One chunk's candidates for the generic features: their kinds, stems and positions in their lines."""

    def __init__(self, candidates: list[Candidate]):
        n = self.n = len(candidates)
        self.static = np.zeros((n, len(GENERIC)), dtype=np.float32)
        self.kinds = [c.kind if c.kind in KINDS else ("clause" if c.kind in ("arrow", "gloss") else "other")
                      for c in candidates]
        self.text_stems = [set(content_stems(c.text)) for c in candidates]
        self.all_stems = [[crude_stem(w) for w in span_words(c.text)] for c in candidates]
        self.key_stems = [set(content_stems(c.key)) for c in candidates]
        self.column_stems = [set(content_stems(c.column)) for c in candidates]
        lines: dict[str, Line] = {}
        for i, c in enumerate(candidates):
            line = lines.setdefault(c.line, Line(c.line))
            span = [crude_stem(w) for w in span_words(c.text)]
            at = find_run(line.stems, span)
            line.spans.append((at, at + len(span)) if at >= 0 else (0, len(line.stems)))
            line.rows.append(i)
            row, k = self.static[i], len(span)
            row[G[f"g_kind_{self.kinds[i]}"]] = 1.0
            row[G["g_log_words"]], row[G["g_one_word"]], row[G["g_long"]] = math.log1p(k), k == 1, k > 5
        self.lines = list(lines.values())
        self.fit = np.array([[k in FITS[t] for t in TYPES] for k in self.kinds], dtype=bool).reshape(n, -1)
        self.clash = np.array([[k in ("name", "date", "number") and k not in FITS[t] for t in TYPES]
                               for k in self.kinds], dtype=bool).reshape(n, -1)
        self.tokens = [t for ts in self.all_stems for t in ts]                 # every candidate's stems, in a row
        self.owner = np.repeat(np.arange(n), [len(ts) for ts in self.all_stems])
        self.n_tokens = np.maximum(1, np.bincount(self.owner, minlength=n))
        self.cells = [i for i, k in enumerate(self.kinds) if k == "cell"]
        distinct = {c.caption: None for c in candidates}
        where = {c: i for i, c in enumerate(distinct)}
        self.captions = [set(content_stems(c)) for c in distinct]
        self.caption_of = np.array([where[c.caption] for c in candidates], dtype=np.int64)
        # the attributes each candidate's header (row key, column, caption) and line name, and its value's unit
        self.attr_header = [named(f"{c.key} | {c.column} | {c.caption}") if c.kind == "cell" else frozenset()
                            for c in candidates]
        self.attr_line = [named(c.line) for c in candidates]
        # a value's unit, of a short candidate only: an item that holds "175 °C" is not the temperature
        self.attr_unit = [with_unit(c.text) if len(c.text.split()) <= UNIT_WORDS else frozenset() for c in candidates]
        # a number under a header naming the attribute states it too: "489.00" in a *Price (EUR)* column
        self.attr_unit = [u | named(c.column) if c.kind == "cell" and NUMBER_RE.search(c.text) else u
                          for u, c in zip(self.attr_unit, candidates)]
        self.static[:, G["g_unit"]] = [bool(a) for a in self.attr_unit]
        # what pretrained similarity compares the question with (similarity.py): the sentence, and a cell's
        # row key and column header (a *Weight* row, a *Meaning* column); their vectors' rows, once looked up
        self.line_texts = [c.line for c in candidates]
        self.header_texts = [f"{c.key} · {c.column}" if c.kind == "cell" else "" for c in candidates]
        self.similar_rows: tuple[np.ndarray, np.ndarray] | None = None


def find_run(seq: list[str], run: list[str]) -> int:
    if not run:
        return -1
    for i in range(len(seq) - len(run) + 1):
        if seq[i:i + len(run)] == run:
            return i
    return -1


def line_features(q: GenericQuestion, line: Line, X: np.ndarray) -> float:
    """Fill the sentence and span-position features of one line's candidates; return its coverage."""
    w = np.array([q.stems.get(s, 0.0) for s in line.stems], dtype=np.float32)  # (L,)
    cov = sum(q.stems[s] for s in set(line.stems) if s in q.stems) / q.total
    rows = np.array(line.rows)
    spans = np.array(line.spans).reshape(-1, 2)
    c = np.concatenate([[0.0], np.cumsum(w)])                                # (L + 1,)
    L = len(w)
    s, e = spans[:, 0], spans[:, 1]
    inside = c[e] - c[s]
    window = c[np.minimum(e + WINDOW, L)] - c[np.maximum(s - WINDOW, 0)] - inside
    X[rows, G["g_cov"]] = cov
    X[rows, G["g_near"]] = window / q.total
    hits = np.flatnonzero(w > 0)
    if len(hits):
        at = np.searchsorted(hits, s)                                        # first question word at or after s
        left = np.where(at > 0, hits[np.maximum(at - 1, 0)], -10_000)        # the last one before the span
        after = np.searchsorted(hits, e)
        right = np.where(after < len(hits), hits[np.minimum(after, len(hits) - 1)], 10_000)  # the first after it
        X[rows, G["g_dist"]] = 1.0 / (1.0 + np.minimum(s - left, right - e + 1))
        X[rows, G["g_left_q"]] = (s > 0) & (left == s - 1)
        X[rows, G["g_right_q"]] = right == e
    return cov


def block_matrix(q: GenericQuestion, b: GenericBlock, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """(n, len(GENERIC)) features of one chunk's candidates, and each candidate's line coverage."""
    X = b.static.copy()
    X[:, G["g_inv_rank"]], X[:, G["g_top1"]] = 1.0 / rank, rank == 1
    cov = np.zeros(b.n, dtype=np.float32)
    for line in b.lines:
        cov[line.rows] = line_features(q, line, X)
    t = TYPES.index(q.type)
    X[:, G["g_type_fit"]], X[:, G["g_type_clash"]] = b.fit[:, t], b.clash[:, t]
    in_q = np.fromiter((tok in q.stems for tok in b.tokens), dtype=np.float64, count=len(b.tokens))
    X[:, G["g_in_q"]] = np.bincount(b.owner, weights=in_q, minlength=b.n) / b.n_tokens
    shared = np.array([len(c & q.stems.keys()) for c in b.captions], dtype=np.float32) / max(1, len(q.stems))
    X[:, G["g_caption_q"]] = shared[b.caption_of] if b.n else 0.0
    for i in b.cells:
        X[i, G["g_row_q"]] = bool(b.key_stems[i] & q.stems.keys())
        X[i, G["g_column_q"]] = len(b.column_stems[i] & q.stems.keys()) / max(1, len(b.column_stems[i]))
    X[:, G["g_all_in_q"]] = X[:, G["g_in_q"]] >= 1.0
    if q.counted:  # a number followed by what the question counts: "225 g unsalted butter" for "how much butter"
        for line in b.lines:
            for (s, e), i in zip(line.spans, line.rows):
                X[i, G["g_counted"]] = b.kinds[i] == "number" and q.counted in line.stems[s:e + COUNTED_WINDOW]
    X[:, G["g_row_and_column"]] = X[:, G["g_row_q"]] * X[:, G["g_column_q"]] * (X[:, G["g_in_q"]] < 1.0)
    if q.attrs:
        X[:, G["g_attr_header"]] = [bool(a & q.attrs) for a in b.attr_header]
        X[:, G["g_attr_line"]] = [bool(a & q.attrs) for a in b.attr_line]
        X[:, G["g_attr_unit"]] = [bool(a & q.attrs) for a in b.attr_unit]
        X[:, G["g_attr_both"]] = X[:, G["g_attr_unit"]] * np.maximum(X[:, G["g_attr_header"]], X[:, G["g_attr_line"]])
    return X, cov


def stem_idf(texts: list[list[str]]) -> tuple[dict[str, float], float]:
    """IDF of each stem over texts given as their stems, log((n + 1) / (df + 0.5)), and that of a stem no text
    holds, log((n + 1) / 0.5): the generic features' and the rule sentences' (explain.py) word weights."""
    n, df = len(texts), Counter(s for stems in texts for s in set(stems))
    return {s: math.log((n + 1) / (d + 0.5)) for s, d in df.items()}, math.log((n + 1) / 0.5)


class GenericFeaturizer:
    def __init__(self, idf: dict[str, float], default_idf: float, n: int = 0):
        self.idf, self.default_idf, self.n = idf, default_idf, n  # n: the texts counted

    def common(self, share: float) -> frozenset[str]:
        """The stems in at least `share` of the texts."""
        top = math.log((self.n + 1) / (share * self.n + 0.5))
        return frozenset(s for s, v in self.idf.items() if v <= top + 1e-12)

    @classmethod
    def from_texts(cls, texts: list[str]) -> "GenericFeaturizer":
        """IDF of each content stem over the corpus's chunk texts."""
        return cls(*stem_idf([content_stems(t) for t in texts]), len(texts))

    def question(self, query: str) -> GenericQuestion:
        return GenericQuestion(query, self.idf, self.default_idf)

    def matrix(self, q: GenericQuestion, blocks: list[tuple[GenericBlock, int]]) -> tuple[np.ndarray, np.ndarray]:
        """(m, len(GENERIC)) features of the ranked chunks' candidates, and the none option's (len(NULL_GENERIC),)."""
        parts = [block_matrix(q, b, rank) for b, rank in blocks if b.n]
        if not parts:
            return np.zeros((0, len(GENERIC)), np.float32), self.null(q, np.zeros((0, len(GENERIC))), blocks)
        X = np.concatenate([p[0] for p in parts])
        best = X[:, G["g_cov"]].max()
        X[:, G["g_cov_gap"]] = X[:, G["g_cov"]] - best
        X[:, G["g_cov_best"]] = X[:, G["g_cov"]] >= best - 1e-6
        X[:, G["g_fit_best_line"]] = X[:, G["g_cov_best"]] * X[:, G["g_type_fit"]]
        return X, self.null(q, X, blocks)

    def null(self, q: GenericQuestion, X: np.ndarray, blocks: list[tuple[GenericBlock, int]]) -> np.ndarray:
        seen = {s for b, _ in blocks for line in b.lines for s in line.stems}
        missing = sum(w for s, w in q.stems.items() if s not in seen) / q.total
        best = X[:, G["g_cov"]].max() if len(X) else 0.0
        best_rows = X[:, G["g_cov_best"]] > 0 if len(X) else np.zeros(0, bool)
        near = X[best_rows, G["g_near"]].max() if best_rows.any() else 0.0
        fit_in_best = float(X[best_rows, G["g_type_fit"]].any()) if best_rows.any() else 0.0
        line = self.best_line(q, blocks)
        absent = [w for s, w in q.stems.items() if s not in line]
        top = max(q.stems.values(), default=1.0)
        return np.array([1.0, best, near, missing, 1.0 - best, q.negated, not len(X), fit_in_best,
                         max(absent, default=0.0) / top, len(q.numbers - line) / max(1, len(q.numbers)),
                         len(q.names - line) / max(1, len(q.names)), math.log1p(len(q.stems)),
                         math.log1p(int((X[:, G["g_cov_gap"]] > -0.35).sum()) if len(X) else 0),
                         bool(q.attrs), float(X[:, G["g_attr_both"]].max()) if len(X) else 0.0]
                        + [q.type == t for t in TYPES], dtype=np.float32)

    @staticmethod
    def best_line(q: GenericQuestion, blocks: list[tuple[GenericBlock, int]]) -> set[str]:
        """The stems of the sentence that covers most of the question's weight (ties: the first)."""
        best, out = -1.0, set()
        for b, _ in blocks:
            for line in b.lines:
                stems = set(line.stems)
                cov = sum(w for s, w in q.stems.items() if s in stems)
                if cov > best:
                    best, out = cov, stems
        return out


class SpanBlock:
    """The candidates of one chunk for the generic features alone: their answer keys (numbers kept) and
    what the generic featurizer reads of them (features.py's ChunkBlock is the grammar's)."""

    def __init__(self, candidates: list[Candidate]):
        self.candidates, self.n = candidates, len(candidates)
        self.texts = [span_key(c.text) for c in candidates]
        self.generic = GenericBlock(candidates)
