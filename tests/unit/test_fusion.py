import math

import pytest

from minirag.rank.fusion import linear_fusion, minmax_normalise, zscore_normalise


def test_minmax_by_hand():
    assert minmax_normalise([2.0, 4.0, 6.0]).tolist() == [0.0, 0.5, 1.0]
    assert minmax_normalise([30.0, 20.0, 10.0]).tolist() == [1.0, 0.5, 0.0]


def test_zscore_by_hand():
    # mean 2, population std sqrt(2/3)
    z = zscore_normalise([1.0, 2.0, 3.0])
    s = math.sqrt(2 / 3)
    assert z.tolist() == pytest.approx([-1 / s, 0.0, 1 / s])
    assert z.mean() == pytest.approx(0.0) and z.std() == pytest.approx(1.0)


@pytest.mark.parametrize("normalise", [minmax_normalise, zscore_normalise])
def test_constant_and_empty_scores_normalise_to_zero(normalise):
    assert normalise([0.7, 0.7, 0.7]).tolist() == [0.0, 0.0, 0.0]
    assert normalise([]).size == 0


DENSE = [("a", 0.8), ("b", 0.5), ("c", 0.3)]  # min-max: a 1, b 0.4, c 0
LEXICAL = [("c", 30.0), ("b", 20.0), ("d", 10.0)]  # min-max: c 1, b 0.5, d 0


def test_linear_fusion_weights_0_6_0_4_by_hand():
    fused = linear_fusion([DENSE, LEXICAL], [0.6, 0.4])
    # a: 0.6*1 + 0.4*0 (missing -> lexical's minimum, 0); b: 0.6*0.4 + 0.4*0.5;
    # c: 0.6*0 + 0.4*1; d: 0.6*0 (missing) + 0.4*0
    assert [cid for cid, _ in fused] == ["a", "b", "c", "d"]
    assert [s for _, s in fused] == pytest.approx([0.6, 0.44, 0.4, 0.0])


def test_normalising_stops_bm25_from_deciding_alone():
    raw_sum = sorted({c: dict(DENSE).get(c, 0) + dict(LEXICAL).get(c, 0) for c in "abcd"}.items(), key=lambda x: -x[1])
    assert raw_sum[0][0] == "c"  # the BM25 scale wins a raw sum
    assert linear_fusion([DENSE, LEXICAL], [0.6, 0.4])[0][0] == "a"


def test_zscore_fusion_missing_gets_the_rankings_minimum_by_hand():
    dense = [("a", 3.0), ("b", 2.0), ("c", 1.0)]  # z: +r, 0, -r with r = sqrt(3/2)
    lexical = [("b", 10.0), ("d", 0.0)]  # z: +1, -1
    r = math.sqrt(3 / 2)
    fused = linear_fusion([dense, lexical], [0.5, 0.5], norm="zscore")
    # a: .5 r + .5 (-1); b: 0 + .5; c: -.5 r - .5; d: .5 (-r, dense's minimum) - .5 = c's score
    assert [cid for cid, _ in fused] == ["b", "a", "c", "d"]  # c and d tie: c was seen first
    assert [s for _, s in fused] == pytest.approx([0.5, 0.5 * r - 0.5, -0.5 * r - 0.5, -0.5 * r - 0.5])


def test_ties_keep_first_seen_order():
    x_first = [("x", 1.0), ("y", 0.0)]
    y_first = [("y", 1.0), ("x", 0.0)]
    assert [c for c, _ in linear_fusion([x_first, y_first], [0.5, 0.5])] == ["x", "y"]
    assert [c for c, _ in linear_fusion([y_first, x_first], [0.5, 0.5])] == ["y", "x"]


def test_three_rankings_and_top_k():
    third = [("d", 5.0), ("a", 1.0)]  # d 1, a 0
    fused = linear_fusion([DENSE, LEXICAL, third], [1.0, 1.0, 1.0], top_k=2)
    # a: 1 + 0 + 0 = 1; b: 0.4 + 0.5 + 0 (missing -> 0) = 0.9; c: 0 + 1 + 0 = 1; d: 0 + 0 + 1 = 1
    assert fused == [("a", 1.0), ("c", 1.0)]  # a, c, d tie at 1: first seen first


def test_one_empty_ranking_contributes_nothing():
    assert linear_fusion([DENSE, []], [0.6, 0.4]) == [(c, pytest.approx(0.6 * s)) for c, s in
                                                     zip("abc", minmax_normalise([0.8, 0.5, 0.3]))]


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="2 rankings but 1 weights"):
        linear_fusion([DENSE, LEXICAL], [1.0])
    with pytest.raises(ValueError, match="unknown norm 'rank'"):
        linear_fusion([DENSE, LEXICAL], [0.5, 0.5], norm="rank")
