import math
from collections import Counter

import numpy as np
import pytest

from minirag.index.bm25.index import BM25Index, BM25Params
from minirag.index.bm25.variants import lucene_norm_length
from minirag.text.analyze import Analyzer, AnalyzerConfig

FRUIT = ["apple banana", "apple cherry cherry", "date"]  # N = 3, |D| = 2, 3, 1, avgdl = 2


def build(texts, titles=None, **params):
    return BM25Index.build(texts, Analyzer(), BM25Params(**params), titles=titles)


def score_of(index, query, item):
    items, scores = index.search(query, index.n_items)
    return dict(zip(items.tolist(), scores.tolist())).get(item, 0.0)


def synthetic(seed=0, n_docs=300, n_queries=25):
    """Zipf-like words, varied lengths: frequent terms (dense rows) and rare ones (postings)."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(400)])
    p = 1 / np.arange(1, 401) ** 1.1
    p /= p.sum()
    docs = [" ".join(rng.choice(vocab, size=rng.integers(3, 80), p=p)) for _ in range(n_docs)]
    queries = [" ".join(rng.choice(vocab, size=rng.integers(1, 7), p=p)) for _ in range(n_queries)]
    return docs, queries


def brute_force(docs, query, variant, k1, b):
    """Every item's BM25 score from the textbook formulas, one dict lookup at a time."""
    toks = [d.split() for d in docs]
    n, avgdl = len(toks), sum(map(len, toks)) / len(toks)
    df = Counter(t for d in toks for t in set(d))
    idf = {}
    for t, f in df.items():
        if variant == "lucene":
            idf[t] = math.log(1 + (n - f + 0.5) / (f + 0.5))
        elif variant == "atire":
            idf[t] = math.log(n / f)
        else:
            idf[t] = math.log((n - f + 0.5) / (f + 0.5))
    if variant == "robertson":
        eps = 0.25 * sum(idf.values()) / len(idf)
        idf = {t: eps if v < 0 else v for t, v in idf.items()}
    scale = 1 if variant == "lucene" else k1 + 1
    scores = np.zeros(n)
    for i, d in enumerate(toks):
        tf = Counter(d)
        for t in query.split():
            if tf[t]:
                scores[i] += idf[t] * tf[t] * scale / (tf[t] + k1 * (1 - b + b * len(d) / avgdl))
    return scores


# The seed lab's tests

def test_bm25_keyword_hit():
    index = build(["the cat sat on the mat", "dogs bark at night", "install the plugin with pip"])
    items, _ = index.search("plugin", 3)
    assert items[0] == 2


def test_bm25_idf_rare_wins():
    index = build(["common words here", "common zebra here", "common words there"])
    items, _ = index.search("zebra common", 3)
    assert items[0] == 1


# Each variant, one document, by hand: query "cherry", item 1 = "apple cherry cherry".
# f = 2, df = 1, N = 3, |D| = 3, avgdl = 2, k1 = 1.5, b = 0.75
# length norm: 1 - 0.75 + 0.75 * 3 / 2 = 1.375; k1 * norm = 2.0625

def test_lucene_score_by_hand():
    idf = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))  # ln(8/3) = 0.98083
    tf = 2 / (2 + 2.0625)                           # 0.49231
    assert score_of(build(FRUIT), "cherry", 1) == pytest.approx(idf * tf, rel=1e-6)  # 0.48287


def test_robertson_score_by_hand():
    idf = math.log((3 - 1 + 0.5) / (1 + 0.5))       # ln(5/3) = 0.51083
    tf = 2 * (1.5 + 1) / (2 + 2.0625)               # 1.23077
    assert score_of(build(FRUIT, variant="robertson"), "cherry", 1) == pytest.approx(idf * tf, rel=1e-6)


def test_robertson_negative_idf_floored_like_rank_bm25():
    # "apple" is in 2 of 3 items: ln((3 - 2 + 0.5) / (2 + 0.5)) = ln(0.6) < 0.
    # Floor: 0.25 * mean IDF over the vocabulary (apple, banana, cherry, date), before flooring:
    # 0.25 * (ln(0.6) + 3 ln(5/3)) / 4 = 0.25 * 0.25541 = 0.063853
    eps = 0.25 * (math.log(0.6) + 3 * math.log(5 / 3)) / 4
    # item 0 = "apple banana": f = 1, |D| = 2, norm = 1: tf = 1 * 2.5 / (1 + 1.5) = 1
    assert score_of(build(FRUIT, variant="robertson"), "apple", 0) == pytest.approx(eps * 1.0, rel=1e-6)


def test_atire_score_by_hand():
    idf = math.log(3 / 1)                           # 1.09861
    tf = 2 * (1.5 + 1) / (2 + 2.0625)               # 1.23077
    assert score_of(build(FRUIT, variant="atire"), "cherry", 1) == pytest.approx(idf * tf, rel=1e-6)  # 1.35214


@pytest.mark.parametrize("variant", ["lucene", "robertson", "atire"])
def test_every_score_matches_the_formulas(variant):
    docs, queries = synthetic()
    index = build(docs, variant=variant, k1=1.2, b=0.6)
    for q in queries:
        expected = brute_force(docs, q, variant, 1.2, 0.6)
        items, scores = index.search(q, len(docs))
        got = np.zeros(len(docs))
        got[items] = scores
        np.testing.assert_allclose(got, np.where(expected > 0, expected, 0), rtol=1e-5, atol=1e-6)


def test_robertson_reproduces_rank_bm25_okapi():
    rank_bm25 = pytest.importorskip("rank_bm25")
    docs, queries = synthetic(seed=1, n_docs=120)
    okapi = rank_bm25.BM25Okapi([d.split() for d in docs], k1=1.5, b=0.75)
    index = build(docs, variant="robertson")
    for q in queries:
        items, scores = index.search(q, len(docs))
        np.testing.assert_allclose(scores, okapi.get_scores(q.split())[items], rtol=1e-5)


def test_same_top10_as_bm25s_lucene():
    bm25s = pytest.importorskip("bm25s")
    docs, queries = synthetic(seed=2, n_docs=400, n_queries=40)
    index = build(docs, k1=1.2, b=0.75)
    ref = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    ref.index([d.split() for d in docs], show_progress=False)
    ref_items, ref_scores = ref.retrieve([q.split() for q in queries], k=10, show_progress=False, n_threads=0)
    for q, r_items, r_scores in zip(queries, ref_items, ref_scores):
        items, scores = index.search(q, 10)
        matched = r_scores > 0  # bm25s pads a short list with zero-score items
        np.testing.assert_allclose(scores, r_scores[matched], rtol=1e-5)
        # bm25s orders exact ties arbitrarily: compare tied items as sets, and leave out the
        # items tied with the last score, which may be cut at different members of the tie
        def canonical(its, scs):
            last = round(float(scs[-1]), 4)
            return sorted((-round(float(s), 4), i) for i, s in zip(its, scs) if round(float(s), 4) != last)
        assert canonical(items, scores) == canonical(r_items[matched], r_scores[matched])


def test_repeated_query_term_counts_each_time():
    index = build(FRUIT)
    assert score_of(index, "cherry cherry", 1) == pytest.approx(2 * score_of(index, "cherry", 1), rel=1e-12)


def test_ties_go_to_the_lower_index_and_zero_scores_are_left_out():
    index = build(["red fish", "blue fish", "red fish", "green tree"])
    items, scores = index.search("red", 10)
    assert items.tolist() == [0, 2] and scores[0] == scores[1]
    items, _ = index.search("fish", 2)
    assert items.tolist() == [0, 1]  # three-way tie at the cut: the lowest indices win


@pytest.mark.parametrize("query", ["", "   ", "zzz qqq", "!!!"])
def test_empty_or_unknown_query_gives_empty_result(query):
    items, scores = build(FRUIT).search(query, 5)
    assert items.shape == (0,) and scores.shape == (0,)


def test_stopword_only_query_is_empty():
    index = BM25Index.build(FRUIT, Analyzer(AnalyzerConfig(stopwords=("en",))), BM25Params())
    assert len(index.search("the of and", 5)[0]) == 0


def test_k_larger_than_corpus_and_k_zero():
    index = build(FRUIT)
    assert index.search("apple", 50)[0].tolist() == [0, 1]
    assert len(index.search("apple", 0)[0]) == 0


def test_analyzer_applies_to_documents_and_queries():
    analyzer = Analyzer(AnalyzerConfig(stopwords=("en",), stemmer="porter"))
    index = BM25Index.build(["the studies of running", "cats and dogs"], analyzer, BM25Params())
    assert index.search("study runs", 2)[0].tolist() == [0]


def test_cjk_bigrams_let_chinese_queries_match():
    analyzer = Analyzer(AnalyzerConfig(cjk_bigrams=True))
    index = BM25Index.build(["如何初始化插件", "配置环境变量", "plugin install guide"], analyzer, BM25Params())
    assert index.search("初始化", 3)[0].tolist() == [0]


def test_title_boost_adds_weight_times_idf_to_every_chunk():
    # items 0 and 1 are chunks of one document titled "Install guide"; the body statistics:
    # "install" is in item 2's body only (df = 1 of N = 4)
    texts = ["see the next page", "run the command", "install with pip", "unrelated text"]
    titles = ["Install guide", "Install guide", "Pip notes", "Other"]
    plain = build(texts, titles)
    boosted = build(texts, titles, title_weight=0.5)
    idf = math.log(1 + (4 - 1 + 0.5) / (1 + 0.5))
    for item in (0, 1):
        assert score_of(boosted, "install", item) == pytest.approx(0.5 * idf, rel=1e-6)
        assert score_of(plain, "install", item) == 0.0
    assert score_of(boosted, "install", 2) == pytest.approx(score_of(plain, "install", 2), rel=1e-6)
    assert score_of(boosted, "install", 3) == 0.0


def test_title_only_term_uses_df_zero():
    boosted = build(["alpha", "beta"], ["Guide", "Other"], title_weight=1.0)
    assert score_of(boosted, "guide", 0) == pytest.approx(math.log(1 + (2 + 0.5) / 0.5), rel=1e-6)


def test_title_weight_zero_changes_nothing(tmp_path):
    texts, queries = synthetic(seed=3, n_docs=50)
    titles = [f"title w{i % 7}" for i in range(50)]
    with_titles, without = build(texts, titles, title_weight=0.0), build(texts)
    for q in queries:
        for a, b in zip(with_titles.search(q, 10), without.search(q, 10)):
            np.testing.assert_array_equal(a, b)
    with_titles.save(tmp_path / "a")
    without.save(tmp_path / "b")
    for name in ("index.npz", "vocab.json", "params.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_titles_must_match_texts():
    with pytest.raises(ValueError, match="titles"):
        build(FRUIT, ["one title"], title_weight=1.0)


def test_lucene_norm_length():
    # exact below 24; above, 24 + the 4 leading bits of |D| - 24
    np.testing.assert_array_equal(lucene_norm_length(np.array([0, 23, 24, 31, 32, 100, 300])),
                                  [0, 23, 24, 31, 32, 96, 280])


def test_lucene_norms_changes_only_long_items():
    short_and_long = ["a b c", " ".join(["a"] * 100 + ["x"])]  # |D| = 3 (exact) and 101 (-> 96)
    exact, lossy = build(short_and_long), build(short_and_long, lucene_norms=True)
    assert score_of(lossy, "a", 0) == score_of(exact, "a", 0)
    assert score_of(lossy, "a", 1) > score_of(exact, "a", 1)  # shorter stored length, higher tf part


def test_batch_equals_single():
    docs, queries = synthetic(seed=4)
    index = build(docs, [f"t{i % 5} w{i % 11}" for i in range(len(docs))], title_weight=0.3)
    for q, (items, scores) in zip(queries, index.search_batch(queries, 15)):
        single = index.search(q, 15)
        np.testing.assert_array_equal(items, single[0])
        np.testing.assert_array_equal(scores, single[1])


def test_save_load_round_trip_and_identical_bytes(tmp_path):
    docs, queries = synthetic(seed=5)
    analyzer = Analyzer(AnalyzerConfig(stopwords=("en",), stemmer="porter"))
    params = BM25Params(variant="atire", k1=0.9, b=0.4, title_weight=0.2)
    titles = [f"w{i % 13}" for i in range(len(docs))]
    index = BM25Index.build(docs, analyzer, params, titles)
    index.save(tmp_path / "a")
    loaded = BM25Index.load(tmp_path / "a")
    assert loaded.params == params and loaded.analyzer.config == analyzer.config
    assert loaded.n_items == index.n_items and loaded.avgdl == index.avgdl
    for (i1, s1), (i2, s2) in zip(index.search_batch(queries, 10), loaded.search_batch(queries, 10)):
        np.testing.assert_array_equal(i1, i2)
        np.testing.assert_array_equal(s1, s2)
    BM25Index.build(docs, analyzer, params, titles).save(tmp_path / "b")  # rebuilt from scratch
    loaded.save(tmp_path / "c")
    for name in ("index.npz", "vocab.json", "params.json"):
        first = (tmp_path / "a" / name).read_bytes()
        assert first == (tmp_path / "b" / name).read_bytes() == (tmp_path / "c" / name).read_bytes()


def test_vocab_ids_follow_sorted_terms():
    assert build(["zeta alpha", "mid alpha"]).vocab == {"alpha": 0, "mid": 1, "zeta": 2}


def test_params_validation():
    with pytest.raises(ValueError, match="bm26"):
        BM25Params(variant="bm26")
    with pytest.raises(ValueError, match="k3"):
        BM25Params.from_dict({"k3": 1.0})
    assert BM25Params.from_dict({"variant": "atire", "k1": 0.9}) == BM25Params(variant="atire", k1=0.9)


def test_empty_corpus():
    index = build([])
    assert index.n_items == 0 and len(index.search("anything", 5)[0]) == 0
