"""Scoring BM25 candidates without an (N,) pass: the primitives of the pruned search (search.py).

A `CandidateScorer` holds a BM25Index's arrays (its CSR posting lists, title lists and dense
rows, bm25.py) and answers, for a sorted array of candidate items (C,):

- partial sums over some terms' lists, with the candidates they bring in: renumbered per
  candidate (`_sparse_partial`: sort, deduplicate, np.bincount over positions) or through an
  (N,) accumulator scanned once (`_dense_partial`, where N is small against the postings);
- each list's weights of the candidates, 0 where absent (`_lookup`, `_row`): a binary search
  of each candidate in the sorted list (`_search`), or one pass over a list shorter than
  `probe_ratio` times the candidates through an (N,) slot array of candidate positions;
- exact scores (`_scores`): bit for bit those of bm25.py's exhaustive `_scores`. Row j of W
  (R, C) holds the j-th list's weights of the candidates, the lists in the order np.bincount
  meets them in the exhaustive concatenation (body lists of the terms without a dense row in
  query order, then every term's title list, then dense rows in query order); np.cumsum over
  the rows adds them one after another as bincount does from 0.0 (0.0 + w is w; an absent
  list adds 0.0, which changes no sum). Other partial sums round differently: the pruning
  compares them with MARGIN's relative slack of 1e-9 (against ~1e-15 of rounding).

`best` is bm25.py's top-k rule over any candidate set (score > 0, best first, ties to the
lower item index); `list_maxima` gives per-term caps. `stats` counts postings read and
candidate look-ups (shared by threads, so approximate under concurrency; the scratch
arrays are per thread).

What this module leaves out: choosing the candidates (search.py), and any layout not
already in the index (no impact order, no per-block maxima, no item -> terms copy).
"""

from __future__ import annotations

import math
import threading

import numpy as np

MARGIN = 1 + 1e-9  # bound sums are float sums too: a relative slack keeps rounding on the safe side


def list_maxima(indptr: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(V,) float64: the largest weight of each list of a CSR layout, 0 for an empty list."""
    out = np.zeros(len(indptr) - 1)
    full = np.flatnonzero(np.diff(indptr) > 0)  # reduceat misreads empty segments: skip them
    if len(full):
        out[full] = np.maximum.reduceat(weights, indptr[full])
    return out


class CandidateScorer:
    """Partial and exact scores of candidate items over a BM25Index's arrays (module docstring).

    The ratios and sizes below trade one numpy pass for another (bench/bm25_speed.py); none
    of them changes a result."""

    probe_ratio = 8       # a list up to this many times the candidates is read whole, not searched
    scatter_ratio = 16    # postings summed in an (N,) array when N is at most this many times their number
    read_size = 1024      # a list this short is read whole rather than searched whatever the candidates

    def __init__(self, arrays: dict[str, np.ndarray], dense_row: dict[int, int], dense: np.ndarray,
                 bounds: list[int] | None = None, title_bounds: list[int] | None = None):
        """arrays, dense_row and dense as BM25Index holds them; bounds and title_bounds: its
        indptr and title_indptr as lists, if it has them already (they are V + 1 ints)."""
        self.items, self.weights = arrays["items"], arrays["weights"]  # (P,) int32, float32
        self.n_items = len(arrays["doc_lengths"])
        self.bounds = bounds if bounds is not None else arrays["indptr"].tolist()
        self.dense_row, self.dense = dense_row, dense
        bound = list_maxima(arrays["indptr"], self.weights)  # (V,) float64
        self.title = len(arrays["title_items"]) > 0
        if self.title:
            self.t_items, self.t_weights = arrays["title_items"], arrays["title_weights"]
            self.t_bounds = title_bounds if title_bounds is not None else arrays["title_indptr"].tolist()
            bound += list_maxima(arrays["title_indptr"], self.t_weights)
        self.bound = bound.tolist()  # Python floats: summed over query terms one at a time
        low = -list_maxima(arrays["indptr"], -self.weights)  # (V,) each list's least weight, 0 if empty
        if self.title:
            t_low = -list_maxima(arrays["title_indptr"], -self.t_weights)
            low = np.where((t_low > 0) & ((low <= 0) | (t_low < low)), t_low, low)
        self.low = np.where(low > 0, low, np.inf).tolist()  # (V,) for `order_free`
        self.negative = bool((len(self.weights) and self.weights.min() < 0)
                             or (self.title and self.t_weights.min() < 0))
        self._local = threading.local()  # each thread's (N,) scratch of candidate positions
        self.stats = {"queries": 0, "pruned": 0, "dense": 0, "postings": 0, "lookups": 0}

    def order_free(self, terms: list[int], caps: float) -> bool:
        """Whether any order of adding the query's weights gives the same float64 sums: every weight is
        a float32 w >= m (the least of the query's lists), so a multiple of 2^(floor(log2 m) - 23), and
        so is every partial sum, up to caps (the sum of the terms' caps, repeats counted); below 2^53
        times that quantum each is a float64 exactly, and every addition is exact."""
        low = min(self.low[t] for t in terms)
        return low < math.inf and caps < math.ldexp(1.0, math.frexp(low)[1] + 29)

    def _size(self, t: int) -> int:
        """Postings of term t's body and title lists (N for a dense row)."""
        n = self.n_items if t in self.dense_row else self.bounds[t + 1] - self.bounds[t]
        return n + (self.t_bounds[t + 1] - self.t_bounds[t] if self.title else 0)

    def _lists(self, t: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Term t's posting lists as views: its body list (none if it has a dense row), its title list."""
        out = []
        if t not in self.dense_row:
            i, j = self.bounds[t], self.bounds[t + 1]
            out.append((self.items[i:j], self.weights[i:j]))
        if self.title:
            i, j = self.t_bounds[t], self.t_bounds[t + 1]
            out.append((self.t_items[i:j], self.t_weights[i:j]))
        return out

    def _sparse_partial(self, terms: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """(C,) ascending items of the terms' lists and (C,) their sums over those lists."""
        parts = [lst for t in terms for lst in self._lists(t)]
        if len(parts) == 1:  # one list: its items are the candidates already
            self.stats["postings"] += len(parts[0][0])
            return parts[0][0], parts[0][1].astype(np.float64)
        items = np.concatenate([i for i, _ in parts]) if parts else np.zeros(0, dtype=np.int32)  # (P,)
        weights = np.concatenate([w for _, w in parts]) if parts else np.zeros(0, dtype=np.float32)
        self.stats["postings"] += len(items)
        if self.n_items <= self.scatter_ratio * len(items):  # an (N,) sum and scan beat sorting the items
            sums = np.bincount(items, weights, minlength=self.n_items)  # (N,) float64
            cands = np.flatnonzero(sums > 0)  # weights are positive here (`usable`)
            return cands, sums[cands]
        x = np.sort(items)
        keep = np.ones(len(x), dtype=bool)
        np.not_equal(x[1:], x[:-1], out=keep[1:])
        cands = x[keep]  # (C,)
        slot = self._slots()
        slot[cands] = np.arange(len(cands), dtype=np.int32)
        partial = np.bincount(slot[items], weights, minlength=len(cands))  # (C,) float64
        slot[cands] = -1
        return cands, partial

    def _dense_partial(self, terms: list[int], rest: float, theta: float) -> tuple[np.ndarray, np.ndarray]:
        """Like _sparse_partial through an (N,) accumulator, keeping only the items that the
        skipped terms' bounds (rest) could lift to theta."""
        parts = [lst for t in terms for lst in self._lists(t)]
        items = np.concatenate([i for i, _ in parts]) if parts else np.zeros(0, dtype=np.int32)
        self.stats["postings"] += len(items)
        sums = np.bincount(items, np.concatenate([w for _, w in parts]) if parts else None,
                          minlength=self.n_items).astype(np.float64, copy=False)  # (N,)
        rows = [self.dense_row[t] for t in terms if t in self.dense_row]
        for r in rows:
            sums += self.dense[r]
            self.stats["postings"] += self.n_items
        # (sums + rest) * MARGIN >= theta, one comparison; MARGIN's slack dwarfs this rounding
        floor = theta / MARGIN - rest if theta > 0 else 0.0
        if rows or self.n_items <= self.scatter_ratio * len(items):  # a scan of N beats gathering the items
            cands = np.flatnonzero(sums > floor) if floor <= 0 else np.flatnonzero(sums >= floor)
            return cands, sums[cands]
        # else only the items of the lists can pass: look at those (far fewer than N), sort the few that pass
        passed = items[sums[items] > floor] if floor <= 0 else items[sums[items] >= floor]  # (M,) repeats
        passed.sort()
        keep = np.ones(len(passed), dtype=bool)
        np.not_equal(passed[1:], passed[:-1], out=keep[1:])
        cands = passed[keep]
        return cands, sums[cands]

    def _lookup(self, t: int, cands: np.ndarray) -> dict[tuple[str, int], np.ndarray]:
        """Term t's lists' weights in the candidates (ascending): {(kind, t): (C,) float64, 0
        where absent}, kind "body", "title" or "dense" (the row replacing a frequent term's list)."""
        out = {}
        if t in self.dense_row:
            self.stats["lookups"] += len(cands)
            out["dense", t] = self.dense[self.dense_row[t], cands].astype(np.float64)
        else:
            out["body", t] = self._row(self.items, self.weights, self.bounds, t, cands)
        if self.title:
            out["title", t] = self._row(self.t_items, self.t_weights, self.t_bounds, t, cands)
        return out

    def _scores(self, terms: list[int], cands: np.ndarray, known: dict | None = None) -> np.ndarray:
        """(C,) float64: the candidates' (ascending) scores, bit for bit the exhaustive search's.
        known: {(kind, t): (base, row)} rows already looked up for a superset `base` of cands.

        Row j of W holds the j-th list's weights of the candidates (0 where absent), the
        lists in the exhaustive search's order: body lists in query order, title lists,
        dense rows. np.cumsum adds the rows one after the other, as np.bincount adds an
        item's weights along the concatenated lists, and x + 0.0 == x."""
        known = known or {}
        seq = [("body", t) for t in terms if t not in self.dense_row]
        if self.title:
            seq += [("title", t) for t in terms]
        seq += [("dense", t) for t in terms if t in self.dense_row]
        w = np.zeros((len(seq), len(cands)))  # (R, C)
        if not len(cands) or not len(seq):
            return np.zeros(len(cands))
        short, limit = [], max(self.probe_ratio * len(cands), self.read_size)
        for r, (kind, t) in enumerate(seq):
            if (kind, t) in known:
                base, row = known[kind, t]
                w[r] = row if base is cands else row[np.searchsorted(base, cands)]
            elif kind == "dense":
                self.stats["lookups"] += len(cands)
                w[r] = self.dense[self.dense_row[t], cands]
            else:
                items, weights, bounds = ((self.items, self.weights, self.bounds) if kind == "body"
                                          else (self.t_items, self.t_weights, self.t_bounds))
                i, j = bounds[t], bounds[t + 1]
                if j - i <= limit:
                    short.append((r, items[i:j], weights[i:j]))
                else:
                    w[r] = self._search(items[i:j], weights[i:j], cands)
        if short:  # the short lists read whole, all at once: a slot says which postings are candidates
            its = np.concatenate([x for _, x, _ in short])  # (L,)
            self.stats["postings"] += len(its)
            rows = np.repeat([r for r, _, _ in short], [len(x) for _, x, _ in short])  # (L,)
            slot = self._slots()
            slot[cands] = np.arange(len(cands), dtype=np.int32)
            at = slot[its]  # (L,) candidate position or -1
            slot[cands] = -1
            hit = at >= 0
            w[rows[hit], at[hit]] = np.concatenate([x for _, _, x in short])[hit]
        return np.cumsum(w, axis=0)[-1]

    def _row(self, items, weights, bounds, t: int, cands: np.ndarray) -> np.ndarray:
        """(C,) float64: list t's weights of the candidates (ascending), 0 where absent."""
        i, j = bounds[t], bounds[t + 1]
        if j - i > max(self.probe_ratio * len(cands), self.read_size):
            return self._search(items[i:j], weights[i:j], cands)
        self.stats["postings"] += j - i  # read the list: a slot says which postings are candidates
        out = np.zeros(len(cands))
        slot = self._slots()
        slot[cands] = np.arange(len(cands), dtype=np.int32)
        at = slot[items[i:j]]  # (L,) candidate position or -1
        slot[cands] = -1
        hit = at >= 0
        out[at[hit]] = weights[i:j][hit]
        return out

    def _search(self, items: np.ndarray, weights: np.ndarray, cands: np.ndarray) -> np.ndarray:
        """(C,) float64: binary-search each candidate (ascending) in one list."""
        self.stats["lookups"] += len(cands)
        at = np.searchsorted(items, cands)  # (C,) clipped below: past the end is a miss
        return np.where(items.take(at, mode="clip") == cands, weights.take(at, mode="clip"), 0).astype(np.float64)

    def _slots(self) -> np.ndarray:
        """(N,) int32, -1 everywhere: each thread's own, so concurrent searches do not mix."""
        slot = getattr(self._local, "slot", None)
        if slot is None:
            slot = self._local.slot = np.full(self.n_items, -1, dtype=np.int32)
        return slot


def kth(values: np.ndarray, k: int) -> float:
    """The k-th largest of values (C,), 0 when there are fewer than k."""
    n = len(values)
    return float(np.partition(values, n - k)[n - k]) if n >= k else 0.0


def best(items: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k best of items (C,) with scores (C,): score > 0, best first, ties to the lower item,
    as bm25.py's `_top_k` orders all N."""
    keep = scores > 0
    items, scores = items[keep], scores[keep]  # (H,)
    if len(scores) > k:
        kth = np.partition(scores, len(scores) - k)[len(scores) - k]
        keep = scores >= kth  # every item tied with the k-th score stays, for the tie rule
        items, scores = items[keep], scores[keep]
    order = np.lexsort((items, -scores))[:k]
    return items[order].astype(np.int64), scores[order]
