"""Postings: what a BM25 index is scored from, counted before any statistic of the whole collection.

Texts are analysed into terms; the vocabulary is numbered in sorted term order; each term's
postings are the (item, tf) pairs of the items whose body holds it, in a CSR layout (items
ascending within a term), plus the items whose title holds it (presence only) and every
item's length. `BM25Index.from_postings` (bm25.py) takes N, df, avgdl and IDF from these and
scores them; shards count their own postings and shards.py merges them exactly.

What it leaves out: scoring, saving and searching (bm25.py).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from itertools import repeat
from typing import Iterable, Sequence

import numpy as np

from ...text.analyze import Analyzer


def _term_ids(token_lists: list[list[str]]) -> tuple[dict[str, int], list[np.ndarray]]:
    """Vocabulary with ids in sorted term order, and each token list as an id array."""
    first_seen: dict[str, int] = {}
    provisional = [np.fromiter((first_seen.setdefault(t, len(first_seen)) for t in toks),
                               dtype=np.int64, count=len(toks)) for toks in token_lists]
    terms = sorted(first_seen)
    remap = np.empty(len(terms), dtype=np.int64)  # (V,) first-seen id -> sorted id
    remap[[first_seen[t] for t in terms]] = np.arange(len(terms))
    return {t: i for i, t in enumerate(terms)}, [remap[ids] for ids in provisional]


def _flat(arrays: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)


def _csr(term_ids: np.ndarray, item_ids: np.ndarray, n_terms: int, n_items: int):
    """Distinct (term, item) pairs sorted by term then item, their counts, and the term indptr.

    Consumes `term_ids` (int64: it becomes the sort keys, sorted in place) so that the largest
    array is held once: a shard of tens of millions of tokens stays within a few bytes per token."""
    keys = term_ids
    keys *= n_items
    keys += item_ids                                                # (T,) term * N + item
    keys.sort()
    first = np.ones(len(keys), dtype=bool)                          # (T,) first of its run
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    starts = np.flatnonzero(first)                                  # (P,)
    del first
    counts = np.diff(np.append(starts, len(keys)))                  # (P,)
    terms, items = np.divmod(keys[starts], n_items)
    indptr = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(np.bincount(terms, minlength=n_terms), out=indptr[1:])
    return indptr, terms, items.astype(np.int32), counts


@dataclass
class Postings:
    """What an index is scored from, before any statistic of the whole collection: the sorted
    vocabulary, each term's (item, tf) postings in CSR form, the title terms' items, the
    items' lengths. A shard's postings are counted alone and merged exactly (shards.py)."""
    vocab: list[str]          # (V,) sorted; term id = position
    indptr: np.ndarray        # (V+1,) int64: term t's postings are [indptr[t], indptr[t+1])
    items: np.ndarray         # (P,) int32, ascending within a term
    tf: np.ndarray            # (P,) int64 occurrences of the term in the item's body
    title_indptr: np.ndarray  # (V+1,) int64, likewise for the title field (presence)
    title_items: np.ndarray   # (Q,) int32
    lengths: np.ndarray       # (N,) int64 body tokens per item

    @property
    def n_items(self) -> int:
        return len(self.lengths)

    @classmethod
    def build(cls, texts: Sequence[str], analyzer: Analyzer, titles: Sequence[str] | None = None) -> "Postings":
        """Postings of texts[i] as item i; with titles (the title field is on), titles[i] is item i's."""
        if titles is not None and len(titles) != len(texts):
            raise ValueError(f"{len(titles)} titles for {len(texts)} texts")
        return cls.count(zip(texts, titles if titles is not None else repeat("")), analyzer, titles is not None)

    @classmethod
    def count(cls, items: Iterable[tuple[str, str]], analyzer: Analyzer, with_titles: bool = False) -> "Postings":
        """Postings of (text, title) pairs, item by item: a token is held as an int32 id, never
        as a string, so memory grows with the tokens' count (4 bytes each), not their text."""
        first_seen: dict[str, int] = {}  # term -> provisional id, renumbered in sorted order at the end
        body, lengths = array("i"), array("q")
        title_ids, title_lengths = array("i"), array("q")
        title_seen: dict[str, array] = {}  # many chunks share one title: analyze it once
        for text, title in items:
            before = len(body)
            body.extend(first_seen.setdefault(t, len(first_seen)) for t in analyzer(text))
            lengths.append(len(body) - before)
            if with_titles:
                ids = title_seen.get(title)
                if ids is None:
                    ids = title_seen[title] = array("i", (first_seen.setdefault(t, len(first_seen))
                                                          for t in analyzer(title)))
                title_ids.extend(ids)
                title_lengths.append(len(ids))
        terms = sorted(first_seen)
        remap = np.empty(len(terms), dtype=np.int64)  # (V,) provisional id -> sorted id
        remap[[first_seen[t] for t in terms]] = np.arange(len(terms))
        n = len(lengths)
        lengths_a = np.frombuffer(lengths, dtype=np.int64).copy()  # (N,)
        del first_seen
        indptr, _, items_a, tf = _csr(remap[np.frombuffer(body, dtype=np.int32)],
                                      np.repeat(np.arange(n, dtype=np.int32), lengths_a), len(terms), n)
        del body
        if with_titles:
            t_items = np.repeat(np.arange(n, dtype=np.int32), np.frombuffer(title_lengths, dtype=np.int64))
            t_indptr, _, t_items, _ = _csr(remap[np.frombuffer(title_ids, dtype=np.int32)], t_items, len(terms), n)
        else:
            t_indptr, t_items = np.zeros(len(terms) + 1, dtype=np.int64), np.zeros(0, dtype=np.int32)
        return cls(terms, indptr, items_a, tf, t_indptr, t_items, lengths_a)

    @classmethod
    def from_tokens(cls, tokens: list[list[str]], title_tokens: list[list[str]] | None = None) -> "Postings":
        n = len(tokens)
        use_titles = title_tokens is not None
        if use_titles and len(title_tokens) != n:
            raise ValueError(f"{len(title_tokens)} titles for {n} items")
        vocab, ids = _term_ids(tokens + (title_tokens if use_titles else []))
        lengths = np.array([len(t) for t in tokens], dtype=np.int64)  # (N,)
        item_ids = np.repeat(np.arange(n), lengths)  # (T,) every token's item
        indptr, _, items, tf = _csr(_flat(ids[:n]), item_ids, len(vocab), n)
        if use_titles:
            t_items = np.repeat(np.arange(n), [len(t) for t in ids[n:]])
            t_indptr, _, t_items, _ = _csr(_flat(ids[n:]), t_items, len(vocab), n)
        else:
            t_indptr, t_items = np.zeros(len(vocab) + 1, dtype=np.int64), np.zeros(0, dtype=np.int32)
        return cls(list(vocab), indptr, items, tf, t_indptr, t_items, lengths)
