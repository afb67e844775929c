"""File-system cases about what Snakemake itself reads or copies before any stage runs, and about writes
through symlinks (the filesystem group's, kept apart for size): the imports cache
(.snakemake/minirag-imports.json) and the embedding cache (an `update()` output, copied to
.snakemake/backups/ before its job) as FIFOs, devices and junk, with memory and bytes written
measured; HOME unwritable under the make targets; a results folder linked out of the project."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from fault_harness import REPO, SNAKEMAKE, Case, Edit, R, accepted, minirag, refused, run, snakemake, stage
from fault_measure import folder_bytes, measured

IMPORTS = ".snakemake/minirag-imports.json"

# a retrieve stage's command line (its kind's index given by file key), for the stage cases of both groups
RETRIEVE = ["retrieve", "--settings", json.dumps({"type": "bm25", "index": "plain", "depth": 100}), "--name", "bm25",
            "--questions", f"{R}/questions.jsonl", "--docs", f"{R}/docs.jsonl", "--chunks", f"{R}/chunks.jsonl",
            "--files", "bm25:plain", f"{R}/bm25/plain"]


def imports_cache(make, limit_mb: int = 1024):
    """The imports cache replaced by `make(path)`: a dry run plans as usual within `limit_mb` of peak
    RSS (measured), without hanging, and leaves the file as it found it (a dry run writes nothing)."""
    def check(project: Path) -> tuple[bool, str]:
        path = project / IMPORTS
        with Edit(path):
            path.unlink(missing_ok=True)
            make(path)
            before = os.lstat(path)
            proc, rss, _ = measured([SNAKEMAKE, "-c1", "-n", "results/mini.md", "--configfile", "mini.yaml"],
                                    project, timeout=120)
            after = os.lstat(path)
            untouched = (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)
        held, said = accepted(proc, "planned")
        ok = held and rss < limit_mb and untouched
        return ok, f"{said}; peak RSS {rss:.0f} MB (limit {limit_mb}); cache {'untouched' if untouched else 'rewritten'}"
    return check


def sparse_gigabyte(path: Path) -> None:
    with open(path, "wb") as fh:
        fh.truncate(1 << 30)


def dry_run_writes_no_cache(project: Path) -> tuple[bool, str]:
    path = project / IMPORTS
    with Edit(path):
        path.unlink(missing_ok=True)
        proc = snakemake(project, "-n", "results/mini.md")
        made = path.exists()
    return proc.returncode == 0 and not made, "no cache written" if not made else "the dry run wrote the cache"


def build_rebuilds_cache(project: Path) -> tuple[bool, str]:
    """A junk cache (`[]`) is ignored and, on a real run, rewritten as a cache."""
    path = project / IMPORTS
    with Edit(path):
        path.write_text("[]")
        proc = snakemake(project, "results/mini.md")
        ok = proc.returncode == 0 and path.read_text().startswith("{")
    return ok, "rewritten as a cache" if ok else (proc.stderr.strip().splitlines() or ["?"])[-1][:160]


def kept_special(rel: str, make, limit_mb: float = 1.0, base: str = R, rule: str = "embed"):
    """A file a job keeps (an update() output: the embed job's cache, the report) replaced by `make(path)`:
    the build is refused naming it, within bounded time, writing under `limit_mb` into .snakemake/backups
    (measured)."""
    def check(project: Path) -> tuple[bool, str]:
        backups = project / ".snakemake/backups"
        before = folder_bytes(backups)
        try:
            with Edit(project / base / rel) as path:
                path.unlink()
                make(path)
                proc, _, _ = measured([SNAKEMAKE, "-c1", "--forcerun", rule, "results/mini.md", "--configfile",
                                       "mini.yaml"], project, timeout=120)
                copied = (folder_bytes(backups) - before) / (1 << 20)
                shutil.rmtree(backups, ignore_errors=True)
        finally:
            snakemake(project, "results/mini.md", timeout=1800)
        held, said = refused(proc, rel)
        return held and copied < limit_mb, f"{said[:120]}; {copied:.1f} MB backed up (limit {limit_mb:g})"
    return check


def no_home_make(project: Path) -> tuple[bool, str]:
    """HOME unwritable: `make build` (check-config, then Snakemake) keeps Snakemake's cache in the project."""
    shutil.copy2(REPO / "pyproject.toml", project / "pyproject.toml")  # the venv's install stamp depends on it
    venv = Path(sys.executable).parent.parent
    try:
        proc = run(["make", "-s", "-f", str(REPO / "Makefile"), "build", "CONFIG=mini.yaml", f"VENV={venv}", "CORES=1"],
                   project, env={"HOME": "/dev/null", "XDG_CACHE_HOME": ""})
    finally:
        (project / "pyproject.toml").unlink()
    return accepted(proc, "built with HOME unwritable")


def linked_out(project: Path, folder: str = "runs") -> tuple[Path, Path]:
    """results/mini/<folder> moved out of the project and linked back: (the link, the outside folder)."""
    link, outside = project / R / folder, project.parent / f"outside-{folder}"
    shutil.rmtree(outside, ignore_errors=True)
    shutil.move(str(link), outside)
    os.symlink(outside, link)
    return link, outside


def put_back(link: Path, outside: Path) -> None:
    link.unlink()
    shutil.move(str(outside), link)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def runs_link_build(project: Path) -> tuple[bool, str]:
    """runs/ a symlink to a folder outside the project, then --forcerun retrieve: refused naming the
    link; nothing is written outside (Snakemake may delete the outputs it plans to remake)."""
    link, outside = linked_out(project)
    try:
        before = snapshot(outside)
        proc = snakemake(project, "--forcerun", "retrieve", "results/mini.md", timeout=600)
        logs = "".join(p.read_text(errors="replace") for p in (project / R / "logs").glob("retrieve*"))
        after = snapshot(outside)
        wrote = [n for n, d in after.items() if before.get(n) != d]
    finally:
        put_back(link, outside)
        snakemake(project, "results/mini.md", timeout=1800)
    held = proc.returncode != 0 and "runs: a symlink" in logs and not wrote
    return held, "refused, naming the link; nothing written outside" if held else f"exit {proc.returncode}; wrote {wrote[:3]}"


def runs_link_stage(project: Path) -> tuple[bool, str]:
    link, outside = linked_out(project)
    try:
        proc = stage(project, *RETRIEVE, "--out", f"{R}/runs/extra.trec")
        made = (outside / "extra.trec").exists()
    finally:
        put_back(link, outside)
    held, said = refused(proc, "runs", "symlink")
    return held and not made, said


def runs_link_verify(project: Path) -> tuple[bool, str]:
    link, outside = linked_out(project, "eval")
    try:
        proc = minirag(project, "verify")
    finally:
        put_back(link, outside)
    named = [ln for ln in proc.stdout.splitlines() if "eval: a symlink" in ln]
    return proc.returncode == 1 and bool(named), (named or [proc.stdout.strip()[-160:]])[0][:160]


def cases() -> list[Case]:
    g = "filesystem"
    return [Case(name, g, check, fast=fast) for name, check, fast in [
        ("imports cache: []", imports_cache(lambda p: p.write_text("[]")), True),
        ("imports cache: a list of junk entries", imports_cache(lambda p: p.write_text('{"a": 5, "b": [1]}')), True),
        ("imports cache: a FIFO", imports_cache(os.mkfifo), True),
        ("imports cache: a symlink to /dev/zero", imports_cache(lambda p: os.symlink("/dev/zero", p)), True),
        ("imports cache: a sparse 1 GB file", imports_cache(sparse_gigabyte), True),
        ("a dry run writes no imports cache", dry_run_writes_no_cache, True),
        ("a junk imports cache is rewritten by a build", build_rebuilds_cache, True),
        ("embedding cache a FIFO", kept_special("cache/hashing.npz", os.mkfifo), False),
        ("embedding cache a symlink to /dev/zero", kept_special("cache/hashing.npz",
                                                                lambda p: os.symlink("/dev/zero", p)), False),
        ("embedding cache a folder", kept_special("cache/hashing.npz", os.mkdir), False),
        ("embedding cache receipt a FIFO", kept_special("receipts/embed_cache.hashing.json", os.mkfifo), False),
        ("embedding cache a sparse 1 GB file", kept_special("cache/hashing.npz", sparse_gigabyte), False),
        ("the report a FIFO (kept when its job fails)", kept_special("mini.md", os.mkfifo, base="results",
                                                                     rule="report"), False),
        ("HOME unwritable: make build", no_home_make, False),
        ("runs/ linked out of the project: --forcerun retrieve", runs_link_build, False),
        ("runs/ linked out of the project: a stage's write", runs_link_stage, True),
        ("eval/ linked out of the project: verify", runs_link_verify, True),
    ]]

