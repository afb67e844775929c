"""The batched BM25 search (bm25_batch.py) returns exactly what the exhaustive one does, query by query.

Exactly: the same item indices and float64 scores bit for bit (np.array_equal), ties in the same order,
against the exhaustive search of each query on its own (`search_batch(..., prune=False)`, and the original
top-k rule in test_bm25_search.py's `reference`)."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.bm25_reference import WORDS, assert_same, reference, zipf_corpus

from minirag.index.bm25.batch import BatchSearch
from minirag.index.bm25.index import BM25Index, BM25Params
from minirag.index.bm25.search import PrunedSearch
from minirag.text.analyze import Analyzer


@pytest.fixture
def batch_everything(monkeypatch):
    """Batch even the tiniest index, and leave the queries it declines to the exhaustive search (not
    MaxScore), so that a mistake cannot hide behind another exact path."""
    monkeypatch.setattr(BatchSearch, "min_items", 0)
    monkeypatch.setattr(PrunedSearch, "min_items", 10**12)


def answered(index: BM25Index, queries: list[str], k: int) -> int:
    terms = [[index.vocab[t] for t in index.analyzer.query(q) if t in index.vocab] for q in queries]
    return sum(r is not None for r in index._batched().top_k(terms, min(k, index.n_items)))


# small budgets: the head is the rarest list alone and most queries have lists to skip; large ones: every
# list in the head and essential (theta from all of them); tiny blocks: the queries split over blocks
KNOBS = [{}, {"head_share": 0.0, "essential_share": 1.0}, {"head_share": 1.0, "essential_share": 10.0},
         {"head_share": 0.2, "essential_share": 0.5, "max_block": 2}]

word = st.integers(0, len(WORDS) - 1).map(lambda i: WORDS[min(i, i * i % len(WORDS))])  # skewed to low ids
text = st.lists(word, max_size=14).map(" ".join)
query = st.lists(st.one_of(word, word, st.just("unknown")), min_size=0, max_size=7).map(" ".join)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(docs=st.lists(text, min_size=1, max_size=60), queries=st.lists(query, min_size=2, max_size=12),
       k=st.integers(1, 70), variant=st.sampled_from(["lucene", "atire", "robertson"]),
       knobs=st.sampled_from(KNOBS), k1=st.sampled_from([1.5, 0.9, 3.0]), b=st.sampled_from([0.75, 0.4, 1.0]))
def test_batched_equals_exhaustive(batch_everything, monkeypatch, docs, queries, k, variant, knobs, k1, b):
    for name, value in knobs.items():
        monkeypatch.setattr(BatchSearch, name, value)
    index = BM25Index.build(docs, Analyzer(), BM25Params(variant=variant, k1=k1, b=b))
    got = index.search_batch(queries, k)
    assert len(got) == len(queries)
    for q, found in zip(queries, got):
        assert_same(found, reference(index, q, k))
    for found, exhaustive in zip(got, index.search_batch(queries, k, prune=False)):
        assert_same(found, exhaustive)


@pytest.mark.parametrize("knobs", KNOBS)
def test_dense_rows_repeats_ties_and_k_beyond_n(batch_everything, monkeypatch, knobs):
    for name, value in knobs.items():
        monkeypatch.setattr(BatchSearch, name, value)
    # "a" is in every item (a dense row), "b" in most; items 0 and 2 tie exactly
    docs = ["a b c", "a b", "a b c", "a d", "a b e e", "a c", "a b", "a", "f g", "f", "g h", "h"] * 3
    index = BM25Index.build(docs, Analyzer(), BM25Params())
    assert index._dense_row
    queries = ["a", "a a b", "c c c", "c a", "e b a d", "zzz", "", "d e c b a a", "f g h a", "h h g a b", "e e f"]
    for k in (1, 2, 3, 7, len(docs), len(docs) + 5):
        for q, found in zip(queries, index.search_batch(queries, k)):
            assert_same(found, reference(index, q, k))
    if knobs.get("essential_share", 0) >= 1:  # budgets for this tiny index
        assert answered(index, queries, 3) >= 6  # not: no term, or a dense row essential


@pytest.mark.parametrize("titled", [False, True])
def test_zipfian_index_is_answered_in_batch_and_exact(batch_everything, titled):
    docs, queries, titles = zipf_corpus()
    index = BM25Index.build(docs, Analyzer(), BM25Params(title_weight=0.5 if titled else 0.0),
                            titles=titles if titled else None)
    for k in (1, 10, 100):
        for q, found in zip(queries, index.search_batch(queries, k)):
            assert_same(found, reference(index, q, k))
    # titled indexes are left to the one-query-at-a-time search; the others are answered in batch where the
    # essential postings fit the default budget (5 % of N: 25 of these 60 queries)
    assert index._batched().usable is not titled
    if not titled:
        assert answered(index, queries, 10) >= 0.3 * len(queries)


def test_a_query_whose_sums_could_round_is_left_to_the_exhaustive_search(batch_everything):
    docs = ["a b", "a c", "b c", "a"] * 5
    index = BM25Index.build(docs, Analyzer(), BM25Params())
    search = index._batched()
    q, t, mult = search._terms([[0, 1], [2]])
    cap = mult * search.cap[t]
    assert search._exact(q, t, cap, 2).all()
    # caps summing to 2^30 times the smallest weight or more could round in float64: refused
    huge = cap.copy()
    huge[q == 0] = search.low[t[q == 0]].min() * 2.0**31
    assert search._exact(q, t, huge, 2).tolist() == [False, True]


def test_single_queries_and_small_indexes_go_one_by_one():
    docs, queries, _ = zipf_corpus(n_docs=300)
    index = BM25Index.build(docs, Analyzer(), BM25Params())
    assert index.n_items < BatchSearch.min_items and not index._batch_pays(len(queries), 10)
    assert not index._batch_pays(1, 10)
    assert_same(index.search_batch(queries[:3], 10)[2], reference(index, queries[2], 10))


def test_an_index_past_the_postings_budget_goes_one_by_one(monkeypatch):
    monkeypatch.setattr(BatchSearch, "min_items", 0)
    monkeypatch.setattr(BatchSearch, "max_postings", 100)  # the sorted keys would cost 8 bytes a posting
    docs, queries, _ = zipf_corpus(n_docs=300)
    index = BM25Index.build(docs, Analyzer(), BM25Params())
    assert len(index.arrays["items"]) > 100 and not index._batch_pays(len(queries), 10)
    for q, found in zip(queries, index.search_batch(queries, 10)):
        assert_same(found, reference(index, q, 10))
