"""A newcomer's path through the CLI, the Python API and the page, on the fixture corpus the real graph
built: the hint for a corpus not built yet, the default corpus and retriever, a reranker's scores,
every citation with its file line, the API example of docs/api.md, the page's placeholder and snippets."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.http import call
from support.project import MINI_CONFIG, run

pytestmark = pytest.mark.workflow
REPO = Path(__file__).resolve().parents[2]


def minirag(project, *args, check=True) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "minirag", *args], project, check=check)


def best_on_dev(project) -> str:
    """The retriever with the best chunk hit@5 (MRR breaking a tie) on the dev split, else on test."""
    metrics = json.loads((project / "results/mini/eval/metrics.json").read_text())
    figures = metrics.get("splits", {}).get("dev", metrics)["retrieval"]
    names = list(yaml.safe_load(MINI_CONFIG)["corpora"]["mini"]["retrievers"])  # in config order: ties go first
    return max(names, key=lambda r: (figures[r]["chunk"]["hit@5"], figures[r]["chunk"]["mrr"]))


def test_a_corpus_not_built_yet_names_the_make_command_for_its_config(project):
    (project / "mine2.yaml").write_text(MINI_CONFIG.replace("[mini]", "[kettle2]").replace("  mini:", "  kettle2:"), encoding="utf-8")
    proc = minirag(project, "answer", "past tense of eat", "--corpus", "kettle2", "--configfile", "mine2.yaml",
                   check=False)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.rstrip().endswith("build it with: make build CONFIG=mine2.yaml") and "kettle2" in proc.stderr


def test_without_corpus_or_retriever_the_config_s_first_corpus_and_its_best_retriever_answer(mini_built):
    out = json.loads(minirag(mini_built, "answer", "past tense of eat", "--configfile", "mini.yaml", "--json").stdout)
    assert out["retriever"] == best_on_dev(mini_built)
    assert re.fullmatch(r"best chunk hit@5 on the (dev|test) split \(\d\.\d{3}, eval/metrics.json\)", out["retriever_why"])
    text = minirag(mini_built, "answer", "past tense of eat", "--configfile", "mini.yaml").stdout
    assert f"retriever {out['retriever']} (best chunk hit@5 on the" in text


def test_a_reranker_shows_no_positional_scores(mini_built):
    common = ("--retriever", "bm25-rerank", "-k", "3", "--configfile", "mini.yaml")
    out = json.loads(minirag(mini_built, "search", "past tense of eat", *common, "--json").stdout)
    assert [r["score"] for r in out["results"]] == [None, None, None]
    text = minirag(mini_built, "search", "past tense of eat", *common).stdout
    assert re.match(r" 1\. [0-9a-f]{12}  ", text) and ".0000" not in text
    plain = minirag(mini_built, "search", "past tense of eat", "--retriever", "bm25", "-k", "1", "--configfile",
                    "mini.yaml").stdout
    assert re.match(r" 1\. \d+\.\d{4}  [0-9a-f]{12}  ", plain)  # a channel's own score stays


def test_every_cited_chunk_is_listed_with_its_file_line_and_rank(mini_built):
    out = json.loads(minirag(mini_built, "answer", "past tense of eat", "-k", "1", "--reader", "extractive",
                             "--configfile", "mini.yaml", "--json").stdout)
    assert out["citations"], out["answer"]
    for c in out["citations"]:
        assert {"n", "chunk_id", "doc_id", "line", "rank", "section", "text"} <= c.keys()
        assert f"[#{c['n']}]" in out["answer"] and c["rank"] >= 1
        line = (mini_built / "fixture/docs" / c["doc_id"]).read_text(encoding="utf-8").splitlines()[c["line"] - 1]
        said = set(re.findall(r"\w+", re.sub(r"\[#\d+\]", " ", out["answer"]).lower()))
        assert said and said <= set(re.findall(r"\w+", line.lower())), (line, out["answer"])  # the answer's row
    text = minirag(mini_built, "answer", "past tense of eat", "-k", "1", "--reader", "extractive",
                   "--configfile", "mini.yaml").stdout
    c = out["citations"][0]
    assert f"cites [#{c['n']}] {c['doc_id']}:{c['line']} § " in text and f"rank {c['rank']}" in text


def test_the_api_example_of_the_docs_runs(mini_built):
    doc = (REPO / "docs/api.md").read_text(encoding="utf-8")
    example = re.search(r"```python\n(.*?)```", doc, re.S).group(1).replace("workflow/config.yaml", "mini.yaml")
    proc = run([sys.executable, "-c", example], mini_built)
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("mini ") and "retrievers: dense, bm25" in lines[0]
    assert any(re.fullmatch(r"\[#\d\] \S+\.md:\d+ \(rank \d+\)", ln) for ln in lines)
    assert any(ln.startswith("bm25 ") and "chunk hit@5" in ln for ln in lines)


def test_the_page_asks_in_the_corpus_s_words_with_whole_word_snippets(mini_built):
    pytest.importorskip("fastapi")
    from minirag.serve.process import ServerProcess
    with ServerProcess(mini_built, "mini", "mini.yaml", "results") as server:
        _, info = call(server, "/retrievers")
        _, page = call(server, "/")
        _, out = call(server, "/search", {"query": "past tense of eat", "retriever": "bm25-rerank", "k": 5})
    first = json.loads((mini_built / "results/mini/questions.jsonl").read_text().splitlines()[0])["query"]
    assert info["placeholder"] == f"Ask mini a question, e.g. {first}" and "grammar" not in page
    assert info["default"] == best_on_dev(mini_built) and "split" in info["default_why"]
    assert "info.placeholder" in page and "r.snippet" in page
    for r in out["results"]:
        text = " ".join(r["text"].split())
        assert r["score"] is None and len(r["snippet"]) <= 160
        assert r["snippet"] == text or (r["snippet"].endswith("…") and text.startswith(r["snippet"][:-1])
                                        and text[len(r["snippet"]) - 1] == " ")
