"""Exact top-k BM25 for a batch of queries at once: MaxScore's skipping, run on flat arrays over all queries.

The retrieve stage asks for every question's top k in one call. Looping over the queries costs each of them
the Python of MaxScore (search.py) or an (N,) pass of the exhaustive search (bm25.py); here each step
is one numpy pass over the whole block's (query, list) pairs, postings or candidates:

1. terms: each query's distinct terms with their repeats (a term twice adds its weight twice).
2. theta: the head -- each query's rarest lists, up to `head_share` of N postings -- is summed per (query,
   item); the k items of best head sum get their full scores (each other list looked up); the k-th largest
   full score, theta, is one that k items reach, so the k-th best score is at least theta.
3. essential: a query's lists in ascending cap (the largest weight of the list, times the term's repeats);
   the longest prefix whose caps sum below theta cannot lift an item holding none of the other lists to
   theta. The other lists (essential) are summed per (query, item), the candidates (where the head holds
   them all, the head's sums are reused).
4. narrow and exact: round by round, each query's largest-cap list not summed is looked up for its
   candidates, and those whose sum plus the caps still to come stays below theta are dropped; then
   bm25.py's top-k rule over the full scores: score > 0, best first, ties to the lower item index.

Sums in any order are exact here, so the scores are bit for bit the exhaustive search's. Every weight is a
float32 w >= m > 0 (m the smallest weight of the query's lists), so a multiple of q = 2^(floor(log2 m) - 23);
every partial sum of the query's weights is a multiple of q no larger than the sum of its caps S. When
S < 2^53 q, each partial sum is a float64 exactly, every float64 addition is exact, and any order of
adding gives the same bits as np.bincount's. A query outside that bound, with a term in half the items or
more among its essential lists, or with more than `essential_share` of N essential postings is not
answered here (None): the caller's search answers it. (A head of fewer than k items gives theta 0: every
list is essential.)

Per (query, item) sums come from one sort of int64 words (query * N + item) << 32 | the float32 bits of
the weight, and np.add.reduceat over the runs of equal keys; `block` queries at a time keep query * N +
item below 2^31. A list's weight for given items is a binary search of the sorted needles in the sorted
(term * N + item) keys of all postings (built on first use; P int64), or a read of a dense row. Measured
against looping (bench/README.md, BM25 query speed): it pays from ~10^4 items on (`min_items`).

What this module leaves out: title fields, negative weights and indexes of more than `max_postings`
postings (the caller's search answers those: `usable`), and structured (concept) queries.
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from .candidates import list_maxima


class BatchSearch:
    """Batched exact top-k over a BM25Index's arrays (module docstring); `top_k` answers what it can."""

    head_share = 0.005      # head postings per query: at most this share of N (at least the rarest list)
    essential_share = 0.05  # a query with more essential postings than this share of N is left to the caller
    min_items = 10_000      # below, one query at a time is faster (SciFact's 5,183: x0.8; 10^4 synthetic: x1.2)
    max_k = 1000            # deeper top k (units read whole rankings) are left to the caller
    max_postings = 1 << 25  # above, the sorted keys (8 bytes a posting) are not spent: one by one instead
    max_block = 256         # queries answered together (their postings are held at once; < 2^8 for _best_k)

    def __init__(self, arrays: dict[str, np.ndarray], dense_row: dict[int, int], dense: np.ndarray):
        self.items, self.weights, self.indptr = arrays["items"], arrays["weights"], arrays["indptr"]
        self.n = n = len(arrays["doc_lengths"])
        n_terms = len(self.indptr) - 1
        self.size = np.diff(self.indptr)  # (V,)
        self.cap = list_maxima(self.indptr, self.weights)  # (V,) float64
        self.low = -list_maxima(self.indptr, -self.weights)  # (V,) smallest weight of each list (0 if empty)
        self.row = np.full(n_terms, -1, dtype=np.int64)  # (V,) dense row of a frequent term, else -1
        self.row[list(dense_row)] = list(dense_row.values())
        self.dense = dense
        self.usable = (n > 0 and len(arrays["title_items"]) == 0 and len(self.items) <= self.max_postings
                       and not (len(self.weights) and self.weights.min() <= 0))
        self.block = max(1, min(self.max_block, (1 << 31) // max(n, 1)))  # query * N + item < 2^31
        self._keys = None
        self.stats = {"queries": 0, "answered": 0}  # shared by threads: approximate under concurrency

    def top_k(self, queries: list[list[int]], k: int) -> list[tuple[np.ndarray, np.ndarray] | None]:
        """Per query (term ids, repeats count; k >= 1): the exhaustive search's (items, scores), or None."""
        out: list = []
        for start in range(0, len(queries), self.block):
            out += self._block(queries[start:start + self.block], k)
        self.stats["queries"] += len(queries)
        self.stats["answered"] += sum(r is not None for r in out)
        return out

    # -- one block of queries --
    def _block(self, queries: list[list[int]], k: int) -> list:
        q, t, mult = self._terms(queries)  # (L,) per (query, distinct term), sorted by query
        b = len(queries)
        cap = mult * self.cap[t]  # (L,) what the list can add, repeats counted
        ok = self._exact(q, t, cap, b)  # (b,)
        head = self._head(q, t, b)
        hq, hi, hw = self._postings(q[head], t[head], mult[head])
        cq, ci, partial = self._sum(hq, hi, hw)  # (C,) per (query, item) of the head
        pick = self._best_k(cq, partial, k)  # k candidates of best head sum per query
        full = partial[pick] + self._lookup(cq[pick], ci[pick], q[~head], t[~head], mult[~head])
        theta = self._kth(cq[pick], full, b, k)
        # essential lists: all but the longest prefix, in ascending cap, whose caps sum below theta
        order = np.lexsort((cap, q))
        q, t, mult, cap, head = q[order], t[order], mult[order], cap[order], head[order]
        pos = np.arange(len(q)) - np.searchsorted(q, q)  # (L,) place within its query
        grid = np.zeros((b, int(pos.max(initial=-1)) + 1))  # (b, most lists): a row's sums stay exact
        grid[q, pos] = cap
        run = np.cumsum(grid, axis=1)[q, pos]  # (L,) cap sums within each query, ascending
        skip = run < theta[q]  # the lists that cannot bring in an item of their own
        size = np.where(self.row[t] >= 0, self.n, self.size[t])
        ok &= np.bincount(q[~skip], size[~skip] * (self.row[t[~skip]] < 0), minlength=b) <= \
            self.essential_share * self.n
        ok &= np.bincount(q[~skip], self.row[t[~skip]] >= 0, minlength=b) == 0
        # where the head holds every essential list, its sums are the candidates' partial sums already
        reuse = np.bincount(q[~skip & ~head], minlength=b) == 0  # (b,)
        summed = np.where(reuse[q], head, ~skip)  # (L,) lists in the candidates' partial sums
        ess = ~reuse[q] & summed & ok[q]
        again = self._sum(*self._postings(q[ess], t[ess], mult[ess]))
        kept = reuse[cq]
        cq, ci, partial = (np.concatenate([a[kept], c]) for a, c in zip((cq, ci, partial), again))
        lazy = ~summed & ok[q]
        rest = np.bincount(q[lazy], cap[lazy], minlength=b)  # (b,) what the lists not summed can add at most
        cq, ci, scores = self._narrow(cq, ci, partial, q[lazy], t[lazy], mult[lazy], cap[lazy], rest, theta, b)
        return self._top(cq, ci, scores, ok, b, k)

    def _terms(self, queries):
        """(query, term, repeats) per distinct term of each query, sorted by query then term."""
        lens = [len(x) for x in queries]
        flat = np.fromiter(chain.from_iterable(queries), dtype=np.int64, count=sum(lens))
        n_terms = len(self.size)
        key = np.sort(np.repeat(np.arange(len(queries)), lens) * n_terms + flat)  # (T,)
        first = np.ones(len(key), dtype=bool)
        np.not_equal(key[1:], key[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        mult = np.diff(np.append(starts, len(key))).astype(np.float64)
        return key[starts] // n_terms, key[starts] % n_terms, mult

    def _exact(self, q, t, cap, b) -> np.ndarray:
        """(b,) bool: the query has a term and its sums are exact in any order (module docstring's bound)."""
        low = np.full(b, np.inf)
        np.minimum.at(low, q, self.low[t])
        usable = np.isfinite(low) & (low > 0)
        _, e = np.frexp(np.where(usable, low, 1.0))  # low = f * 2^e with f in [0.5, 1): floor(log2 low) = e - 1
        return usable & (np.bincount(q, cap, minlength=b) < np.ldexp(1.0, e + 29))  # S < 2^53 * 2^(e - 1 - 23)

    def _head(self, q, t, b) -> np.ndarray:
        """(L,) bool: each query's rarest lists up to head_share of N postings (at least its rarest sparse one)."""
        sparse = self.row[t] < 0
        size = np.where(sparse, self.size[t], 2 * self.n)  # (L,) a dense row's term comes last
        order = np.lexsort((size, q))
        run = np.cumsum(size[order])
        first = np.ones(len(q), dtype=bool)
        first[1:] = q[order][1:] != q[order][:-1]
        base = np.maximum.accumulate(np.where(first, run - size[order], 0))
        within = run - base  # cumulative size within each query
        head = np.zeros(len(q), dtype=bool)
        head[order] = sparse[order] & ((within <= self.head_share * self.n) | first)
        return head

    def _postings(self, q, t, mult):
        """Flat (query, item, float32 weight) of every posting of the lists (q, t), a list twice for a term
        twice (mult); no dense rows here."""
        q, t = np.repeat(q, mult.astype(np.int64)), np.repeat(t, mult.astype(np.int64))
        lo, hi = self.indptr[t], self.indptr[t + 1]
        n = hi - lo
        at = np.repeat(lo - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))  # (P,) positions in the postings
        return np.repeat(q, n), self.items[at], self.weights[at]

    def _sum(self, q, items, w):
        """Per distinct (query, item), ascending: (query, item, float64 sum of its weights w). One sort of
        int64 words (query * N + item) << 32 | the float32 bits of w; exact sums, so any order of adding."""
        word = ((q * self.n + items) << 32) | w.view(np.uint32).astype(np.int64)  # (P,)
        word.sort()
        key = word >> 32
        start = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]])) if len(key) else key
        sums = np.add.reduceat((word & 0xFFFFFFFF).astype(np.uint32).view(np.float32).astype(np.float64), start) \
            if len(key) else np.zeros(0)
        return key[start] // self.n, key[start] % self.n, sums

    def _best_k(self, q, partial, k) -> np.ndarray:
        """Positions of up to k entries of best partial sum per query (ties any way: theta only needs k items)."""
        if not len(q):
            return np.zeros(0, dtype=np.int64)
        if len(q) >= 1 << 24:  # positions do not fit the word below
            order = np.lexsort((-partial, q))
            return order[np.arange(len(q)) - np.searchsorted(q[order], q[order]) < k]
        # one sort of uint64 words: query (8 bits) | the float32 bits of -partial's order (32) | position (24)
        bits = (~partial.astype(np.float32).view(np.uint32)).astype(np.uint64)  # descending partial (all > 0)
        word = (q.astype(np.uint64) << np.uint64(56)) | (bits << np.uint64(24)) | np.arange(len(q), dtype=np.uint64)
        word.sort()
        order = (word & np.uint64(0xFFFFFF)).astype(np.int64)
        counts = np.bincount(q)  # q ascending in the words' order too
        rank = np.arange(len(q)) - np.repeat(np.cumsum(counts) - counts, counts)
        return order[rank < k]

    def _kth(self, q, full, b, k) -> np.ndarray:
        """(b,) theta: the least of a query's k full scores, 0 when its head has fewer than k items."""
        theta = np.full(b, np.inf)
        np.minimum.at(theta, q, full)
        return np.where(np.bincount(q, minlength=b) >= k, theta, 0.0)

    def _narrow(self, cq, ci, partial, lq, lt, lmult, lcap, rest, theta, b):
        """Candidates (cq, ci) with their partial sums, completed list by list: each round looks up one
        skipped list per query (the largest cap first), lowers what the rest can add, and drops the
        candidates that can no longer reach theta (exact sums: an item reaching theta is never dropped)."""
        keep = partial + rest[cq] >= theta[cq]
        cq, ci, partial = cq[keep], ci[keep], partial[keep]
        first = np.searchsorted(lq, np.arange(b + 1))  # (b + 1,) each query's skipped lists (ascending cap)
        for r in range(int(np.diff(first).max(initial=0))):
            has = np.diff(first) > r  # (b,) queries with an r-th largest skipped list
            at = first[1:][cq] - 1 - r  # (C,) its position, read where has[cq]
            on = np.flatnonzero(has[cq])
            partial[on] += self._weights(lt[at[on]], ci[on]) * lmult[at[on]]
            rest = rest - np.where(has, lcap[np.maximum(first[1:] - 1 - r, 0)], 0.0)
            keep = partial + rest[cq] >= theta[cq]
            cq, ci, partial = cq[keep], ci[keep], partial[keep]
        return cq, ci, partial

    def _weights(self, t, items) -> np.ndarray:
        """(M,) float64: list t's weight of each item (0 where absent): a dense row, or a binary search."""
        w = np.zeros(len(t))
        row = self.row[t]
        dense = row >= 0
        w[dense] = self.dense[row[dense], items[dense]]
        sparse = np.flatnonzero(~dense)
        if len(sparse):
            keys = self._sorted_keys()
            needle = t[sparse] * self.n + items[sparse]
            order = np.argsort(needle)  # sorted needles search ~9x faster (each starts where the last ended)
            pos = np.empty(len(needle), dtype=np.int64)
            pos[order] = np.minimum(np.searchsorted(keys, needle[order]), len(keys) - 1)
            hit = keys[pos] == needle
            w[sparse[hit]] = self.weights[pos[hit]]
        return w

    def _lookup(self, cq, ci, lq, lt, lmult) -> np.ndarray:
        """(C,) float64: for each candidate (query cq, item ci), the sum of the weights x repeats of its
        query's lists (lq, lt) in that item (0 where absent)."""
        out = np.zeros(len(cq))
        if not len(cq) or not len(lq):
            return out
        # pair every candidate with every list of its query
        per = np.bincount(lq, minlength=int(cq.max()) + 1)  # (b,) lists per query
        first = np.searchsorted(lq, np.arange(len(per)))
        n = per[cq]
        cand = np.repeat(np.arange(len(cq)), n)  # (M,)
        at = np.repeat(first[cq] - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))  # (M,) list positions
        w = self._weights(lt[at], ci[cand])
        np.add.at(out, cand, w * lmult[at])
        return out

    def _top(self, cq, ci, scores, ok, b, k) -> list:
        """bm25.py's top-k rule per query over its candidates; None where the query is not answered here."""
        keep = (scores > 0) & ok[cq]
        cq, ci, scores = cq[keep], ci[keep], scores[keep]
        order = np.lexsort((ci, -scores, cq))
        cq, ci, scores = cq[order], ci[order], scores[order]
        bounds = np.searchsorted(cq, np.arange(b + 1))
        return [(ci[s:min(e, s + k)], scores[s:min(e, s + k)]) if ok[j] else None
                for j, (s, e) in enumerate(zip(bounds[:-1], bounds[1:]))]

    def _sorted_keys(self) -> np.ndarray:
        """(P,) int64 term * N + item of every posting: ascending, as the CSR lists are (built once)."""
        if self._keys is None:
            terms = np.repeat(np.arange(len(self.size), dtype=np.int64), self.size)
            self._keys = terms * self.n + self.items
        return self._keys
