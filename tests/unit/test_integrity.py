"""Receipts: what a job wrote is what a loader accepts; anything else is refused, naming the file."""

import os

import pytest

from minirag.artifacts.integrity import IntegrityError, verified, verify_corpus, write_receipt
from minirag.artifacts.layout import CorpusLayout
from minirag.artifacts.missing import MissingArtifact
from minirag.evaluation.trec import load_run, write_run


@pytest.fixture
def built(tmp_path, monkeypatch):
    """A corpus folder with one run written by its retrieve job, and a prompt job that read it."""
    monkeypatch.chdir(tmp_path)
    lay = CorpusLayout.of("results", "c")
    lay.root.mkdir(parents=True)
    lay.questions.write_text('{"qid": "q1"}\n')  # the ids a run may name
    lay.chunks.write_text('{"id": "a"}\n{"id": "b"}\n')
    write_run(lay.run("bm25"), {"q1": [("a", 2.0), ("b", 1.0)]}, "bm25")
    write_receipt(lay.receipt("retrieve", "bm25"), "retrieve", "bm25", {"depth": 10}, [], [lay.run("bm25")])
    (lay.root / "prompts").mkdir()
    lay.prompts("bm25").write_text("{}\n")
    write_receipt(lay.receipt("prompt", "bm25"), "prompt", "bm25", {}, [lay.run("bm25")], [lay.prompts("bm25")])
    return lay


def test_an_untouched_artifact_loads(built):
    assert load_run(built.run("bm25")) == {"q1": [("a", 2.0), ("b", 1.0)]}
    assert verify_corpus(built.root) == []


def test_a_run_cut_short_is_refused_naming_the_file_the_receipt_and_the_fix(built):
    path = built.run("bm25")
    path.write_bytes(path.read_bytes()[:-3])
    with pytest.raises(IntegrityError, match=r"results/c/runs/bm25\.trec: changed since its job wrote it .*"
                                             r"receipts/retrieve\.bm25\.json.*rm -f 'results/c/runs/bm25\.trec'"):
        load_run(path)
    assert verify_corpus(built.root) == [f"{path}: differs from what {built.receipt('retrieve', 'bm25')} recorded"]


def test_an_artifact_without_its_receipt_is_refused(built):
    os.remove(built.receipt("retrieve", "bm25"))
    with pytest.raises(IntegrityError, match="its receipt .* is missing"):
        verified(built.run("bm25"))


def test_a_missing_artifact_names_the_command_that_builds_it(built):
    with pytest.raises(MissingArtifact, match=r"results/c/runs/rrf\.trec is missing .* snakemake -c1"):
        verified(built.run("rrf"))


def test_a_receipt_vouches_for_its_files_whatever_path_they_are_read_through(built):
    assert verified(os.path.abspath(built.run("bm25")))


def test_verify_finds_a_job_that_read_an_input_since_rewritten(built):
    write_run(built.run("bm25"), {"q1": [("b", 3.0)]}, "bm25")
    write_receipt(built.receipt("retrieve", "bm25"), "retrieve", "bm25", {"depth": 10}, [], [built.run("bm25")])
    assert verify_corpus(built.root) == [
        f"{built.receipt('prompt', 'bm25')}: read {built.run('bm25')} before it was last rewritten (stale: rerun its job)"]


def test_an_earlier_config_s_files_are_leftovers_not_problems(built):
    from minirag.artifacts.integrity import leftovers
    write_run(built.run("old"), {"q1": [("a", 1.0)]}, "old")
    write_receipt(built.receipt("retrieve", "old"), "retrieve", "old", {}, [], [built.run("old")])
    built.run("old").write_text("q1 Q0 zz 1 1.0 old\n")  # damaged, and no job of the config writes it
    current = [built.run("bm25"), built.receipt("retrieve", "bm25"), built.prompts("bm25"),
               built.receipt("prompt", "bm25")]
    assert verify_corpus(built.root, current) == []
    assert verify_corpus(built.root) != []  # without the config, every receipt is checked
    assert leftovers(built.root, current) == [built.receipt("retrieve", "old"), built.run("old")]
