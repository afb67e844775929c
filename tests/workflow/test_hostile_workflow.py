"""Hostile input at the workflow's level, on a built fixture project: config files given to
Snakemake, artifacts edited with their hashes rewritten in every receipt that names them
(the content checks must catch what the hash checks cannot), and a killed Snakemake."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.project import REPO, copy_built

sys.path.insert(0, str(REPO / "bench"))
import fault_harness as faults  # noqa: E402

pytestmark = pytest.mark.workflow
R = "results/mini"


@pytest.fixture(scope="module")
def built(faults_built, tmp_path_factory):
    return copy_built(faults_built, tmp_path_factory.mktemp("hostile") / "project")  # forged and restored


def cli(project: Path, *args: str) -> subprocess.CompletedProcess:
    return faults.run([sys.executable, "-m", "minirag", *args, "--corpus", "mini", "--configfile", "mini.yaml"],
                      project)


def refused(proc: subprocess.CompletedProcess, *needles: str) -> str:
    err = proc.stderr + proc.stdout
    assert proc.returncode != 0, f"accepted:\n{err[-3000:]}"
    assert "Traceback" not in err, err[-3000:]
    for needle in needles:
        assert needle in err, err[-3000:]
    return err


# ------------------------------------------------------------------ config files


def alias_bomb_config(project: Path) -> str:
    anchors = "\n".join(["  a0: &a0 [x, x, x, x, x, x, x, x, x]"] + [
        f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)])
    (project / "bomb.yaml").write_text("x-anchors:\n" + anchors + "\n" + faults.CONFIG + "    depth: *a8\n")
    return "bomb.yaml"


def limited_snakemake(project: Path, *args: str, configfile: str, timeout: float = 180,
                      mem_mb: int = 2048) -> subprocess.CompletedProcess:
    """Snakemake with at most `mem_mb` of address space and `timeout` seconds (a hang fails the test)."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (mem_mb << 20, mem_mb << 20))
    return subprocess.run([faults.SNAKEMAKE, "-c1", *args, "--configfile", configfile], cwd=project,
                          capture_output=True, text=True, timeout=timeout, preexec_fn=limit,
                          env={**os.environ, "PYTHONPATH": str(project)})


def test_an_alias_bomb_in_a_config_value_is_refused_by_the_dry_run(built):
    proc = limited_snakemake(built, "-n", "results/bomb.md", configfile=alias_bomb_config(built))
    refused(proc, "bomb.yaml", "alias bomb")


@pytest.mark.parametrize("target", ["fixture", "missing.yaml"])
def test_a_configfile_that_is_a_folder_or_missing_is_one_line_from_make_and_the_cli(built, target):
    venv = Path(sys.executable).parent.parent
    proc = faults.run(["make", "-s", "-f", str(REPO / "Makefile"), "check-config", f"CONFIG={target}",
                       f"VENV={venv}"], built)
    err = refused(proc, target)
    assert len([ln for ln in err.splitlines() if "error" in ln.lower()]) <= 2, err  # its line, and make's
    refused(faults.run([sys.executable, "-m", "minirag", "search", "eat", "--corpus", "mini", "--configfile",
                        target], built), target)


# ------------------------------------------------------------------ artifacts well-formed by their receipts


def nan_row(project: Path) -> bytes:
    import io
    vectors = np.load(project / R / "vectors/hashing.npy")
    vectors[3] = np.nan
    buf = io.BytesIO()
    np.save(buf, vectors)
    return buf.getvalue()


def test_vectors_with_a_nan_row_and_rewritten_hashes_are_refused_by_verify_and_search(built):
    rel = f"{R}/vectors/hashing.npy"
    with faults.Forged(built, rel):
        faults.forge(built, rel, nan_row(built))
        refused(cli(built, "verify"), "hashing.npy", "row 3", "NaN")
        refused(cli(built, "search", "eat", "--retriever", "dense", "-k", "22"), "hashing.npy", "row 3", "NaN")
    assert cli(built, "verify").returncode == 0


def run_lines(project: Path, name: str) -> list[str]:
    return (project / R / "runs" / f"{name}.trec").read_text().splitlines(keepends=True)


def duplicated(lines):
    return lines[:2] + [lines[1]] + lines[3:]


def nan_score(lines):
    parts = lines[1].split()
    return lines[:1] + [" ".join(parts[:4] + ["nan", parts[5]]) + "\n"] + lines[2:]


def ranks_swapped(lines):
    return lines[:1] + [lines[2], lines[1]] + lines[3:]


def renumbered(lines):
    """Ranks out of score order: the first two lines' ranks exchanged (every line else intact)."""
    a, b = lines[0].split(), lines[1].split()
    a[3], b[3] = b[3], a[3]
    return [" ".join(b) + "\n", " ".join(a) + "\n"] + lines[2:]


def unknown_chunk(lines):
    parts = lines[0].split()
    return [" ".join(parts[:2] + ["ffffffffffff"] + parts[3:]) + "\n"] + lines[1:]


@pytest.mark.parametrize("edit, message", [
    (duplicated, r"bm25.trec:3: chunk '\w+' is ranked twice"),
    (nan_score, r"bm25.trec:2: score nan is not a finite number"),
    (ranks_swapped, r"bm25.trec:2: rank 2 of query '[\w-]+' follows rank 0|bm25.trec:2: rank 3"),
    (renumbered, r"bm25.trec:2: rank 2 of query '[\w-]+' scores [\d.]+, above rank 1's"),
    (unknown_chunk, r"bm25.trec:1: chunk 'ffffffffffff' is not in chunks.jsonl"),
    (lambda lines: None, r"bm25.trec:1: the run is named 'dense', the file is 'bm25'"),
])
def test_a_run_with_rewritten_hashes_is_refused_by_verify_and_assert_naming_file_and_line(built, edit, message):
    import re
    rel = f"{R}/runs/bm25.trec"
    lines = run_lines(built, "bm25")
    new = edit(lines)
    data = "".join(new if new is not None else run_lines(built, "dense")).encode()
    with faults.Forged(built, rel):
        faults.forge(built, rel, data)
        for proc in (cli(built, "verify"), cli(built, "assert")):
            err = refused(proc)
            assert re.search(message, err), err[-2000:]
    assert cli(built, "verify").returncode == 0


# ------------------------------------------------------------------ processes


@pytest.mark.slow
def test_a_stage_stops_when_snakemake_is_killed_whatever_the_load(built):
    """The stage announces itself (a pid file, written when it opens its output), the wait for it is
    bounded, and the stage must be gone soon after Snakemake's SIGKILL."""
    from fault_cases.processes import orphan_stops
    held, observed = orphan_stops(built)
    assert held, observed
