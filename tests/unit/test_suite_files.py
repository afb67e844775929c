"""The development suite (bench/suite/) reads as a user's folder does: pages with and without front matter
(and, in the held-out corpora read as a folder, text and HTML pages), questions whose evidence is in their
pages, dev and test splits each a quarter or more not answerable."""

from pathlib import Path

import pytest
import yaml

from minirag.text.corpus import curate_markdown
from minirag.text.folder import curate_folder
from minirag.text.questions import load_questions

SUITE = Path(__file__).resolve().parents[2] / "bench" / "suite"
FIELDS = {"title": "title", "lang": "lang", "tags": "tags"}


@pytest.mark.parametrize("name", ["grinder", "leave-policy", "recipes", "router", "gym"])
def test_each_corpus_curates_and_its_questions_hold(name):
    source = yaml.safe_load((SUITE / f"{name}.yaml").read_text(encoding="utf-8"))["corpora"][name]["source"]
    curate = curate_folder if source.get("format", "folder") == "folder" else curate_markdown
    docs = curate(SUITE / name / "docs", source["glob"], FIELDS, source["default_lang"])
    assert len(docs) >= 5
    assert any(not (SUITE / name / "docs" / d["doc_id"]).read_text(encoding="utf-8").startswith("---") for d in docs)
    if curate is curate_folder:  # the held-out corpora are kept as users keep them, not as Markdown only
        assert {"text", "html"} & {d.get("source", {}).get("kind") for d in docs}
    questions = load_questions(SUITE / name / "questions.jsonl", docs)
    assert len(questions) >= 36
    for split in ("dev", "test"):
        part = [q for q in questions if q["split"] == split]
        assert len(part) >= 12 and sum(not q["answerable"] for q in part) / len(part) >= 0.25
