"""A markdown corpus whose config names no questions file: indexes, search, answer and serve work; the report
says there is nothing to score and how to add questions."""

import json
import sys
import urllib.request

import pytest
from support.project import copy_project, run, snakemake

pytestmark = pytest.mark.workflow

PAGES = """\
build: [pages]
corpora:
  pages:
    source: {format: markdown, path: fixture/docs}
    tokenizer: {vocab_size: 400}
    chunk: {strategy: tokens, target_tokens: 40, overlap: 8}
    retrievers:
      bm25: {type: bm25, index: plain}
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
