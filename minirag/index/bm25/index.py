"""BM25 over numpy arrays: build an index of items (chunks or documents), save it, search it.

The index is a compressed-sparse term -> postings layout: for term t, the items that contain
it are `items[indptr[t]:indptr[t+1]]` (ascending) and their precomputed BM25 weights
idf(t) * tf-part(f, |D|) are `weights[...]` (float32). A query is scored by gathering the
posting lists of its terms and summing them per item with one `np.bincount` (terms in half
the items or more are added as dense rows instead); the top k come from `np.partition` of the
positive scores plus a sort of the few candidates. Python loops run over queries and their
terms, never over items or postings. The (N,) float64 sums are the scores returned. On large
indexes (`PrunedSearch.min_items`) a query goes first to search.py's MaxScore search,
which skips most postings of the frequent terms and returns the same items and scores, bit
for bit; it hands the queries it cannot prune back to this exhaustive search. A batch of queries
(the retrieve stage's) on an index of `BatchSearch.min_items` or more goes first to
batch.py, which runs MaxScore's steps over all of them at once, the same bits again.

Variants (`BM25Params.variant`), each a function in variants.py with its formula and source:
`lucene` (default), `robertson` (classic IDF, negative values floored as rank_bm25's BM25Okapi
does, so it reproduces BM25Okapi's scores), `atire` (Trotman et al.'s IDF log(N/df)).
Document lengths are exact (as in bm25s) unless `lucene_norms` rounds them the way a Lucene
index stores them, which is what reproduces Pyserini's published figures.

Title field (BM25F-style, the seed's fix for pointer pages): when `title_weight` > 0 each
item also carries its document's title; every query term found in that title adds
title_weight * IDF(term), the IDF taken from the body statistics (df = 0 for a term in no body).
Repeated query terms count once per occurrence, as in Lucene's BooleanQuery of term clauses
and in bm25s.

Counting the postings (the vocabulary, tf, lengths) is postings.py's: `from_postings`
takes N, df, avgdl and IDF from them and scores, so shards counted apart merge exactly.

What this module leaves out: positions and phrase queries, document-at-a-time pruning (WAND,
block-max: search.py's MaxScore works term at a time over candidate sets, and structured
`search_concepts` queries read every posting), incremental updates (rebuild instead), and the
mapping from item index to chunk id (the caller keeps that list).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Literal

import numpy as np

from ...artifacts import content
from ...artifacts.integrity import verified
from ...artifacts.io import load_npz, read_json, save_npz, write_json
from ...settings import setting, settings_from_dict
from ...text.analyze import Analyzer, AnalyzerConfig
from .batch import BatchSearch
from .candidates import best
from .postings import Postings
from .search import PrunedSearch
from .variants import VARIANTS, lucene_norm_length


@dataclass(frozen=True)
class BM25Params:
    """How an index scores: the variant and its parameters (what params.json records)."""
    variant: Literal["lucene", "robertson", "atire"] = "lucene"  # the functions above
    k1: float = setting(1.5, minimum=0)   # term-frequency saturation (Pyserini's BEIR flat runs use 0.9)
    b: float = setting(0.75, minimum=0, maximum=1)  # length normalisation (Pyserini's BEIR flat runs use 0.4)
    title_weight: float = setting(0.0, minimum=0)  # BM25F-style title field: weight x IDF per query term in the title; 0 = off
    lucene_norms: bool = False  # quantize |D| to Lucene's one-byte norm, as Pyserini's indexes do (bm25s: exact)

    def __post_init__(self):
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown BM25 variant {self.variant!r} (known: {', '.join(VARIANTS)})")

    @classmethod
    def from_dict(cls, d: dict) -> "BM25Params":
        return settings_from_dict(cls, d, "bm25")


@dataclass(frozen=True)
class BM25Settings(BM25Params):
    """A BM25 index of the config (`bm25: {name: ...}`): scoring, plus how chunks become words."""
    analyzer: AnalyzerConfig = AnalyzerConfig()  # the seed's lowercased \w+ unless set
    with_context: bool = True   # index each chunk after its context (title › headings › table header)
    items: Literal["chunks", "units"] = "chunks"  # units: rows and sentences, a chunk ranked by its best one

    def scoring(self) -> BM25Params:
        return BM25Params(**{f.name: getattr(self, f.name) for f in fields(BM25Params)})

    def describe(self) -> str:
        title = f", title field {self.title_weight:g}" if self.title_weight else ""
        units = ", over units (best row or sentence per chunk)" if self.items == "units" else ""
        return f"BM25 {self.variant} k1={self.k1:g} b={self.b:g}{title}{self.analyzer.describe()}{units}"


def _top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k best items of scores (N,) with score > 0, best first, ties to the lower index."""
    # Candidates first: the k-th largest of every 16th score is at most the k-th largest of
    # all, so the scores at or above it (and positive) hold the k best and every tie with the
    # k-th. A partition of N/16 and one pass stand in for a partition of all N: several times
    # faster whether most scores are zero (short queries) or most are positive (long ones).
    sample = scores[::16]
    floor = np.partition(sample, len(sample) - k)[len(sample) - k] if len(sample) > k else 0.0
    hits = np.flatnonzero(scores >= floor) if floor > 0 else np.flatnonzero(scores > 0)  # (H,)
    return best(hits, scores[hits], k)


def body_weights(params: BM25Params, df: np.ndarray, terms: np.ndarray, tf: np.ndarray, dl: np.ndarray,
                 n_items: int, avgdl: float) -> tuple[np.ndarray, np.ndarray]:
    """(float32 weights idf(t) * tf-part of postings, idf (V,)): `terms`, `tf`, `dl` (P,) are each
    posting's term, frequency and item length; df (V,), N and avgdl the whole collection's.
    Elementwise, so postings scored in blocks get the weights scored at once, bit for bit."""
    if params.lucene_norms:
        dl = lucene_norm_length(dl)
    idf, tf_part = VARIANTS[params.variant](df, tf, dl, n_items, avgdl, params.k1, params.b)
    return (idf[terms] * tf_part).astype(np.float32), idf


def title_weights(params: BM25Params, idf: np.ndarray, title_indptr: np.ndarray) -> np.ndarray:
    """float32 (Q,) title_weight * idf(t) per title posting: presence, not frequency, in the title."""
    t_terms = np.repeat(np.arange(len(idf)), np.diff(title_indptr))  # (Q,)
    return (params.title_weight * idf[t_terms]).astype(np.float32)


class BM25Index:
    def __init__(self, arrays: dict[str, np.ndarray], vocab: dict[str, int], params: BM25Params,
                 analyzer: Analyzer, avgdl: float):
        self.arrays = arrays  # indptr (V+1,), items (P,), weights (P,), title_* likewise, doc_lengths (N,)
        self.vocab = vocab
        self.params = params
        self.analyzer = analyzer
        self.avgdl = avgdl
        self.n_items = n = len(arrays["doc_lengths"])
        # Search-time helpers, derived here rather than saved. Posting bounds as Python ints
        # (indexing a list is cheaper than a numpy scalar). Terms in at least half the items
        # also get a dense (N,) weight row, no bigger than their posting list (4 bytes per item
        # vs 8 per posting) and summed without scattering: a stopword-heavy query is mostly these.
        indptr = arrays["indptr"]
        self._bounds = indptr.tolist()
        self._title_bounds = arrays["title_indptr"].tolist() if len(arrays["title_items"]) else None
        frequent = np.flatnonzero(2 * np.diff(indptr) >= n) if n else np.zeros(0, dtype=np.int64)
        self._dense_row = {int(t): r for r, t in enumerate(frequent)}
        self._dense = np.zeros((len(frequent), n), dtype=np.float32)  # (D, N)
        for r, t in enumerate(frequent):
            self._dense[r, arrays["items"][indptr[t]:indptr[t + 1]]] = arrays["weights"][indptr[t]:indptr[t + 1]]
        # MaxScore's per-term caps (search.py)
        self._pruned = PrunedSearch(arrays, self._dense_row, self._dense, self._bounds, self._title_bounds)
        self._batch: BatchSearch | None = None  # batch.py's, built on first use

    @classmethod
    def build(cls, texts: list[str], analyzer: Analyzer, params: BM25Params,
              titles: list[str] | None = None) -> "BM25Index":
        """Index texts[i] as item i; titles[i] is the title of item i's document (chunks share it)."""
        field = titles if params.title_weight > 0 else None
        return cls.from_postings(Postings.build(texts, analyzer, field), analyzer, params)

    @classmethod
    def from_tokens(cls, tokens: list[list[str]], analyzer: Analyzer, params: BM25Params,
                    title_tokens: list[list[str]] | None = None) -> "BM25Index":
        """Index already analyzed items (`analyzer` is kept to analyze queries the same way)."""
        field = title_tokens if params.title_weight > 0 else None
        return cls.from_postings(Postings.from_tokens(tokens, field), analyzer, params)

    @classmethod
    def from_postings(cls, p: "Postings", analyzer: Analyzer, params: BM25Params) -> "BM25Index":
        """Score postings: every statistic of the whole collection (N, df, avgdl, idf) is taken here,
        so postings counted apart (shards) and merged give the index built in one go."""
        n, lengths = p.n_items, p.lengths
        avgdl = float(lengths.mean()) if n else 0.0
        terms = np.repeat(np.arange(len(p.vocab)), np.diff(p.indptr))  # (P,) each posting's term
        df = np.diff(p.indptr)  # (V,) items whose body holds the term
        weights, idf = body_weights(params, df, terms, p.tf, lengths[p.items], n, avgdl)
        arrays = {"indptr": p.indptr, "items": p.items, "weights": weights,
                  "title_indptr": p.title_indptr, "title_items": p.title_items,
                  "title_weights": title_weights(params, idf, p.title_indptr),
                  "doc_lengths": lengths.astype(np.int32)}
        return cls(arrays, {t: i for i, t in enumerate(p.vocab)}, params, analyzer, avgdl)

    def search(self, query: str, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Item indices (<=k,) and scores (<=k,), best first; items scoring 0 are left out."""
        return self.search_batch([query], k)[0]

    def search_batch(self, queries: list[str], k: int, prune: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
        """`search` for many queries; prune=False reads every posting (the reference for the pruned search).
        Pruning answers the queries together (batch.py) where that was measured to pay, else one by one."""
        terms = [[self.vocab[t] for t in self.analyzer.query(q) if t in self.vocab] for q in queries]
        found = self._batched().top_k(terms, min(k, self.n_items)) if prune and self._batch_pays(len(terms), k) \
            else [None] * len(terms)
        return [f if f is not None else self._search_terms(t, k, prune) for f, t in zip(found, terms)]

    def _batched(self) -> BatchSearch:
        if self._batch is None:  # derived on first use: caps, floors and sorted keys of every list
            self._batch = BatchSearch(self.arrays, self._dense_row, self._dense)
        return self._batch

    def _batch_pays(self, n_queries: int, k: int) -> bool:
        """Whether the batched search is the faster one (measured: bench/README.md, BM25 query speed): for
        two queries or more, k up to max_k, on an index of min_items items or more."""
        return (n_queries >= 2 and 1 <= k <= BatchSearch.max_k and self.n_items >= BatchSearch.min_items
                and self._batched().usable)

    def search_concepts(self, concepts: list[dict[str, float]], k: int) -> tuple[np.ndarray, np.ndarray]:
        """`search` for a structured query (a domain's expander, text/expansion.py): each concept {term: weight} adds, per
        item, its best term's weighted score; a concept of one term at weight 1 is a plain term.
        A concept marked `adds_up` (expand.py's `Paradigm`: a verb's forms) adds every term's weighted
        score instead, each term once; the mark is read off the concept, so this module imports no expansion."""
        plain, scores = [], None
        for concept in concepts:
            known = {self.vocab[t]: w for t, w in concept.items() if t in self.vocab}
            if len(known) == 1 and next(iter(known.values())) == 1.0:
                plain += list(known)
                continue
            if getattr(concept, "adds_up", False):  # each distinct weight's terms scored in one pass
                for w in sorted(set(known.values()), reverse=True):
                    part = w * self._scores([t for t, tw in known.items() if tw == w])
                    scores = part if scores is None else scores + part
                continue
            best = np.zeros(self.n_items)  # (N,)
            for t, w in known.items():
                np.maximum(best, w * self._scores([t]), out=best)
            scores = best if scores is None else scores + best
        if plain:
            scores = self._scores(plain) if scores is None else scores + self._scores(plain)
        if scores is None or min(k, self.n_items) <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        return _top_k(scores, min(k, self.n_items))

    def _search_terms(self, terms: list[int], k: int, prune: bool = True) -> tuple[np.ndarray, np.ndarray]:
        k = min(k, self.n_items)
        if not terms or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        # MaxScore (search.py) gives the same items and scores, bit for bit, or None where it cannot pay
        found = self._pruned.top_k(terms, k) if prune else None
        return found if found is not None else _top_k(self._scores(terms), k)

    def _scores(self, terms: list[int]) -> np.ndarray:
        """(N,) float64: every item's score for the term ids (a term twice counts twice)."""
        # Scored one query at a time: an (N,) accumulator stays in cache where a (queries, N)
        # one does not (measured 4x slower on SciFact).
        a = self.arrays
        dense, bounds = self._dense_row, self._bounds
        spans = [(bounds[t], bounds[t + 1]) for t in terms if t not in dense]
        items = [a["items"][i:j] for i, j in spans]      # views, no copy until the concatenate
        weights = [a["weights"][i:j] for i, j in spans]
        if self._title_bounds is not None:
            tb = self._title_bounds
            items += [a["title_items"][tb[t]:tb[t + 1]] for t in terms]
            weights += [a["title_weights"][tb[t]:tb[t + 1]] for t in terms]
        # float64 sums; astype because bincount of nothing at all returns integers
        scores = np.bincount(np.concatenate(items) if items else np.zeros(0, dtype=np.int32),
                             weights=np.concatenate(weights) if items else None,
                             minlength=self.n_items).astype(np.float64, copy=False)  # (N,)
        for t in terms:
            if t in dense:
                scores += self._dense[dense[t]]
        return scores

    def save(self, directory) -> None:
        """index.npz (arrays), vocab.json (term -> id, sorted), params.json; same input, same bytes."""
        directory = Path(directory)
        save_npz(directory / "index.npz", **self.arrays)
        write_json(directory / "vocab.json", self.vocab)
        # written last: a directory with params.json holds a complete index
        write_json(directory / "params.json", {
            "params": asdict(self.params), "analyzer": self.analyzer.config.to_dict(),
            "n_items": self.n_items, "avgdl": self.avgdl})

    @classmethod
    def load(cls, directory) -> "BM25Index":
        """Read a saved index (unchecked against a receipt: `load_bm25` is what stages use);
        a damaged or inconsistent file raises ValueError naming it."""
        directory = Path(directory)
        meta = read_json(directory / "params.json")
        missing = [k for k in ("params", "analyzer", "n_items", "avgdl") if not isinstance(meta, dict) or k not in meta]
        if missing:
            raise ValueError(f"{directory / 'params.json'}: no {', '.join(missing)}; re-run bm25")
        arrays = load_npz(directory / "index.npz")
        absent = [k for k in ARRAYS if k not in arrays]
        if absent:
            raise ValueError(f"{directory / 'index.npz'}: no array {', '.join(absent)}; re-run bm25")
        vocab = read_json(directory / "vocab.json")
        n_terms = len(arrays["indptr"]) - 1
        if not isinstance(vocab, dict) or len(vocab) != n_terms or \
                list(vocab.values()) != list(range(n_terms)) or list(vocab) != sorted(vocab):
            raise ValueError(f"{directory / 'vocab.json'}: not the {n_terms} terms of index.npz, numbered in "
                             "sorted term order; re-run bm25")
        content.bm25_arrays(arrays, n_terms, directory / "index.npz")  # postings within bounds, weights finite
        analyzer = Analyzer(AnalyzerConfig.from_dict(meta["analyzer"]))
        index = cls(arrays, vocab, BM25Params.from_dict(meta["params"]), analyzer, meta["avgdl"])
        if index.n_items != meta["n_items"]:
            raise ValueError(f"{directory}: index.npz has {index.n_items} items, params.json says {meta['n_items']}")
        return index


ARRAYS = ("indptr", "items", "weights", "title_indptr", "title_items", "title_weights", "doc_lengths")


def load_bm25(directory: str | Path) -> BM25Index:
    """A bm25 stage's index with each of its files checked against the job's receipt."""
    for name in ("params.json", "index.npz", "vocab.json"):
        verified(Path(directory) / name, "BM25 index")
    return BM25Index.load(directory)
