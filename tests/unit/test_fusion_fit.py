import json

import pytest
from support.project import ablations_graph

from minirag.artifacts.integrity import write_receipt
from minirag.query.sources import Sources
from minirag.rank.fit import fit_weights, simplex
from minirag.rank.fusion import reciprocal_rank_fusion
from minirag.rank.kinds import RetrieverKind
from minirag.settings import SettingsError


def test_the_grid_is_the_weight_simplex_with_every_channel_alone():
    grid = simplex(2)
    assert len(grid) == 11 and all(abs(sum(w) - 1) < 1e-9 for w in grid)
    assert (1.0, 0.0) in grid and (0.0, 1.0) in grid and (0.5, 0.5) in grid
    assert len(simplex(3)) == 66


def test_weighted_rrf_scales_each_rankings_terms_and_a_zero_weight_leaves_the_other_order():
    a = [("x", 1.0), ("y", 0.5)]
    b = [("y", 1.0), ("z", 0.5)]
    fused = dict(reciprocal_rank_fusion([a, b], 60, weights=[2.0, 0.5]))
    assert fused["x"] == 2.0 / 61 and fused["y"] == 2.0 / 62 + 0.5 / 61
    assert [c for c, _ in reciprocal_rank_fusion([a, b], 60, weights=[1.0, 0.0])][:2] == ["x", "y"]
    assert reciprocal_rank_fusion([a, b], 60) == reciprocal_rank_fusion([a, b], 60, weights=None)


def channels():
    """A good channel (the relevant chunk first, a distractor second) and a noisy one (the distractor first,
    the relevant chunk tenth): with equal weights the distractor wins."""
    good, noisy, qrels = {}, {}, {}
    for i in range(20):
        rel = f"r{i}"
        good[f"q{i}"] = [(rel, 1.0)] + [(f"g{i}-{j}", 0.9 - j / 100) for j in range(9)]
        noisy[f"q{i}"] = [(f"g{i}-0", 1.0)] + [(f"n{i}-{j}", 0.9 - j / 100) for j in range(8)] + [(rel, 0.5)]
        qrels[f"q{i}"] = {rel: 1}
    return good, noisy, qrels


def test_fitting_gives_a_noisy_channel_no_weight_and_scores_at_least_the_best_channel_alone():
    good, noisy, qrels = channels()
    rrf = RetrieverKind.from_spec({"type": "rrf", "of": ["a", "b"], "fit": True}, "retrievers.h")
    record = rrf.fit([noisy, good], qrels, 10)
    assert record["fitted_on"] == "dev" and record["questions"] == 20
    assert record["score"] >= max(record["channels_alone"])
    assert record["weights"][0] < record["weights"][1]
    fused = rrf.combine("q0", [noisy["q0"], good["q0"]], None, 10)
    assert fused[0][0] == "r0"


def test_linear_fusion_fits_too_and_the_equal_weights_win_a_tie():
    good, _, qrels = channels()
    record = fit_weights(lambda rs, w: reciprocal_rank_fusion(rs, 60, weights=w), [good, good], qrels)
    assert record["weights"] == [0.5, 0.5]
    lin = RetrieverKind.from_spec({"type": "linear", "of": ["a", "b", "c"], "fit": True}, "retrievers.l")
    assert len(lin.fit([good, good, good], qrels, 10)["weights"]) == 3


def test_without_dev_questions_the_configs_weights_stay_and_the_receipt_says_so():
    rrf = RetrieverKind.from_spec({"type": "rrf", "of": ["a", "b"], "fit": True, "weights": [0.7, 0.3]}, "r.h")
    record = rrf.fit([{}, {}], {}, 10)
    assert record["weights"] == [0.7, 0.3] and "no dev" in record["fitted_on"]


def test_rrf_weights_need_one_per_input():
    with pytest.raises(SettingsError, match="weights"):
        RetrieverKind.from_spec({"type": "rrf", "of": ["a", "b"], "weights": [1.0]}, "retrievers.h")


def test_the_fitted_weights_travel_in_the_receipt_to_a_live_retriever(tmp_path):
    out = tmp_path / "runs" / "h.trec"
    out.parent.mkdir()
    out.write_text("q0 Q0 x 1 1.0 h\n")
    receipt = tmp_path / "receipts" / "retrieve.h.json"
    receipt.parent.mkdir()
    write_receipt(receipt, "retrieve", "h", {}, [], [out], {"weights": [0.2, 0.8], "fitted_on": "dev"})
    assert json.loads(receipt.read_text())["fitted"]["weights"] == [0.2, 0.8]
    rrf = RetrieverKind.from_spec({"type": "rrf", "of": ["a", "b"], "fit": True}, "retrievers.h")
    rrf.name = "h"
    assert rrf.weights(Sources([], {"fitted:h": receipt})) == [0.2, 0.8]


@pytest.mark.parametrize("bad, key", [({"families": ["trivia"]}, "fit_questions.families"),
                                      ({"n": 0}, "fit_questions.n"), ({"nn": 5}, "fit_questions"),
                                      ({"seed": "one"}, "fit_questions.seed")])
def test_bad_fit_questions_settings_are_one_line_naming_the_key(bad, key):
    with pytest.raises(SettingsError) as err:
        RetrieverKind.from_spec({"type": "rrf", "of": ["a", "b"], "fit": True, "fit_questions": bad}, "retrievers.h")
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"retrievers.h.{key}")


def test_which_corpora_have_dev_questions_is_told_from_the_source(tmp_path):
    from minirag.datasets.dev_split import has_dev_questions
    from minirag.text.corpus import SourceSettings
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"qid": "a", "query": "x", "split": "test"}\n', encoding="utf-8")
    markdown = SourceSettings(format="markdown", questions=str(questions))
    assert not has_dev_questions(markdown)
    assert not has_dev_questions(SourceSettings(format="markdown", questions=""))
    questions.write_text('{"qid": "a", "query": "x", "split": "test"}\n'
                         '{"qid": "b", "query": "y", "split": "dev", "answerable": false}\n', encoding="utf-8")
    assert not has_dev_questions(markdown)  # an unanswerable dev question has nothing to rank
    questions.write_text('{"qid": "a", "query": "x", "split": "dev"}\n', encoding="utf-8")
    assert has_dev_questions(markdown)
    assert has_dev_questions(SourceSettings(format="squad", dev_docs=("Normans",)))
    assert not has_dev_questions(SourceSettings(format="squad", dev_docs=()))
    assert not has_dev_questions(SourceSettings(format="beir"))


def test_a_fit_on_synthetic_questions_says_so_and_none_left_keeps_the_configs_weights():
    good, noisy, qrels = channels()
    rrf = RetrieverKind.from_spec({"type": "rrf", "of": ["a", "b"], "fit": True}, "retrievers.h")
    on = "synthetic: 20 held-out questions (families generic)"
    assert rrf.fit([noisy, good], qrels, 10, on)["fitted_on"] == on
    record = rrf.fit([{}, {}], {}, 10, "synthetic: 0 held-out questions (families generic)")
    assert record["weights"] == [1.0, 1.0] and record["fitted_on"].startswith("nothing: no dev questions, synthetic: 0")


def test_a_shrink_of_0_is_the_best_grid_point_and_a_shrink_moves_it_towards_equal_weights_keeping_both():
    good, noisy, qrels = channels()
    fuse = lambda rs, w: reciprocal_rank_fusion(rs, 60, weights=w)  # noqa: E731
    plain = fit_weights(fuse, [noisy, good], qrels)
    assert fit_weights(fuse, [noisy, good], qrels, 0.0) == plain and "argmax" not in plain
    half = fit_weights(fuse, [noisy, good], qrels, 0.5)
    low, high = plain["weights"]
    assert half["weights"] == [round(low / 2 + 0.25, 6), round(high / 2 + 0.25, 6)]
    assert half["argmax"] == {"weights": plain["weights"], "score": plain["score"]} and half["shrink"] == 0.5
    assert half["score"] <= plain["score"] and half["channels_alone"] == plain["channels_alone"]
    assert fit_weights(fuse, [noisy, good, good], qrels, 1.0)["weights"] == [0.333333] * 3


def test_a_synthetic_fit_shrinks_by_its_fit_questions_and_its_receipt_names_the_best_grid_point_too():
    good, noisy, qrels = channels()
    on = "synthetic: 20 held-out questions (families generic)"
    spec = {"type": "rrf", "of": ["a", "b"], "fit": True}
    rrf = RetrieverKind.from_spec(spec, "retrievers.h")
    assert rrf.s.fit_questions.shrink == 0.5  # the default, chosen on dev (bench/README.md)
    raw = rrf.fit([noisy, good], qrels, 10, on)  # the stage passes the shrink; a dev fit never shrinks
    record = rrf.fit([noisy, good], qrels, 10, on, rrf.s.fit_questions.shrink)
    assert record["argmax"]["weights"] == raw["weights"] == [0.1, 0.9] and record["weights"] == [0.3, 0.7]
    assert rrf.fitted == [0.3, 0.7]  # what the run is fused with and the receipt carries to search
    assert record["fitted_on"] == f"{on}; their best weights 0.1/0.9 shrunk 0.5 of the way to equal weights"
    assert raw["fitted_on"] == on
    lin = RetrieverKind.from_spec({**spec, "type": "linear", "fit_questions": {"shrink": 0}}, "retrievers.l")
    assert lin.fit([noisy, good], qrels, 10, on, lin.s.fit_questions.shrink) == lin.fit([noisy, good], qrels, 10, on)
    with pytest.raises(SettingsError, match=r"retrievers\.h\.fit_questions\.shrink"):
        RetrieverKind.from_spec({**spec, "fit_questions": {"shrink": 1.5}}, "retrievers.h")


def test_the_kbs_fusions_fit_on_dev_so_their_retrieve_jobs_read_no_shrink():
    from minirag.stages.retrieve import retrieve_settings
    cc, g = ablations_graph()
    for name in ("hybrid-fit", "lexical-dense-fit", "rerank-forms"):
        assert set(retrieve_settings(g, {"name": name})) == set(cc["retrievers"][name]) - {"fit_questions"} | {"depth"}
