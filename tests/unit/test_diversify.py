import math

import numpy as np
import pytest

from minirag.evaluation.trec import read_run, write_run
from minirag.rank.diversify import mmr, source_cap

# Document A takes the first four places, as in the write-up's small-chunk Q2.
HOGGED = [("A1", 0.95), ("A2", 0.94), ("A3", 0.93), ("A4", 0.92), ("B1", 0.80), ("C1", 0.70), ("D1", 0.60)]
DOC_OF = {cid: cid[0] for cid, _ in HOGGED}


def ids(ranking):
    return [cid for cid, _ in ranking]


def docs_in_top(ranking, k=5):
    return {DOC_OF[cid] for cid in ids(ranking)[:k]}


def test_cap_turns_a_hogged_top5_into_several_documents():
    assert docs_in_top(HOGGED) == {"A", "B"}
    capped = source_cap(HOGGED, DOC_OF, cap=2, k=5)
    # A3 and A4 are skipped by the cap, then follow in base order: the run keeps its depth
    assert ids(capped) == ["A1", "A2", "B1", "C1", "D1", "A3", "A4"]
    assert docs_in_top(capped) == {"A", "B", "C", "D"}


def test_cap_constrains_only_the_first_k():
    assert ids(source_cap(HOGGED, DOC_OF, cap=2, k=2)) == ids(HOGGED)
    assert ids(source_cap(HOGGED, DOC_OF, cap=1, k=3)) == ["A1", "B1", "C1", "A2", "A3", "A4", "D1"]


def test_cap_without_k_applies_to_the_whole_list():
    assert ids(source_cap(HOGGED, DOC_OF, cap=1)) == ["A1", "B1", "C1", "D1", "A2", "A3", "A4"]


def test_cap_short_of_k_fills_from_the_skipped():
    ranking = [("A1", 3.0), ("A2", 2.0), ("A3", 1.0), ("B1", 0.5)]
    assert ids(source_cap(ranking, DOC_OF, cap=1, k=5)) == ["A1", "B1", "A2", "A3"]


def test_rerank_scores_survive_the_trec_writer(tmp_path):
    capped = source_cap(HOGGED, DOC_OF, cap=2, k=5)
    assert [s for _, s in capped] == [7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
    write_run(tmp_path / "run.trec", {"q": capped}, "cap")
    assert ids(read_run(tmp_path / "run.trec")["q"]) == ids(capped)


def test_cap_must_be_positive():
    with pytest.raises(ValueError, match="cap must be at least 1"):
        source_cap(HOGGED, DOC_OF, cap=0)


def unit(*coords, d=10):
    v = np.zeros(d)
    for i, x in coords:
        v[i] = x
    return v / np.linalg.norm(v)


def hogged_vectors():
    """Chunks of A share a component (pairwise cosine 0.7); B, C, D are orthogonal to all."""
    vecs = {f"A{i}": unit((0, math.sqrt(0.7)), (i, math.sqrt(0.3))) for i in range(1, 5)}
    vecs.update(B1=unit((5, 1.0)), C1=unit((6, 1.0)), D1=unit((7, 1.0)))
    return vecs


def test_mmr_at_lambda_1_is_the_base_order():
    assert ids(mmr(HOGGED, hogged_vectors(), lam=1.0, k=5)) == ids(HOGGED)


def test_mmr_at_small_lambda_picks_a_dissimilar_chunk_second():
    # rel over the pool (min-max): A2 = 0.34/0.35, B1 = 0.2/0.35. At lam = 0.3:
    # A2: 0.3 * 0.971 - 0.7 * 0.7 = -0.199;  B1: 0.3 * 0.571 - 0 = 0.171
    assert ids(mmr(HOGGED, hogged_vectors(), lam=0.3, k=5))[:2] == ["A1", "B1"]


def test_relevance_gap_defeats_mmr_at_0_85_but_not_the_cap():
    # The write-up's failure: five chunks of A at 0.998-0.99, the rest far below. At
    # lam = 0.85 A's next chunk scores ~0.85 * 0.99 - 0.15 * 0.7 = 0.74 against B1's
    # 0.85 * 0.27 = 0.23, so MMR keeps all of A; the cap does not care about scores.
    ranking = [("A1", 0.998), ("A2", 0.996), ("A3", 0.994), ("A4", 0.992), ("A5", 0.990),
               ("B1", 0.78), ("C1", 0.77), ("D1", 0.70)]
    vecs = hogged_vectors() | {"A5": unit((0, math.sqrt(0.7)), (8, math.sqrt(0.3)))}
    doc_of = {cid: cid[0] for cid, _ in ranking}
    by_mmr = mmr(ranking, vecs, lam=0.85, k=5)
    by_cap = source_cap(ranking, doc_of, cap=2, k=5)
    assert {doc_of[c] for c in ids(by_mmr)[:5]} == {"A"}
    assert len({doc_of[c] for c in ids(by_cap)[:5]}) == 4


def test_mmr_by_hand():
    # rel a 1, b 0.5, c 0; cos(a, b) = 0.9, c orthogonal. lam = 0.5:
    # pick a; then b: 0.25 - 0.45 = -0.2, c: 0 - 0 = 0 -> c; then b.
    ranking = [("a", 1.0), ("b", 0.5), ("c", 0.0)]
    vecs = {"a": unit((0, 1.0)), "b": unit((0, 0.9), (1, math.sqrt(0.19))), "c": unit((2, 1.0))}
    out = mmr(ranking, vecs, lam=0.5, k=3)
    assert out == [("c" if i == 1 else "b" if i == 2 else "a", float(3 - i)) for i in range(3)]


def test_mmr_keeps_depth_beyond_k_and_pool():
    ranking = HOGGED + [("E1", 0.1), ("E2", 0.05)]
    vecs = hogged_vectors() | {"E1": unit((8, 1.0)), "E2": unit((9, 1.0))}
    out = mmr(ranking, vecs, lam=0.3, k=2, pool=7)
    assert ids(out) == ["A1", "B1", "A2", "A3", "A4", "C1", "D1", "E1", "E2"]
    assert [s for _, s in out] == [9.0 - i for i in range(9)]


def test_mmr_accepts_ids_and_matrix():
    vecs = hogged_vectors()
    names = sorted(vecs)
    matrix = np.stack([vecs[n] for n in names])  # (7, 10)
    assert mmr(HOGGED, (names, matrix), lam=0.3) == mmr(HOGGED, vecs, lam=0.3)


def test_mmr_errors_name_the_problem():
    with pytest.raises(KeyError, match="no vector for chunk D1"):
        mmr(HOGGED, {k: v for k, v in hogged_vectors().items() if k != "D1"})
    with pytest.raises(ValueError, match="lam must be in"):
        mmr(HOGGED, hogged_vectors(), lam=1.5)
    assert mmr([], {}) == []
