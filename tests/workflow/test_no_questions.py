"""A markdown corpus whose config names no questions file: indexes, search, answer and serve work; the report
says there is nothing to score and how to add questions; a fitted fusion fits on synthetic questions."""

import json
import sys
import urllib.request

import pytest
from support.project import copy_project, run, snakemake

from minirag.rank.fit import shrunk

pytestmark = pytest.mark.workflow

PAGES = """\
build: [pages]
corpora:
  pages:
    domain: grammar                    # the grammar KB's pages: its reader reads them as grammar
    source: {format: markdown, path: fixture/docs}
    tokenizer: {vocab_size: 400}
    chunk: {strategy: tokens, target_tokens: 40, overlap: 8}
    embedders:
      hashing: {type: hashing, dim: 64}
    retrievers:
      bm25: {type: bm25, index: plain}
      dense: {type: dense, embedder: hashing}
      hybrid-fit: {type: rrf, of: [dense, bm25], fit: true, fit_questions: {n: 200}}
    serve: bm25
    diagnose: {embedder: hashing}
    readers:
      extractive: {type: extractive, questions: 300, steps: 100, threshold: 0.3}
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("pages"))
    (project / "pages.yaml").write_text(PAGES, encoding="utf-8")
    snakemake(project, "results/pages.md", configfile="pages.yaml")
    return project


def test_its_report_says_there_is_nothing_to_score_and_how_to_add_questions(pages):
    report = (pages / "results" / "pages.md").read_text(encoding="utf-8")
    assert "### Nothing to score yet" in report and "source: {questions: path/to/questions.jsonl}" in report
    assert "### Retrieval" not in report
    assert "- Questions: none yet." in report and "by language ;" not in report
    # its reader was trained all the same: the report says on what and with which signals
    selector = report.split("#### Reader `extractive`: the answer selector", 1)[1]
    assert "and the 0 dev questions" in selector and "Signals: " in selector


def test_search_and_answer_work_on_it(pages):
    cli = [sys.executable, "-m", "minirag"]
    found = run([*cli, "search", "past of eat", "--corpus", "pages", "--configfile", "pages.yaml", "-k", "3"], pages)
    assert "en/" in found.stdout
    said = run([*cli, "answer", "What is the past of eat?", "--corpus", "pages", "--configfile", "pages.yaml"], pages)
    assert said.stdout.startswith("ate [#"), said.stdout


def test_serve_answers_on_it(pages):
    from minirag.serve.process import ServerProcess
    with ServerProcess(pages, "pages", "pages.yaml") as server:
        body = json.dumps({"query": "What is the past of eat?"}).encode()
        req = urllib.request.Request(server.url + "/answer", body, {"Content-Type": "application/json"})
        said = json.loads(urllib.request.urlopen(req, timeout=60).read())
    assert said["answer"].startswith("ate [#"), said


def test_a_fitted_fusion_fits_on_synthetic_questions_and_search_ranks_with_its_weights(pages):
    root = pages / "results" / "pages"
    fitted = json.loads((root / "receipts" / "retrieve.hybrid-fit.json").read_text(encoding="utf-8"))["fitted"]
    held = (root / "fit" / "hybrid-fit.jsonl").read_text(encoding="utf-8").splitlines()
    # no encoder trains on questions here: every synthesised question is held out from what feeds the fusion
    assert len(held) == fitted["questions"] > 20
    best = "/".join(f"{w:g}" for w in fitted["argmax"]["weights"])
    assert fitted["fitted_on"] == (f"synthetic: {len(held)} held-out questions (families generic); "
                                   f"their best weights {best} shrunk 0.5 of the way to equal weights")
    assert fitted["weights"] == shrunk(fitted["argmax"]["weights"], 0.5)  # what search ranks with
    assert fitted["argmax"]["score"] >= max(fitted["channels_alone"])
    found = run([sys.executable, "-m", "minirag", "search", "past of eat", "--corpus", "pages", "--configfile",
                 "pages.yaml", "-k", "3", "--retriever", "hybrid-fit"], pages)
    assert "en/" in found.stdout
