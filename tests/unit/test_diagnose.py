import csv

import numpy as np
import pytest
from support.chunks import make_chunk

from minirag.evaluation.diagnose import (
    always_on_top,
    channel_ranks,
    diversity,
    topk_overlap,
    write_csv,
)

# gold.md: g0 [0, 10) and g1 [10, 20); the evidence is at [12, 15), so only g1 is a gold chunk.
# ptr.md: a pointer page whose chunks name the gold page; x.md: filler.
G0, G1 = make_chunk("0123456789", "gold.md", 0), make_chunk("abcdefghij", "gold.md", 10)
P0, P1, P2 = (make_chunk("see gold " + str(i), "ptr.md", 20 * i) for i in range(3))
X0, X1 = make_chunk("filler", "x.md", 0), make_chunk("more filler", "x.md", 6)
CHUNKS = [G0, G1, P0, P1, P2, X0, X1]
DOC_OF = {c.id: c.doc_id for c in CHUNKS}
GOLD = [{"doc_id": "gold.md", "evidence": "cde", "char_start": 12, "char_end": 15}]
QUESTIONS = [
    {"qid": "q1", "lang": "en", "difficulty": "paraphrase", "answerable": True, "gold": GOLD},
    {"qid": "q2", "lang": "cross", "difficulty": "verbatim", "answerable": True, "gold": GOLD},
    {"qid": "q3", "lang": "en", "difficulty": "verbatim", "answerable": False, "gold": []},
]


def run_of(*chunks):
    return [(c.id, float(len(chunks) - i)) for i, c in enumerate(chunks)]


def test_channel_ranks_is_the_lexical_10_dense_9_table():
    base = {
        "bm25": {"q1": run_of(P0, P1, P2, X0, X1, G0, G1), "q2": run_of(P0, P1, P2, X0, X1, G0)},
        "dense": {"q1": run_of(P1, G1, P0), "q2": run_of(P0, P1)},
    }
    fused = {"rrf": {"q1": run_of(P1, G1, P0, P2), "q2": run_of(P0, P1, P2, X0, X1, G0)}}
    rows = channel_ranks(QUESTIONS, CHUNKS, base, fused)
    assert [r["qid"] for r in rows] == ["q1", "q2"]  # the unanswerable q3 has no gold to find
    q1, q2 = rows
    assert list(q1) == ["qid", "lang", "difficulty", "bm25_chunk", "bm25_doc", "dense_chunk", "dense_doc",
                        "rrf_chunk", "rrf_doc", "shared_miss"]
    # bm25: a chunk of gold.md at 6 (g0, not the evidence), the gold chunk g1 at 7
    assert (q1["bm25_chunk"], q1["bm25_doc"], q1["dense_chunk"], q1["dense_doc"]) == (7, 6, 2, 2)
    assert (q1["rrf_chunk"], q1["rrf_doc"], q1["shared_miss"]) == (2, 2, False)
    # q2: lexical finds the page only at 6, dense not at all: both channels miss the top 5
    assert (q2["bm25_chunk"], q2["bm25_doc"], q2["dense_chunk"], q2["dense_doc"]) == (None, 6, None, None)
    assert (q2["rrf_doc"], q2["shared_miss"]) == (6, True)


def test_channel_ranks_miss_threshold_follows_k():
    base = {"bm25": {"q1": run_of(P0, P1, P2, X0, X1, G0), "q2": []}}
    rows = channel_ranks(QUESTIONS, CHUNKS, base, {}, k=6)
    assert [r["shared_miss"] for r in rows] == [False, True]


def test_overlap_of_identical_runs_is_1_and_disjoint_is_0():
    a = {"q1": run_of(G0, G1, P0, P1, P2)}
    b = {"q1": run_of(X0, X1)}
    rows = topk_overlap({"a": a, "a2": dict(a), "b": b})
    assert rows == [{"qid": "q1", "a|a2": 1.0, "a|b": 0.0, "a2|b": 0.0},
                    {"qid": "mean", "a|a2": 1.0, "a|b": 0.0, "a2|b": 0.0}]


def test_overlap_by_hand_and_mean():
    dense = {"q1": run_of(G0, G1, P0, P1, P2, X0), "q2": run_of(G0, G1)}
    bm25 = {"q1": run_of(P2, P1, P0, X0, X1, G0), "q2": run_of(G1, G0, X0)}
    rows = topk_overlap({"dense": dense, "bm25": bm25}, k=5)
    # q1: {P0, P1, P2} shared within the top 5 (G0 and X0 are 6th in one list) -> 3/5;
    # q2: dense returned two chunks, both shared -> 2/5 (a short list counts as disagreement)
    assert [r["dense|bm25"] for r in rows] == [0.6, 0.4, pytest.approx(0.5)]


def test_always_on_top_counts_strictly_more_than_share():
    run = {"q1": run_of(P0, G0), "q2": run_of(P0, P1), "q3": run_of(X0, P1), "q4": run_of(X1, P0),
           "q5": run_of(G1, X1)}
    rows = always_on_top(run, DOC_OF, k=2, share=0.2)
    # P0 in 3 of 5, P1 and X1 in 2 of 5 (> 0.2), G0, X0, G1 in 1 of 5 (= 0.2, not more)
    assert [(r["chunk_id"], r["doc_id"], r["count"]) for r in rows] == \
        [(P0.id, "ptr.md", 3), *sorted([(P1.id, "ptr.md", 2), (X1.id, "x.md", 2)])]
    assert rows[0]["share"] == 0.6
    # only the top k counts
    assert [r["chunk_id"] for r in always_on_top(run, DOC_OF, k=1, share=0.2)] == [P0.id]


def test_diversity_by_hand():
    e = np.eye(3)
    vectors = {G0.id: e[0], G1.id: e[0], P0.id: e[1], X0.id: e[2]}
    run = {"q1": run_of(G0, G1, P0), "q2": run_of(X0), "q3": run_of(G0, P0, X0, G1)}
    rows = diversity(run, DOC_OF, vectors, k=3)
    # q1: cosines (G0, G1) 1, (G0, P0) 0, (G1, P0) 0 -> 1/3; q3 top 3 orthogonal -> 0; q2 one chunk -> None
    assert rows[:3] == [{"qid": "q1", "distinct_docs": 2, "mean_cosine": pytest.approx(1 / 3)},
                        {"qid": "q2", "distinct_docs": 1, "mean_cosine": None},
                        {"qid": "q3", "distinct_docs": 3, "mean_cosine": 0.0}]
    assert rows[3] == {"qid": "mean", "distinct_docs": 2.0, "mean_cosine": pytest.approx(1 / 6)}


def test_diversity_reads_ids_and_matrix():
    e = np.eye(3)
    run = {"q1": run_of(G0, P0, X0)}
    by_map = diversity(run, DOC_OF, {G0.id: e[0], P0.id: e[1], X0.id: e[2]})
    assert diversity(run, DOC_OF, ([X0.id, P0.id, G0.id], e[::-1].copy())) == by_map


def test_write_csv_rounds_and_blanks_none(tmp_path):
    rows = [{"qid": "q1", "a": 1 / 3, "b": None}, {"qid": "mean", "a": 2.0, "c": True}]
    write_csv(tmp_path / "t.csv", rows)
    with open(tmp_path / "t.csv", encoding="utf-8") as fh:
        got = list(csv.reader(fh))
    assert got == [["qid", "a", "b", "c"], ["q1", "0.333333", "", ""], ["mean", "2.0", "", "True"]]
