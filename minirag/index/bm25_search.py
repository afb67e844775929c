"""Exact top-k BM25 search that skips postings: MaxScore, vectorised over candidate sets.

The exhaustive search (bm25.py `_scores` + `_top_k`) sums every posting of every query term
into an (N,) accumulator and ranks all N scores. Most of that is wasted on a query whose
best items share its rare terms. MaxScore (H. Turtle and J. Flood, "Query evaluation:
strategies and optimizations", Information Processing & Management 31(6), 1995) proves most
items cannot make the top k: given an upper bound on what each term can add to a score (its
cap: the largest weight in its list plus its largest title weight, times its repeats in the
query), terms whose caps sum to less than a score already reached by k items cannot lift an
item that has none of the other terms into the top k. Here, per query:

1. head: the terms of largest cap (the rarest, mostly), as many as fit in `sparse_share` of
   N postings (the first up to `essential_share`), are summed per item of their lists.
   These partial sums are lower bounds of the full scores, so their k-th largest, theta,
   is a score the k-th best item reaches (divided by MARGIN against the rounding of sums).
   Where it does not yet settle step 2, theta is raised with the 2k best head items'
   weights in the `boost` largest-cap other terms (binary searches of 2k items).
2. split: the other terms in ascending cap; the longest prefix whose caps sum strictly
   below theta are non-essential: an item holding only them scores below theta. If some
   remain essential, the candidates are the items of the head and essential lists, summed
   per item (sorted and deduplicated, or through an (N,) accumulator above
   `essential_share` of N postings); an item outside them cannot reach the top k.
3. narrow: the non-essential terms in descending cap are looked up for the candidates (a
   binary search of each candidate in the sorted list, or one pass over a list that is
   shorter than `probe_ratio` times the candidates); before each, theta rises to the k-th
   best partial sum and the candidates whose sum plus the caps still to come falls short
   of it are dropped, until at most `exact_size` (or 2k) remain.
4. exact: the survivors' full scores (reusing step 3's lookups), then `best`, bm25.py's
   top-k rule: score > 0, best first, ties to the lower item index.

Scores are bit for bit the exhaustive ones: step 4 lays out, per candidate, the float32
weights of every list in the order `np.bincount` meets them in the exhaustive search's
concatenation (body lists in query order, then title lists, then dense rows), and np.cumsum
adds them one after another as bincount does from 0.0 (0.0 + w is w, and an absent term
adds 0.0, which changes no sum).
Steps 1-3 only choose candidates; their float sums may round differently, which MARGIN's
relative slack of 1e-9 (against ~1e-15 of rounding) covers: a candidate is dropped only when
it falls short by more than any rounding could explain. Where pruning cannot pay -- an index
under `min_items` (measured: the exhaustive search is faster below ~4e4 items), a query whose
rarest term is in more than `essential_share` of the items, or one with no term to skip and
more essential postings than that -- or cannot be proven (a negative weight, which the
robertson variant's IDF floor can give), `top_k` returns None and the caller runs the
exhaustive search.

`stats` counts queries, those pruned, those that needed the (N,) accumulator, postings read
and candidate look-ups (shared by threads: approximate under concurrency; the scratch arrays
are per thread).

What this module leaves out: document-at-a-time traversal with a heap and skips within lists
(WAND, block-max WAND: a loop over postings, which numpy cannot run), impact-ordered or
block-max indexes (nothing is added to the saved index: the caps are derived at load), and
pruning of structured (concept) queries, which stay exhaustive in bm25.py.
"""

from __future__ import annotations

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


class PrunedSearch:
    """MaxScore top-k over a BM25Index's arrays (the index builds one; see the module docstring).

    The shares, ratios and sizes below trade one numpy pass for another; they were set by
    timing the SciFact replica and the synthetic corpus at 10^5 items (bench/bm25_speed.py),
    where they move the time by about 10 %. None of them changes a result."""

    min_items = 50_000    # below this the exhaustive search is faster (x0.72 at 3e4, x1.1-1.2 at 5e4: bench/README.md)
    sparse_share = 0.02   # head postings: at most this share of N
    probe_ratio = 8       # a list up to this many times the candidates is read whole, not searched
    scatter_ratio = 16    # postings summed in an (N,) array when N is at most this many times their number
    essential_share = 0.05  # essential postings beyond this share of N are summed in an (N,) array
    boost = 2             # tail terms looked up for the head's best items to raise theta
    exact_size = 32       # candidates few enough to score exactly on every term (or 2k if more)
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
        negative = (len(self.weights) and self.weights.min() < 0) or (self.title and self.t_weights.min() < 0)
        self.usable = self.n_items >= self.min_items and not negative
        self._local = threading.local()  # each thread's (N,) scratch of candidate positions
        self.stats = {"queries": 0, "pruned": 0, "dense": 0, "postings": 0, "lookups": 0}

    # ---------------------------------------------------------------- the search

    def top_k(self, terms: list[int], k: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The exhaustive search's (items, scores) for term ids (repeats count) and k >= 1,
        or None where pruning cannot pay."""
        self.stats["queries"] += 1
        if not self.usable or not terms:
            return None
        size = {t: self._size(t) for t in terms}
        cap = {t: terms.count(t) * self.bound[t] for t in size}  # what a term can add, each repeat counted
        head = self._head(size, cap)
        if not head:
            return None  # even the rarest term is in essential_share of the items: nothing to skip
        cands, partial = self._sparse_partial([t for t in terms if t in head])  # (C,) repeats count
        theta = kth(partial, k) / MARGIN  # partial sums are lower bounds of scores (and may round up)
        tail = sorted((t for t in size if t not in head), key=cap.get)  # distinct terms, ascending cap
        cut = self._below(tail, cap, theta)
        if cut < len(tail):  # a better theta may leave out more: the head's best items on more terms
            theta = self._raise(terms, tail, cands, partial, theta, k)
            cut = self._below(tail, cap, theta)
        if cut < len(tail):  # some tail terms can still bring in items of their own: read them too
            essential = [t for t in terms if t not in tail[:cut]]
            if not cut and sum(size[t] for t in essential) > self.essential_share * self.n_items:
                return None  # every posting is read: the exhaustive search does it in fewer steps
            if sum(size[t] for t in essential) <= self.essential_share * self.n_items:
                cands, partial = self._sparse_partial(essential)
            else:
                self.stats["dense"] += 1
                cands, partial = self._dense_partial(essential, sum(cap[t] for t in tail[:cut]), theta)
        top, known = max(self.exact_size, 2 * k), {}
        for i in range(cut, 0, -1):  # the largest caps first: they narrow the candidates most
            rest = sum(cap[t] for t in tail[:i])  # what the terms not yet added can add at most
            cands, partial, theta = self._narrow(cands, partial, rest, theta, k)
            if len(cands) <= top:  # few enough to score exactly on every term at once
                break
            rows = self._lookup(tail[i - 1], cands)  # kept: the exact scores reuse them
            known.update((key, (cands, row)) for key, row in rows.items())
            partial = partial + terms.count(tail[i - 1]) * sum(rows.values())
        else:
            cands, partial, theta = self._narrow(cands, partial, 0.0, theta, k)
        self.stats["pruned"] += 1
        return best(cands, self._scores(terms, cands, known), k)

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

    def _raise(self, terms, tail, cands, partial, theta: float, k: int) -> float:
        """theta from the 2k best head items with the `boost` largest-cap tail terms added:
        still partial sums, so still lower bounds of their full scores."""
        if len(cands) > 2 * k:
            top = np.sort(np.argpartition(partial, len(cands) - 2 * k)[len(cands) - 2 * k:])
            cands, partial = cands[top], partial[top]  # (2k,)
        for t in tail[::-1][:self.boost]:
            partial = partial + terms.count(t) * sum(self._lookup(t, cands).values())
        return max(theta, kth(partial, k) / MARGIN)

    def _head(self, size: dict[int, int], cap: dict[int, float]) -> set[int]:
        """The terms of largest cap (the rarest, mostly) whose lists, up to sparse_share of the
        items in all, are summed first (the first up to essential_share): their items' partial
        sums set theta."""
        head, total = set(), 0
        for t in sorted(size, key=cap.get, reverse=True):
            limit = (self.sparse_share if head else self.essential_share) * self.n_items
            if t in self.dense_row or total + size[t] > limit:
                break
            head.add(t)
            total += size[t]
        return head

    @staticmethod
    def _below(ranked: list[int], cap: dict[int, float], theta: float) -> int:
        """How many of the terms, in ascending cap, can be left out of the candidates: the
        longest prefix whose caps sum strictly below theta, so that an item holding none of
        the others cannot reach the k-th best score."""
        total, cut = 0.0, 0
        for t in ranked:
            total += cap[t]
            if total * MARGIN >= theta:
                break
            cut += 1
        return cut

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
            acc = np.bincount(items, weights, minlength=self.n_items)  # (N,) float64
            cands = np.flatnonzero(acc > 0)  # weights are positive here (`usable`)
            return cands, acc[cands]
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
        acc = np.bincount(items, np.concatenate([w for _, w in parts]) if parts else None,
                          minlength=self.n_items).astype(np.float64, copy=False)  # (N,)
        rows = [self.dense_row[t] for t in terms if t in self.dense_row]
        for r in rows:
            acc += self.dense[r]
            self.stats["postings"] += self.n_items
        # (acc + rest) * MARGIN >= theta, one comparison; MARGIN's slack dwarfs this rounding
        floor = theta / MARGIN - rest if theta > 0 else 0.0
        if rows or self.n_items <= self.scatter_ratio * len(items):  # a scan of N beats gathering the items
            cands = np.flatnonzero(acc > floor) if floor <= 0 else np.flatnonzero(acc >= floor)
            return cands, acc[cands]
        # else only the items of the lists can pass: look at those (far fewer than N), sort the few that pass
        passed = items[acc[items] > floor] if floor <= 0 else items[acc[items] >= floor]  # (M,) repeats
        passed.sort()
        keep = np.ones(len(passed), dtype=bool)
        np.not_equal(passed[1:], passed[:-1], out=keep[1:])
        cands = passed[keep]
        return cands, acc[cands]

    def _narrow(self, cands, partial, rest: float, theta: float, k: int):
        """Raise theta to the k-th best partial sum (a lower bound of a full score), then keep
        the candidates whose partial sum plus rest can still reach it."""
        theta = max(theta, kth(partial, k) / MARGIN)
        if theta > 0:
            keep = (partial + rest) * MARGIN >= theta
            cands, partial = cands[keep], partial[keep]
        return cands, partial, theta

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

    # ---------------------------------------------------------------- exact scores of candidates

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
