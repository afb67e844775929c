"""Paired significance (evaluation/significance.py): exact small cases, Holm, the bootstrap
interval, byte-reproducibility, and the same statistic and p-values as ranx on the same runs."""

import numpy as np
import pytest

from minirag.evaluation.metrics import retrieval_metrics
from minirag.evaluation.significance import (
    Comparison,
    SignificanceSettings,
    bootstrap_interval,
    compare,
    holm,
    randomization_p,
    with_holm,
)


def test_small_cases_enumerate_every_sign_vector_and_give_the_exact_p():
    # four questions all +1: only the all-plus and all-minus vectors reach |sum| = 4 of 2^4
    assert randomization_p(np.array([1.0, 1, 1, 1])) == 2 / 16
    # zero differences drop out: the same four nonzero differences among ten questions
    assert randomization_p(np.array([1.0, 0, 1, 0, 0, 1, 0, 1, 0, 0])) == 2 / 16
    assert randomization_p(np.array([1.0, -1.0])) == 1.0
    assert randomization_p(np.zeros(5)) == 1.0


def test_the_sampled_p_agrees_with_the_exact_one():
    rng = np.random.default_rng(3)
    d = rng.normal(0.15, 1.0, size=16)
    exact = randomization_p(d, permutations=2 ** 16)  # every sign vector
    sampled = randomization_p(d, permutations=10_000, seed=1)  # 10,000 seeded draws
    assert abs(exact - sampled) < 0.02, (exact, sampled)


def test_holm_adjusts_in_order_and_keeps_none_entries():
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])  # capped at 1
    a, none, b = with_holm([Comparison(0.1, 0, 0.2, 0.01, 50), None, Comparison(0.1, 0, 0.2, 0.04, 50)])
    assert none is None and a.p_holm == pytest.approx(0.02) and b.p_holm == pytest.approx(0.04)
    assert a.significant and b.significant
    assert not with_holm([Comparison(0.1, 0, 0.2, 0.03, 50)] * 2)[0].significant  # 0.06 after Holm


def test_the_interval_covers_the_mean_and_narrows_with_more_questions():
    rng = np.random.default_rng(0)
    small, large = rng.normal(0.05, 0.3, 40), rng.normal(0.05, 0.3, 4000)
    lo_s, hi_s = bootstrap_interval(small)
    lo_l, hi_l = bootstrap_interval(large)
    assert lo_s <= small.mean() <= hi_s and lo_l <= large.mean() <= hi_l
    assert hi_l - lo_l < (hi_s - lo_s) / 5


def test_a_comparison_is_byte_reproducible_and_written_as_the_report_writes_it():
    rng = np.random.default_rng(7)
    a, b = (rng.random(153) < 0.72).astype(float), (rng.random(153) < 0.69).astype(float)
    first, second = compare(a, b), compare(a, b)
    assert first == second and first.text() == second.text()
    assert first.delta == pytest.approx(a.mean() - b.mean())
    text = compare([1, 1, 0, 1] * 10, [0, 1, 0, 0] * 10).text()
    assert text == "+50.0 pp [+35.0, +65.0], p < 0.001 *", text
    assert compare([0, 0, 1], [1, 1, 1]).text().startswith("\u221266.7 pp [\u2212100.0, ")
    with pytest.raises(ValueError, match="two lists of one length"):
        compare([1, 0], [1])


def test_the_settings_change_the_draws():
    a, b = [1, 0, 1, 1, 0, 1, 1, 1, 0, 1] * 5, [0, 1, 1, 0, 0, 1, 1, 0, 0, 1] * 5  # +1, -1, +1, +1 per ten
    one, two = compare(a, b, SignificanceSettings(seed=1)), compare(a, b, SignificanceSettings(seed=2))
    assert one.p != two.p and abs(one.p - two.p) < 0.03


def synthetic_runs(seed: int, n_queries: int = 120, n_docs: int = 60):
    """Qrels (1-3 relevant documents per query, graded) and three runs of decreasing quality."""
    rng = np.random.default_rng(seed)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(1, 3)) for j in rng.choice(n_docs, int(rng.integers(1, 4)),
                                                                             replace=False)}
             for i in range(n_queries)}
    runs = {}
    for name, signal in (("strong", 0.75), ("close", 0.7), ("weak", 0.55)):  # p from < 0.001 to about 0.07
        runs[name] = {q: {f"d{j}": float(rng.random() + (rel.get(f"d{j}", 0) > 0) * signal)
                          for j in range(n_docs)} for q, rel in qrels.items()}
    return qrels, runs


def per_query(qrels, run, metric):
    return [retrieval_metrics(sorted(run[q], key=lambda d: (-run[q][d], d)), qrels[q])[metric] for q in qrels]


def test_statistic_and_p_values_match_ranx_on_the_same_runs():
    ranx = pytest.importorskip("ranx")
    qrels, runs = synthetic_runs(11)
    names = {"ndcg@10": "ndcg@10", "hit@5": "hit_rate@5", "mrr": "mrr"}
    report = ranx.compare(ranx.Qrels(qrels), [ranx.Run(r, name=n) for n, r in runs.items()],
                          metrics=list(names.values()), stat_test="fisher", n_permutations=10_000, random_seed=42)
    checked = []
    for ours, theirs in names.items():
        scores = {n: per_query(qrels, r, ours) for n, r in runs.items()}
        for n in runs:  # the statistic: each run's mean of the per-query metric
            assert np.mean(scores[n]) == pytest.approx(report.results[n][theirs], abs=1e-9), (n, ours)
        for a, b in (("strong", "close"), ("strong", "weak"), ("close", "weak")):
            p_ranx = report.comparisons[a, b][theirs]["p_value"]
            p_ours = compare(scores[a], scores[b]).p
            # both are Monte-Carlo estimates of the same p from 10,000 draws each
            assert abs(p_ours - p_ranx) <= 0.025, (ours, a, b, p_ours, p_ranx)
            checked.append(p_ours)
    assert min(checked) < 0.005 and sum(0.01 < p < 0.1 for p in checked) >= 3  # clear and doubtful ones both seen
