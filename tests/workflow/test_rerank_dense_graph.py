"""The reranker's `dense` option in the graph, on the fixture corpus: turning it on reruns the reranker's
training and its run (and what reads that run) only; the model then weighs the cosine, and a live search
ranks as the run file does (the server reads the vectors and the query side too)."""

import json
import sys

import pytest
from support.project import built_with, planned_named, run, snakemake

pytestmark = pytest.mark.workflow

DENSE = {"retrievers": {"bm25-rerank": {"dense": "hashing"}}}


@pytest.fixture(scope="module")
def project(mini_built, tmp_path_factory):
    return built_with(mini_built, tmp_path_factory.mktemp("rd") / "p", DENSE)


def test_the_option_reruns_the_reranker_and_what_reads_its_run_only(project):
    jobs = planned_named(project)
    assert {("train_reranker", "bm25-rerank"), ("retrieve", "bm25-rerank")} <= jobs
    assert {(rule, name) for rule, name in jobs if rule in ("train_reranker", "retrieve")} == {
        ("train_reranker", "bm25-rerank"), ("retrieve", "bm25-rerank")}
    assert not {rule for rule, _ in jobs} & {"chunk", "embed", "bm25", "lexicon", "train_reader", "train_tokenizer"}


def test_the_model_weighs_the_cosine_and_a_live_search_ranks_as_the_run(project):
    snakemake(project, "results/mini/runs/bm25-rerank.trec")
    sidecar = json.loads((project / "results" / "mini" / "rerankers" / "bm25-rerank.json").read_text())
    assert sidecar["features"][-1] == "dense" and sidecar["weights"]["dense"] != 0
    from minirag.evaluation.trec import read_run
    ranked = read_run(project / "results" / "mini" / "runs" / "bm25-rerank.trec")["f-03"]
    proc = run([sys.executable, "-m", "minirag", "search", "past tense of try", "--retriever", "bm25-rerank",
                "-k", "5", "--json", "--corpus", "mini", "--configfile", "mini.yaml"], project)
    assert [r["chunk_id"] for r in json.loads(proc.stdout)["results"]] == [cid for cid, _ in ranked[:5]]
