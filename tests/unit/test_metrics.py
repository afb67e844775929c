import math
import random

import pytest
from support.chunks import make_chunk

from minirag.evaluation.answers import contains, exact_match, faithful, normalise, token_f1
from minirag.evaluation.evaluate import build_qrels, doc_ranking
from minirag.evaluation.metrics import hit_at, ndcg_at, recall_at, reciprocal_rank
from minirag.evaluation.trec import format_run, read_run, write_run


def test_hand_computed_metrics():
    ranked = ["a", "b", "c", "d"]
    rel = {"b": 1, "d": 2}
    assert hit_at(ranked, rel, 1) == 0.0 and hit_at(ranked, rel, 2) == 1.0
    assert reciprocal_rank(ranked, rel) == 0.5
    assert recall_at(ranked, rel, 2) == 0.5
    dcg = 1 / math.log2(3) + 2 / math.log2(5)
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at(ranked, rel, 10) == pytest.approx(dcg / idcg)


def random_run_and_qrels(seed):
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(60)]
    run, qrels = {}, {}
    for q in range(25):
        qid = f"q{q}"
        ranked = rng.sample(docs, 40)
        # distinct scores: trec_eval orders by score, our rank column must agree
        run[qid] = [(d, round(10.0 - i * 0.137 + rng.random() * 0.01, 6)) for i, d in enumerate(ranked)]
        qrels[qid] = {d: rng.choice([1, 1, 2]) for d in rng.sample(docs, rng.randint(1, 6))}
    return run, qrels


def test_metrics_equal_pytrec_eval(tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = random_run_and_qrels(7)
    path = tmp_path / "r.trec"
    write_run(path, run, "test")
    ours_run = read_run(path)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100", "recip_rank"}).evaluate(
        {q: {d: s for d, s in r} for q, r in ours_run.items()})
    for qid, rel in qrels.items():
        ranked = [d for d, _ in ours_run[qid]]
        assert ndcg_at(ranked, rel, 10) == pytest.approx(theirs[qid]["ndcg_cut_10"], abs=1e-6)
        assert recall_at(ranked, rel, 100) == pytest.approx(theirs[qid]["recall_100"], abs=1e-6)
        assert reciprocal_rank(ranked, rel) == pytest.approx(theirs[qid]["recip_rank"], abs=1e-6)


def test_run_file_orders_ties_like_trec_eval_and_round_trips(tmp_path):
    text = format_run({"1": [("a", 1.0), ("b", 1.0), ("c", 2.0)]}, "x")
    assert text.splitlines() == ["1 Q0 c 1 2.000000 x", "1 Q0 b 2 1.000000 x", "1 Q0 a 3 1.000000 x"]
    write_run(tmp_path / "r.trec", {"1": [("a", 0.5)], "2": [("b", 0.25)]}, "x")
    assert read_run(tmp_path / "r.trec") == {"1": [("a", 0.5)], "2": [("b", 0.25)]}


def test_chunk_relevance_follows_the_evidence_span_not_the_chunking():
    c1 = make_chunk("x" * 100, doc="a.md", offset=0)
    c2 = make_chunk("y" * 100, doc="a.md", offset=100)
    c3 = make_chunk("z" * 100, doc="b.md", offset=0)
    q = {"qid": "q", "answerable": True,
         "gold": [{"doc_id": "a.md", "evidence": "...", "char_start": 120, "char_end": 130}]}
    chunk_qrels, doc_qrels = build_qrels([q], [c1, c2, c3])
    assert chunk_qrels == {"q": {c2.id: 1}} and doc_qrels == {"q": {"a.md": 1}}
    assert doc_ranking([(c3.id, 3.0), (c2.id, 2.0), (c1.id, 1.0)], {c1.id: "a.md", c2.id: "a.md", c3.id: "b.md"}) == ["b.md", "a.md"]


def test_contains_answer_is_whole_word_case_and_accent_folded():
    assert contains("eat | ate | eaten", "ate")
    assert contains("Yo TUVE", "tuve")
    assert contains("él tuvo [#2]", "el tuvo")
    assert not contains("eaten", "ate")


def test_normalise_drops_citations_case_accents_and_punctuation():
    assert normalise("  Él   TUVO, [#3] ¡sí! ") == "el tuvo si"


def test_exact_match_ignores_the_citation_and_punctuation_but_not_extra_words():
    assert exact_match("written [#1]", "written")
    assert exact_match("Tuve.", "tuve")
    assert not exact_match("it is written", "written")


def test_token_f1_is_squads():
    assert token_f1("had + the past participle", "had + past participle") == pytest.approx(2 * 1.0 * 0.75 / 1.75)
    assert token_f1("nothing alike", "written") == 0.0
    assert token_f1("written [#2]", "written") == 1.0


def test_faithful_needs_every_content_word_in_a_cited_chunk():
    assert faithful("the past participle is written [#1]", ["write | wrote | written", "past participle"])
    assert not faithful("it is writed [#1]", ["write | wrote | written"])
    assert not faithful("written", [])  # cites nothing
