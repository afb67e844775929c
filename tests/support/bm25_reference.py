"""The exhaustive BM25 search the pruned and batched ones must equal bit for bit, and corpora to race them on."""

import numpy as np

from minirag.index.bm25.index import BM25Index

WORDS = [f"w{i}" for i in range(24)]


def reference_top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """bm25.py's `_top_k` as it was: partition all N scores, every item tied with the k-th stays."""
    n = len(scores)
    kth = np.partition(scores, n - k)[n - k] if k < n else 0.0
    hits = np.flatnonzero(scores >= kth) if kth > 0 else np.flatnonzero(scores > 0)
    vals = scores[hits]
    order = np.lexsort((hits, -vals))[:k]
    return hits[order].astype(np.int64), vals[order]


def reference(index: BM25Index, query: str, k: int) -> tuple[np.ndarray, np.ndarray]:
    terms = [index.vocab[t] for t in index.analyzer.query(query) if t in index.vocab]
    k = min(k, index.n_items)
    if not terms or k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    return reference_top_k(index._scores(terms), k)


def assert_same(got, want):
    for a, b in zip(got, want):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def zipf_corpus(n_docs=4000, vocab=3000, seed=0):
    rng = np.random.default_rng(seed)
    words = np.array([f"t{i}" for i in range(vocab)])
    p = 1 / np.arange(1, vocab + 1)
    p /= p.sum()
    docs = [" ".join(rng.choice(words, size=rng.integers(20, 120), p=p)) for _ in range(n_docs)]
    # queries: a few words of one document, as the synthetic benchmark corpus's are made
    queries = [" ".join(rng.choice(docs[i].split(), size=rng.integers(2, 7))) for i in rng.integers(0, n_docs, 60)]
    return docs, queries, [f"title {words[i % 50]} {words[(7 * i) % vocab]}" for i in range(n_docs)]
