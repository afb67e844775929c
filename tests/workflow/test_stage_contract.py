"""A stage goes in as one module: dropped into minirag/stages/ of a built project, with the artifact table
regenerated, it plans its own job (and the report that lists it) and nothing already built reruns: the
generated table is no stage's code."""

import re
import sys

import pytest
from support.project import copy_built, run, snakemake

pytestmark = pytest.mark.workflow

WORD_COUNT = '''"""word_count: docs.jsonl -> word_counts.json, each document's words (a stage added to a built project)."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import load_records
from ..artifacts.io import write_json
from ..pipeline.jobs import one
from ..pipeline.stage import Out, Stage
from .common import run_stage


def word_count(docs: Path, out: Path) -> list[Path]:
    write_json(out, {d["doc_id"]: len(d["text"].split()) for d in load_records(docs, "documents")})
    return [out]


STAGES = (
    Stage("word_count", phase="chunks", step=90, per=None, names=lambda g: one(True),
          reads=lambda g, w: {"docs": str(g.layout.docs)},
          writes={"out": Out("word_counts", at="word_counts.json", check="json_file")}),
)


if __name__ == "__main__":
    run_stage(word_count)
'''


def planned(proc) -> dict[str, int]:
    """rule -> jobs of a dry run's job table."""
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", proc.stdout, re.MULTILINE)
            if m.group(1) != "total"}


def test_a_stage_added_as_one_module_plans_its_own_job_and_reruns_nothing_built(mini_built, tmp_path):
    project = copy_built(mini_built, tmp_path / "project")
    (project / "minirag" / "stages" / "word_count.py").write_text(WORD_COUNT, encoding="utf-8")
    run([sys.executable, "-m", "minirag.pipeline.artifact_table"], project)
    assert "('word_counts', 'word_counts.json', 'word_count', None, 'json_file')" in \
        (project / "minirag" / "artifacts" / "kinds.py").read_text(encoding="utf-8")
    # the report lists every artifact (its manifest), so it takes the new one in; no stage built before reruns
    assert planned(snakemake(project, "-n", "results/mini.md")) == {"word_count": 1, "note_missing": 1, "report": 1}
    assert planned(snakemake(project, "-n", "results/mini/word_counts.json")) == {"word_count": 1}
    snakemake(project, "results/mini/word_counts.json")
    assert (project / "results" / "mini" / "receipts" / "word_count.json").is_file()
