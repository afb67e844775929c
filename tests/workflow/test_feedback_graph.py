"""A feedback run in the graph, on the fixture corpus: adding one plans its retrieve (and what reads its run)
only; retraining its reader re-plans it; a live search ranks as its run file does."""

import json
import sys

import pytest
from support.project import built_with, planned_named, run, snakemake

pytestmark = pytest.mark.workflow

# over the hashing encoder's run: BM25 with the fixture languages' question filler and stems already ranks the
# chunks that hold the reader's answers where feedback would move them
FEEDBACK = {"retrievers": {"dense-fb": {"type": "feedback", "of": "dense", "reader": "extractive", "n": 20}}}


@pytest.fixture(scope="module")
def project(mini_built, tmp_path_factory):
    return built_with(mini_built, tmp_path_factory.mktemp("fb") / "p", FEEDBACK)


def test_a_feedback_run_plans_its_retrieve_only(project):
    jobs = planned_named(project)
    assert {(rule, name) for rule, name in jobs if rule in ("retrieve", "train_reranker", "train_reader")} == {
        ("retrieve", "dense-fb")}


def test_a_live_search_ranks_as_the_run_file(project):
    snakemake(project, "results/mini/runs/dense-fb.trec")
    from minirag.evaluation.trec import read_run
    runs = read_run(project / "results" / "mini" / "runs" / "dense-fb.trec")
    base = read_run(project / "results" / "mini" / "runs" / "dense.trec")
    questions = [q for q in map(json.loads, (project / "results" / "mini" / "questions.jsonl").open())
                 if q["qid"] in runs]  # a question BM25 finds nothing for has no row
    moved = [q for q in questions if [c for c, _ in runs[q["qid"]][:5]] != [c for c, _ in base[q["qid"]][:5]]]
    assert moved, "the reader's answers moved no question's top 5"
    for q in (moved[0], questions[0]):
        proc = run([sys.executable, "-m", "minirag", "search", q["query"], "--retriever", "dense-fb", "-k", "5",
                    "--json", "--corpus", "mini", "--configfile", "mini.yaml"], project)
        assert [r["chunk_id"] for r in json.loads(proc.stdout)["results"]] == [c for c, _ in runs[q["qid"]][:5]]


def test_retraining_its_reader_replans_its_retrieve(project):
    # after the live-search test built its run: only the reader's change re-plans it
    import yaml
    config = yaml.safe_load((project / "mini.yaml").read_text(encoding="utf-8"))
    config["corpora"]["mini"]["readers"]["extractive"]["steps"] = 101
    (project / "mini.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")  # the module's last test
    jobs = planned_named(project)
    assert {("train_reader", "extractive"), ("retrieve", "dense-fb")} <= jobs
    assert ("retrieve", "dense") not in jobs
