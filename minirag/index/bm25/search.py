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
   top-k rule: score > 0, best first, ties to the lower item index. Where the query's sums
   are the same in any order of adding (`order_free`, the bound batch.py's docstring
   proves), the partial sums are completed with the terms not added yet instead.

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

The candidate-set primitives (partial sums, look-ups, exact scores in the exhaustive order,
the top-k rule) are candidates.py's. `stats` counts queries, those pruned, those that
needed the (N,) accumulator, postings read and candidate look-ups (shared by threads:
approximate under concurrency; the scratch arrays are per thread).

What this module leaves out: document-at-a-time traversal with a heap and skips within lists
(WAND, block-max WAND: a loop over postings, which numpy cannot run), impact-ordered or
block-max indexes (nothing is added to the saved index: the caps are derived at load), and
pruning of structured (concept) queries, which stay exhaustive in bm25.py.
"""

from __future__ import annotations

import numpy as np

from .candidates import MARGIN, CandidateScorer, best, kth


class PrunedSearch(CandidateScorer):
    """MaxScore top-k over a BM25Index's arrays (the index builds one; see the module docstring).

    The shares and sizes below trade one numpy pass for another; they were set by timing the
    SciFact replica and the synthetic corpus at 10^5 items (bench/bm25_speed.py), where they
    move the time by about 10 %. None of them changes a result."""

    min_items = 50_000    # below this the exhaustive search is faster (x0.72 at 3e4, x1.1-1.2 at 5e4: bench/README.md)
    sparse_share = 0.02   # head postings: at most this share of N
    essential_share = 0.05  # essential postings beyond this share of N are summed in an (N,) array
    boost = 2             # tail terms looked up for the head's best items to raise theta
    exact_size = 32       # candidates few enough to score exactly on every term (or 2k if more)

    def __init__(self, *args, **kwargs):
        """As CandidateScorer; pruning is on for min_items items or more without a negative weight."""
        super().__init__(*args, **kwargs)
        self.usable = self.n_items >= self.min_items and not self.negative

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
        top, known, i = max(self.exact_size, 2 * k), {}, cut
        for i in range(cut, 0, -1):  # the largest caps first: they narrow the candidates most
            rest = sum(cap[t] for t in tail[:i])  # what the terms not yet added can add at most
            cands, partial, theta = self._narrow(cands, partial, rest, theta, k)
            if len(cands) <= top:  # few enough to score exactly on every term at once
                break
            rows = self._lookup(tail[i - 1], cands)  # kept: the exact scores reuse them
            known.update((key, (cands, row)) for key, row in rows.items())
            partial = partial + terms.count(tail[i - 1]) * sum(rows.values())
        else:
            cands, partial, theta, i = *self._narrow(cands, partial, 0.0, theta, k), 0
        self.stats["pruned"] += 1
        if self.order_free(terms, sum(cap.values())):  # the partial sums are the scores, bit for bit
            for t in tail[:i]:  # but for the terms not added yet
                partial = partial + terms.count(t) * sum(self._lookup(t, cands).values())
            return best(cands, partial, k)
        return best(cands, self._scores(terms, cands, known), k)

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

    def _narrow(self, cands, partial, rest: float, theta: float, k: int):
        """Raise theta to the k-th best partial sum (a lower bound of a full score), then keep
        the candidates whose partial sum plus rest can still reach it."""
        theta = max(theta, kth(partial, k) / MARGIN)
        if theta > 0:
            keep = (partial + rest) * MARGIN >= theta
            cands, partial = cands[keep], partial[keep]
        return cands, partial, theta
