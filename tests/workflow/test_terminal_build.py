"""What a build prints on the terminal: a line per finished job, a failed stage's own error, a config
error as one line, whichever way the build is started (snakemake, make build, make check-config)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.project import REPO, snakemake

pytestmark = pytest.mark.workflow

VENV = Path(sys.executable).parent.parent


def make(project: Path, *args: str) -> subprocess.CompletedProcess:
    # -o: the running venv counts as installed, whatever the mtimes say; without it, a pyproject.toml newer
    # than VENV/.installed made make pip-install the fixture project (a temporary folder) into that venv
    return subprocess.run(["make", "-s", "-f", str(REPO / "Makefile"), "-o", f"{VENV}/.installed", *args,
                           f"VENV={VENV}", "CORES=1"],
                          cwd=project, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(project)})


def test_a_build_prints_one_line_per_finished_job(mini_built):
    out = (mini_built / "terminal.txt").read_text(encoding="utf-8")
    lines = out.splitlines()
    total = int(re.search(r"^(\d+) jobs to run", out, re.MULTILINE).group(1))
    finished = [ln for ln in lines if re.match(r"\s*\d+/\d+ \S", ln)]
    assert len(finished) == total and f"{total}/{total} " in finished[-1], out[:2000]
    assert len(lines) <= total + 3, out[:2000]  # the count first, then the log's path and the report's
    assert "input:" not in out and "reason:" not in out
    assert lines[-1] == "the report: results/mini.md" and lines[-2].startswith("Complete log"), out[-500:]


@pytest.fixture
def bad_evidence(project):
    shutil.copy2(REPO / "pyproject.toml", project)  # what make's .venv/.installed target depends on
    questions = project / "fixture" / "questions.jsonl"
    text = questions.read_text(encoding="utf-8")
    questions.write_text(text.replace("| eat | ate | eaten |", "| eat | ated | eaten |", 1), encoding="utf-8")
    return project


def test_a_failed_stage_prints_its_own_error_from_snakemake(bad_evidence):
    proc = snakemake(bad_evidence, "results/mini.md", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "failed: mini: questions (results/mini/logs/questions.log):" in out, out[-2000:]
    assert re.search(r"error: .*questions.jsonl:1: f-01: .*evidence not found verbatim", out), out[-2000:]


def test_a_failed_stage_prints_its_own_error_from_make(bad_evidence):
    proc = make(bad_evidence, "build", "CONFIG=mini.yaml")
    assert proc.returncode != 0
    assert re.search(r"error: .*questions.jsonl:1: f-01: .*evidence not found verbatim", proc.stderr), proc.stderr


@pytest.mark.parametrize("target", ["check-config", "build"])
def test_a_config_typo_is_one_line_from_make(project, target):
    shutil.copy2(REPO / "pyproject.toml", project)
    config = project / "mine.yaml"
    config.write_text("build: [mini]\ncorpora:\n  mini:\n    depht: 10\n", encoding="utf-8")
    proc = make(project, target, "CONFIG=mine.yaml")
    # make's own "make: *** ... Error 2" ("make[1]: ***" when the suite itself runs under `make test`)
    said = [ln for ln in proc.stderr.splitlines() if not re.match(r"make(\[\d+\])?: \*\*\*", ln)]
    assert proc.returncode != 0
    assert said == ["error: mine.yaml: corpora.mini.depht: unknown key, did you mean 'depth'? (known: answer, "
                    "assertions, bm25, candidates, chunk, depth, diagnose, domain, embedders, note, prompt, readers, "
                    "retrievers, serve, shards, source, strict, tokenizer, train_cap, train_seed)"], proc.stderr
