"""The synthesised questions in the graph: an artifact of their own, read by the encoder alone.

One build of the fixture corpus with a tiny bi-encoder (an ensemble of two) trained on generic
questions and an RRF asked to fit its weights: the fixture's questions have no dev split, so it fits
them on held-out synthetic questions (the fit_questions job); then dry runs after edits.
"""

import json
import re

import numpy as np
import pytest
from support.project import MINI_CORPUS, copy_project, snakemake

pytestmark = pytest.mark.workflow

CONFIG = MINI_CORPUS + """\
    embedders:
      hashing: {type: hashing, dim: 64}
      tiny:
        type: biencoder
        d: 8
        hidden: 16
        token_dim: 16
        epochs: 2
        batch_size: 16
        members: 2
        questions: {n: 40, families: [generic], repeat: 1}
    retrievers:
      hashing: {type: dense, embedder: hashing}
      tiny: {type: dense, embedder: tiny}
      bm25: {type: bm25, index: plain}
      hybrid: {type: rrf, of: [tiny, bm25], k: 60}
      hybrid-fit: {type: rrf, of: [tiny, bm25], fit: true, fit_questions: {n: 300}}
    answer: []
    diagnose: {embedder: hashing}
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = copy_project(tmp_path_factory.mktemp("qp"))
    (root / "q.yaml").write_text(CONFIG, encoding="utf-8")
    snakemake(root, "results/q.md", configfile="q.yaml")
    return root


def planned(project, old: str, new: str) -> dict[str, int]:
    """Job counts of a dry run with one edit of the config; the edit is undone afterwards."""
    config = project / "q.yaml"
    text = config.read_text(encoding="utf-8")
    assert old in text
    config.write_text(text.replace(old, new, 1), encoding="utf-8")
    try:
        out = snakemake(project, "-n", "results/q.md", configfile="q.yaml").stdout
    finally:
        config.write_text(text, encoding="utf-8")
    if "Nothing to be done" in out:
        return {}
    table = out.split("Job stats:")[1].split("total")[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.MULTILINE)}


def test_the_questions_are_an_artifact_the_encoder_trains_on(project):
    root = project / "results" / "mini"
    records = [json.loads(line) for line in (root / "pairs" / "tiny.jsonl").read_text().splitlines()]
    assert records and {r["split"] for r in records} == {"train", "heldout"}
    sidecar = json.loads((root / "encoders" / "tiny.json").read_text())
    assert sidecar["pairs_by_source"]["questions"] == sum(r["split"] == "train" for r in records)
    assert json.loads((root / "receipts" / "synth_pairs.tiny.json").read_text())["outputs"]


def fit_set(project) -> list[dict]:
    path = project / "results" / "mini" / "fit" / "hybrid-fit.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_without_dev_questions_a_fitted_fusion_fits_on_held_out_synthetic_questions(project):
    from minirag.query.built_corpus import BuiltCorpus
    from minirag.rank.fit import fit_weights, shrunk
    root = project / "results" / "mini"
    fitted = json.loads((root / "receipts" / "retrieve.hybrid-fit.json").read_text())["fitted"]
    questions = fit_set(project)
    assert len(questions) > 20 and fitted["questions"] == len(questions)
    best = "/".join(f"{w:g}" for w in fitted["argmax"]["weights"])
    assert fitted["fitted_on"] == (f"synthetic: {len(questions)} held-out questions (families generic); "
                                   f"their best weights {best} shrunk 0.5 of the way to equal weights")
    # the weights are the grid's best on those questions, ranked by the two channels as search ranks them,
    # shrunk halfway to equal weights (fit_questions.shrink's default); the receipt keeps both
    import os
    here = os.getcwd()
    os.chdir(project)
    try:
        corpus = BuiltCorpus.open("q.yaml", "mini")
        channels = [corpus.retriever(r)[1] for r in ("tiny", "bm25")]
        inputs = [{q["qid"]: ch.search(q["query"], k=corpus.depth) for q in questions} for ch in channels]
        kind = corpus.settings.retrievers["hybrid-fit"]
        mine = fit_weights(lambda rs, w: kind.fuse(rs, w, corpus.depth), inputs,
                           {q["qid"]: {q["chunk"]: 1} for q in questions}, shrink=0.5)
    finally:
        os.chdir(here)
    assert fitted["weights"] == mine["weights"] and fitted["score"] == mine["score"]
    assert fitted["argmax"] == mine["argmax"] and fitted["weights"] == shrunk(fitted["argmax"]["weights"], 0.5)
    assert fitted["argmax"]["score"] >= max(fitted["channels_alone"])
    report = (project / "results" / "q.md").read_text(encoding="utf-8")
    assert "weights fitted on held-out synthetic questions" in report


def test_the_fit_set_holds_no_question_the_encoder_trained_on(project):
    from minirag.answer.reading.retrieval_questions import heldout_of
    questions = fit_set(project)
    trained = {json.loads(line)["query"] for line in (project / "results" / "mini" / "pairs" / "tiny.jsonl")
               .read_text(encoding="utf-8").splitlines() if json.loads(line)["split"] == "train"}
    assert trained and not trained & {q["query"] for q in questions}
    assert all(heldout_of(q["query"], 0, 0.2) and q["split"] == "heldout" for q in questions)
    # the synthesiser's own draw is larger: the encoder's hash kept about a fifth of it
    receipt = json.loads((project / "results" / "mini" / "receipts" / "fit_questions.hybrid-fit.json").read_text())
    assert receipt["settings"]["heldout_of"] == [{"encoder": "tiny", "seed": 0, "share": 0.2}]


def test_a_rerankers_synthetic_questions_are_left_out_and_the_fit_set_is_seeded(project, tmp_path):
    from minirag.artifacts.integrity import load_records
    from minirag.rank.synth import synthesize
    from minirag.stages.fit_questions import fit_questions
    root = project / "results" / "mini"
    settings = {"n": 300, "families": ["generic"], "seed": 0, "heldout_of": []}
    plain, again = fit_questions(settings, root / "docs.jsonl", root / "chunks.jsonl", tmp_path / "a.jsonl")[0], \
        fit_questions(settings, root / "docs.jsonl", root / "chunks.jsonl", tmp_path / "b.jsonl")[0]
    assert plain.read_bytes() == again.read_bytes()
    made = {q["query"] for q in synthesize(load_records(root / "docs.jsonl", "documents"), 50, 0)}
    before = {json.loads(line)["query"] for line in plain.read_text(encoding="utf-8").splitlines()}
    assert made & before  # table and heading questions: the reranker's synthesiser makes them too
    out = fit_questions({**settings, "rerankers": [{"reranker": "r", "synthetic": 50, "seed": 0}]},
                        root / "docs.jsonl", root / "chunks.jsonl", tmp_path / "c.jsonl")[0]
    after = {json.loads(line)["query"] for line in out.read_text(encoding="utf-8").splitlines()}
    assert after == before - made


def test_the_fit_questions_settings_rerun_exactly_the_synthesis_and_the_fusion(project):
    jobs = planned(project, "fit_questions: {n: 300}", "fit_questions: {n: 301}")
    assert jobs["fit_questions"] == 1 and jobs["retrieve"] == 1
    assert set(jobs) <= {"fit_questions", "retrieve", "evaluate", "diagnose", "summary_figure", "report"}
    jobs = planned(project, "fit_questions: {n: 300}", "fit_questions: {n: 300, families: [generic, learner]}")
    assert jobs["fit_questions"] == 1 and jobs["lexicon"] == 1 and jobs["retrieve"] == 1


def test_the_shrink_refits_the_fusion_alone_on_the_same_questions(project):
    jobs = planned(project, "fit_questions: {n: 300}", "fit_questions: {n: 300, shrink: 0.25}")
    assert jobs["retrieve"] == 1 and "fit_questions" not in jobs
    assert set(jobs) <= {"retrieve", "evaluate", "diagnose", "summary_figure", "report"}


def test_the_synthesisers_settings_retrain_exactly_the_encoder_and_what_reads_it(project):
    jobs = planned(project, "questions: {n: 40,", "questions: {n: 41,")
    assert jobs["synth_pairs"] == 1 and jobs["train_biencoder"] == 1 and jobs["embed"] == 1
    assert jobs["retrieve"] == 3  # tiny and the two fusions that read it; not hashing, not bm25
    assert "fit_questions" not in jobs  # the encoder's hash (seed, share) did not change: nor did what it holds out
    assert set(jobs) <= {"synth_pairs", "train_biencoder", "embed", "retrieve", "evaluate", "diagnose",
                         "loss_figure", "summary_figure", "report"}


def test_how_often_the_questions_go_in_retrains_without_synthesising_again(project):
    jobs = planned(project, "repeat: 1}", "repeat: 2}")
    assert "synth_pairs" not in jobs and jobs["train_biencoder"] == 1


def test_an_ensembles_vectors_are_its_members_side_by_side_and_its_size_retrains_it_alone(project):
    from minirag.artifacts.layout import CorpusLayout
    layout = CorpusLayout.of(project / "results", "mini")
    sidecar = json.loads(layout.encoder_sidecar("tiny").read_text())
    assert sidecar["config"]["members"] == 2 and len(sidecar["loss_per_epoch"]) == 2
    vectors = np.load(layout.vectors("tiny"))
    assert vectors.shape[1] == 16
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert layout.run("tiny").read_text().strip()
    jobs = planned(project, "members: 2", "members: 3")
    assert "synth_pairs" not in jobs and jobs["train_biencoder"] == 1 and jobs["embed"] == 1
