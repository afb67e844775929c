"""The pruned (MaxScore) BM25 search returns exactly what the exhaustive one does.

Exactly: the same item indices and the same float64 scores bit for bit (np.array_equal),
checked against the original top-k rule (copied below from bm25.py before the pruning came)
applied to every item's score."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.bm25_reference import WORDS, assert_same, reference, reference_top_k, zipf_corpus  # noqa: F401

from minirag.index.bm25.index import BM25Index, BM25Params
from minirag.index.bm25.search import PrunedSearch
from minirag.text.analyze import Analyzer


@pytest.fixture
def prune_everything(monkeypatch):
    """Prune even the tiniest index (by default below PrunedSearch.min_items it does not try)."""
    monkeypatch.setattr(PrunedSearch, "min_items", 0)


# Each setting drives the search down other paths (a tiny index has tiny posting budgets):
# every list summed at first; narrowing down to 2k candidates, every list searched, never read
# whole, head sums renumbered per candidate; only the rarest list or two first, then an (N,)
# accumulator for the essential lists, every list read whole.
KNOBS = [{"sparse_share": 1.0, "essential_share": 1.0},
         {"sparse_share": 0.5, "essential_share": 1.0, "exact_size": 0, "read_size": 0, "probe_ratio": 0,
          "scatter_ratio": 0},
         {"sparse_share": 0.15, "essential_share": 0.3, "exact_size": 1, "read_size": 10_000, "probe_ratio": 100,
          "boost": 0}]

word = st.integers(0, len(WORDS) - 1).map(lambda i: WORDS[min(i, i * i % len(WORDS))])  # skewed to low ids
text = st.lists(word, max_size=14).map(" ".join)
corpus = st.lists(text, min_size=1, max_size=40)
query = st.lists(st.one_of(word, word, st.just("unknown")), min_size=0, max_size=7).map(" ".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(docs=corpus, queries=st.lists(query, min_size=1, max_size=6), k=st.integers(1, 45),
       titled=st.booleans(), variant=st.sampled_from(["lucene", "atire", "robertson"]),
       knobs=st.sampled_from(KNOBS), title_words=st.lists(text, min_size=40, max_size=40))
def test_pruned_equals_exhaustive(prune_everything, monkeypatch, docs, queries, k, titled, variant, knobs,
                                  title_words):
    for name, value in knobs.items():
        monkeypatch.setattr(PrunedSearch, name, value)
    params = BM25Params(variant=variant, title_weight=0.7 if titled else 0.0)
    index = BM25Index.build(docs, Analyzer(), params, titles=title_words[:len(docs)] if titled else None)
    for q in queries:
        assert_same(index.search(q, k), reference(index, q, k))
        assert_same(index.search_batch([q], k, prune=False)[0], reference(index, q, k))


@pytest.mark.parametrize("knobs", KNOBS)
def test_dense_rows_repeats_ties_and_k_beyond_n(prune_everything, monkeypatch, knobs):
    for name, value in knobs.items():
        monkeypatch.setattr(PrunedSearch, name, value)
    # "a" is in every item (a dense row), "b" in most; items 0 and 2 tie exactly
    docs = ["a b c", "a b", "a b c", "a d", "a b e e", "a c", "a b", "a", "f g", "f", "g h", "h"] * 3
    index = BM25Index.build(docs, Analyzer(), BM25Params())
    assert index._dense_row  # the case is the one meant
    for q in ["a", "a a b", "c c c", "c a", "e b a d", "zzz", "", "d e c b a a", "f g h a", "h h g a b", "e e f"]:
        for k in (1, 2, 3, 7, len(docs), len(docs) + 5):
            assert_same(index.search(q, k), reference(index, q, k))
    assert index._pruned.stats["pruned"] > 0


def test_small_random_indexes_take_every_path(prune_everything, monkeypatch):
    """The property test's settings do reach the pruned search, its (N,) accumulator included."""
    rng = np.random.default_rng(1)
    seen = {"pruned": 0, "dense": 0}
    for knobs in KNOBS:
        for name, value in knobs.items():
            monkeypatch.setattr(PrunedSearch, name, value)
        for _ in range(20):
            docs = [" ".join(rng.choice(WORDS[:12], size=rng.integers(0, 12), p=np.arange(12, 0, -1) / 78))
                    for _ in range(int(rng.integers(5, 40)))]
            index = BM25Index.build(docs, Analyzer(), BM25Params())
            for q in (" ".join(rng.choice(WORDS[:12], size=rng.integers(1, 6))) for _ in range(10)):
                k = int(rng.integers(1, 12))
                assert_same(index.search(q, k), reference(index, q, k))
            for key in seen:
                seen[key] += index._pruned.stats[key]
    assert seen["pruned"] > 100 and seen["dense"] > 10


def test_negative_weights_fall_back_to_the_exhaustive_search(prune_everything):
    # robertson floors negative IDFs at 0.25 * mean IDF, itself negative when most terms are common
    docs = ["a b", "a b", "a b", "a c"]
    index = BM25Index.build(docs, Analyzer(), BM25Params(variant="robertson"))
    assert index.arrays["weights"].min() < 0 and not index._pruned.usable
    assert_same(index.search("a b c", 3), reference(index, "a b c", 3))


@pytest.mark.parametrize("titled", [False, True])
def test_zipfian_index_is_pruned_and_exact(prune_everything, titled):
    docs, queries, titles = zipf_corpus()
    index = BM25Index.build(docs, Analyzer(), BM25Params(title_weight=0.5 if titled else 0.0),
                            titles=titles if titled else None)
    # the default settings but min_items: a fast test's index is smaller than pruning pays on
    stats = index._pruned.stats
    for k in (1, 10, 100):
        for q in queries:
            assert_same(index.search(q, k), reference(index, q, k))
    # it pruned, and read less than the exhaustive search does
    a = index.arrays
    read = 0
    for q in queries:
        for t in (index.vocab[w] for w in index.analyzer.query(q) if w in index.vocab):
            read += index.n_items if t in index._dense_row else int(a["indptr"][t + 1] - a["indptr"][t])
            read += int(a["title_indptr"][t + 1] - a["title_indptr"][t])
    assert stats["pruned"] >= 0.5 * stats["queries"]
    assert stats["postings"] + stats["lookups"] < 0.5 * 3 * read
