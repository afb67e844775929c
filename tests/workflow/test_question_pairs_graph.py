"""The synthesised questions in the graph: an artifact of their own, read by the encoder alone.

One build of the fixture corpus with a tiny bi-encoder (an ensemble of two) trained on generic
questions and an RRF asked to fit its weights on the dev split; then dry runs after edits.
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
      hybrid-fit: {type: rrf, of: [tiny, bm25], fit: true}
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
    # the fixture's questions have no dev split: the receipt says the config's weights stayed
    fitted = json.loads((root / "receipts" / "retrieve.hybrid-fit.json").read_text())["fitted"]
    assert fitted["fitted_on"].startswith("nothing: no dev questions") and fitted["weights"] == [1.0, 1.0]


def test_the_synthesisers_settings_retrain_exactly_the_encoder_and_what_reads_it(project):
    jobs = planned(project, "questions: {n: 40,", "questions: {n: 41,")
    assert jobs["synth_pairs"] == 1 and jobs["train_biencoder"] == 1 and jobs["embed"] == 1
    assert jobs["retrieve"] == 3  # tiny and the two fusions that read it; not hashing, not bm25
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
