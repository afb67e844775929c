import numpy as np
from support.chunks import make_chunk

from minirag.evaluation.evaluate import mean
from minirag.evaluation.metrics import hit_at
from minirag.index.bm25.index import BM25Index, BM25Params
from minirag.index.hashing import HashingEmbedder
from minirag.index.store import FlatVectorStore
from minirag.rank.fusion import HybridRetriever, reciprocal_rank_fusion
from minirag.rank.retrievers import BM25Retriever, DenseRetriever
from minirag.text.analyze import Analyzer


def test_rrf_fusion_combines():
    # A is second in both lists, B first in only one: consensus wins.
    a = [("B", 9.0), ("A", 8.0), ("C", 1.0)]
    b = [("D", 0.9), ("A", 0.8), ("E", 0.1)]
    fused = dict(reciprocal_rank_fusion([a, b], k_rrf=60))
    assert fused["A"] > fused["B"]
    assert fused["A"] == 2 / 62 and fused["B"] == 1 / 61


def test_rrf_uses_ranks_not_scores():
    a = [("x", 1000.0), ("y", 999.0)]
    b = [("y", 0.2), ("x", 0.1)]
    assert dict(reciprocal_rank_fusion([a, b]))["x"] == dict(reciprocal_rank_fusion([a, b]))["y"]


class Fixed:
    def __init__(self, ranking):
        self.ranking = ranking
        self.asked = []

    def search(self, query, k=5):
        self.asked.append(k)
        return self.ranking[:k]


def test_fusion_asks_each_retriever_for_at_least_20():
    r1, r2 = Fixed([(f"a{i}", 1.0) for i in range(30)]), Fixed([(f"b{i}", 1.0) for i in range(30)])
    out = HybridRetriever(r1, r2).search("q", k=5)
    assert r1.asked == [20] and r2.asked == [20] and len(out) == 5


# A small synthetic eval where each channel has a blind spot the other covers:
# lexical misses paraphrases, the hashing "dense" channel is given distractors.
DOCS = [
    "the past of go is went",                   # 0
    "went gone going goes go to the shop",      # 1 lexical distractor
    "tener en pretérito: yo tuve",              # 2
    "the verb to have in spanish past is tuve", # 3
    "ser is for identity and origin",           # 4
    "estar is for location and states",         # 5
    "por expresses cause, para expresses purpose",  # 6
    "comparatives: good better best",           # 7
]
EVAL = [("past of go", {0}), ("spanish past of to have", {3, 2}), ("where is it: estar or ser for location", {5}),
        ("good better best comparative", {7}), ("cause or purpose por para", {6})]


def test_hybrid_beats_alone_on_eval():
    chunks = [make_chunk(t, offset=i) for i, t in enumerate(DOCS)]
    store = FlatVectorStore(HashingEmbedder.fit(DOCS, dim=64))
    store.add(chunks)
    dense = DenseRetriever(store)
    bm25 = BM25Retriever(BM25Index.build(DOCS, Analyzer(), BM25Params()), [c.id for c in chunks])
    hybrid = HybridRetriever(dense, bm25)
    ids = [c.id for c in chunks]

    def hit5(r):
        return mean(hit_at([cid for cid, _ in r.search(q, k=5)], {ids[i]: 1 for i in gold}, 5) for q, gold in EVAL)

    scores = {name: hit5(r) for name, r in (("dense", dense), ("bm25", bm25), ("hybrid", hybrid))}
    assert scores["hybrid"] >= max(scores["dense"], scores["bm25"]), scores
    assert np.isfinite(list(scores.values())).all()


def test_fusion_recovers_what_either_channel_finds_in_its_top_ranks():
    # Channel A finds g1 at rank 1 and never g2; channel B the opposite. The fused top 5
    # holds both: the mechanism behind "hybrid beats either channel alone".
    a = Fixed([("g1", 1.0)] + [(f"a{i}", 1.0) for i in range(30)])
    b = Fixed([("g2", 1.0)] + [(f"b{i}", 1.0) for i in range(30)])
    fused = [cid for cid, _ in HybridRetriever(a, b).search("q", k=5)]
    assert "g1" in fused and "g2" in fused
    alone = [[cid for cid, _ in r.search("q", k=5)] for r in (a, b)]
    assert ("g2" in alone[0]) is False and ("g1" in alone[1]) is False
