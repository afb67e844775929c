"""The file system: a full disk at each kind of write, a read-only results folder, unwritable
HOME and TMPDIR, an artifact that is a symlink, a FIFO or a device, a folder that is a file."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Callable

from fault_harness import PY, SNAKEMAKE, Case, Edit, R, accepted, minirag, refused, run, search, stage

from fault_cases import filesystem_links
from fault_cases.filesystem_links import RETRIEVE

EMBED = ["embed", "--settings", json.dumps({"type": "hashing"}), "--name", "hashing", "--docs", f"{R}/docs.jsonl",
         "--chunks", f"{R}/chunks.jsonl"]
BM25 = ["bm25", "--settings", "{}", "--docs", f"{R}/docs.jsonl", "--chunks", f"{R}/chunks.jsonl"]
def shell(project: Path, prefix: str, args: list[str], **kw):
    quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in args)
    return run(["bash", "-c", f"{prefix} exec {PY} -m minirag.stages.{quoted}"], project, **kw)


def full_disk(args: list[str] | Callable[[Path], list[str]], out: str, keep: str, blocks: int = 1,
              named: str | None = None):
    """The stage writes `out` under a file-size limit of `blocks` KB: one error line naming the file it
    was writing (`named`, else out's first path), `keep` unchanged."""
    def check(project: Path) -> tuple[bool, str]:
        before = (project / keep).read_bytes()
        argv = args(project) if callable(args) else args
        proc = shell(project, f"trap '' XFSZ; ulimit -f {blocks};", argv + out.split())
        held, said = refused(proc, "File too large", named or out.split()[1])
        return held and (project / keep).read_bytes() == before, said
    return check


def train_reader(project: Path) -> list[str]:
    """The minigpt reader's training as the build ran it, on 20 tasks: its tasks file fits in 40 KB, its
    weights (72 KB) do not."""
    settings = json.loads((project / R / "receipts/train_reader.minigpt.json").read_text())["settings"]
    return ["train_reader", "--settings", json.dumps({**settings, "tasks": 20}), "--name", "minigpt", "--docs",
            f"{R}/docs.jsonl", "--files", "tokenizer", f"{R}/tokenizer.json"]


def read_only(folder: str, args: list[str], out: str):
    """The stage writes into a folder mounted read-only (a private mount namespace)."""
    def check(project: Path) -> tuple[bool, str]:
        target = project / folder
        quoted = " ".join("'" + a + "'" for a in args + out.split())
        cmd = f"mount --bind -o ro '{target}' '{target}' && exec {PY} -m minirag.stages.{quoted}"
        proc = run(["unshare", "-m", "bash", "-c", cmd], project)
        if "mount:" in proc.stderr or "unshare:" in proc.stderr:
            return False, "cannot make a read-only mount here (needs a mount namespace)"
        return refused(proc, "Read-only file system")
    return check


def full_tmpdir(read_only: bool = False):
    """A build with TMPDIR on a full file system of 64 KB (a private mount namespace): one line naming
    TMPDIR and what to do (Snakemake's job scheduler wrote its problem there and ended in its
    traceback). Read-only, it is not refused: the scheduler then writes in the working folder."""
    def check(project: Path) -> tuple[bool, str]:
        scratch = project / "scratch/tmpfs"
        scratch.mkdir(parents=True, exist_ok=True)
        mount = f"mount -t tmpfs -o size=64k,{'ro' if read_only else 'rw'} tmpfs '{scratch}'"
        filled = "" if read_only else f"dd if=/dev/zero of='{scratch}/fill' bs=4k 2>/dev/null; "
        rule = "report" if read_only else "retrieve"  # full: many jobs at once, which the scheduler plans
        cmd = (f"{mount} && {filled}TMPDIR='{scratch}' exec {SNAKEMAKE} -c1 --forcerun {rule} results/mini.md "
               "--configfile mini.yaml")
        proc = run(["unshare", "-m", "bash", "-c", cmd], project)
        if "mount:" in proc.stderr or "unshare:" in proc.stderr:
            return False, "cannot make a private mount here (needs a mount namespace)"
        if read_only:
            return accepted(proc, "built: the scheduler wrote in the working folder")
        return refused(proc, f"TMPDIR ({scratch})", "TMPDIR=$PWD/.tmp")
    return check


def vectors_on_full_disk(project: Path) -> tuple[bool, str]:
    """embed writes its vectors (22 KB) into a file system of 16 KB (a private mount): one line naming the
    file, and no temporary file left (they were written through a memory map of a sparse file: SIGBUS,
    an empty log and a .tmp of the whole size left behind)."""
    folder = project / "scratch/vfs"
    folder.mkdir(parents=True, exist_ok=True)
    quoted = " ".join("'" + a + "'" for a in EMBED + ["--out", f"{folder}/hashing.npy"])
    cmd = (f"mount -t tmpfs -o size=16k tmpfs '{folder}' || exit 99; {PY} -m minirag.stages.{quoted}; rc=$?; "
           f"echo \"left: $(ls -A '{folder}')\"; exit $rc")
    proc = run(["unshare", "-m", "bash", "-c", cmd], project)
    if proc.returncode == 99:
        return False, "cannot make a private mount here (needs a mount namespace)"
    held, said = refused(proc, "No space left on device", f"{folder}/hashing.npy")
    left = proc.stdout.rpartition("left: ")[2].strip()
    return held and not left, said if not left else f"{said[:100]}; left behind: {left}"


def search_read_only(project: Path) -> tuple[bool, str]:
    """Search over a results folder mounted read-only: it only reads, so it answers."""
    cmd = (f"mount --bind -o ro '{project / 'results'}' '{project / 'results'}' && exec {PY} -m minirag search eat "
           "--corpus mini --configfile mini.yaml --retriever bm25")
    proc = run(["unshare", "-m", "bash", "-c", cmd], project)
    return accepted(proc, "answered from a read-only results folder")


def no_home(args: list[str], env_extra: dict | None = None, cli: bool = False):
    """HOME and TMPDIR unwritable (and missing): what a locked-down account or container gives."""
    def check(project: Path) -> tuple[bool, str]:
        env = {"HOME": "/nonexistent/home", "TMPDIR": "/nonexistent/tmp", "MPLCONFIGDIR": "", **(env_extra or {})}
        proc = (minirag(project, *args, env=env) if cli else stage(project, *args, env=env))
        return accepted(proc, "ran without HOME and TMPDIR")
    return check


def output_is_symlink(project: Path) -> tuple[bool, str]:
    """An output path that is a symlink to a file elsewhere: the write replaces the link, never
    writes through it."""
    victim = project / "scratch/victim.txt"
    victim.write_text("precious\n")
    out = project / "scratch/runs/bm25.trec"
    out.parent.mkdir(exist_ok=True)
    out.unlink(missing_ok=True)
    os.symlink(victim, out)
    proc = stage(project, *RETRIEVE, "--out", str(out))
    ok = proc.returncode == 0 and victim.read_text() == "precious\n" and not out.is_symlink()
    return ok, "the link was replaced, its target untouched" if ok else f"target now {victim.read_text()[:40]!r}"


def artifact_replaced(make):
    """An artifact replaced by a FIFO or a device: refused at once, never read (it would never end)."""
    def check(project: Path) -> tuple[bool, str]:
        path = project / R / "runs/bm25.trec"
        with Edit(path):
            path.unlink()
            make(path)
            proc = minirag(project, "assert", timeout=60)
            verify = minirag(project, "verify", timeout=60)
        held, said = refused(proc, "bm25.trec", "not a regular file")
        named = any("bm25.trec" in ln and "not a regular file" in ln for ln in verify.stdout.splitlines())
        return held and verify.returncode == 1 and named, said
    return check


def config_device(project: Path) -> tuple[bool, str]:
    return refused(minirag(project, "search", "eat", config="/dev/zero", timeout=60), "/dev/zero")


def folder_is_a_file(project: Path) -> tuple[bool, str]:
    blocker = project / "scratch/blocked"
    shutil.rmtree(blocker, ignore_errors=True)
    blocker.write_text("a file where a folder is needed\n")
    return refused(stage(project, *RETRIEVE, "--out", str(blocker / "runs/bm25.trec")), "blocked")


def results_link(project: Path) -> tuple[bool, str]:
    """results/ itself a symlink to a folder elsewhere: artifacts load through it."""
    real = project.parent / "results-elsewhere"
    if real.exists():
        shutil.rmtree(real)
    shutil.move(str(project / "results"), real)
    os.symlink(real, project / "results")
    try:
        return accepted(search(project, "eat", retriever="bm25"), "loaded through a symlinked results folder")
    finally:
        (project / "results").unlink()
        shutil.move(str(real), project / "results")


def cases() -> list[Case]:
    g = "filesystem"
    return [
        Case("disk full writing vectors (.npy)", g, full_disk(EMBED, "--out scratch/v/hashing.npy",
                                                              f"{R}/vectors/hashing.npy", blocks=4)),
        Case("a full file system under embed's memory-mapped vectors", g, vectors_on_full_disk, fast=False),
        Case("disk full writing a BM25 index (.npz)", g, full_disk(BM25, "--out-dir scratch/bm25",
                                                                   f"{R}/bm25/plain/index.npz")),
        Case("disk full writing reader weights (.npz)", g, full_disk(train_reader, "--out scratch/readers/minigpt.npz",
                                                                     f"{R}/readers/minigpt.npz", blocks=40)),
        Case("disk full writing a run", g, full_disk(RETRIEVE, "--out scratch/r.trec", f"{R}/runs/bm25.trec")),
        # a run of depth 1 (300 bytes) fits in 1 KB, its receipt (1.2 KB) does not
        Case("disk full writing a receipt", g, full_disk([a.replace('"depth": 100', '"depth": 1') for a in RETRIEVE],
                                                         "--out scratch/r2.trec --receipt "
                                                         "results/mini/receipts/retrieve.bm25.json",
                                                         f"{R}/receipts/retrieve.bm25.json",
                                                         named="results/mini/receipts/retrieve.bm25.json")),
        Case("read-only results folder (a stage)", g, read_only(f"{R}/runs", RETRIEVE, f"--out {R}/runs/bm25.trec"),
             fast=False),
        Case("read-only results folder (search)", g, search_read_only, fast=False),
        Case("TMPDIR on a full file system: a build", g, full_tmpdir(), fast=False),
        Case("TMPDIR on a read-only file system: a build (built)", g, full_tmpdir(read_only=True), fast=False),
        Case("no HOME, no TMPDIR: search", g, no_home(["search", "eat"], cli=True)),
        Case("no HOME, no TMPDIR: a figure (matplotlib)", g, no_home([
            "sweep_figure", "--settings", json.dumps({"param": "lambda", "title": "mini: rrf-mmr, sweeping lambda",
                                                      "points": [["rrf-mmr@lambda=0.5", 0.5], ["rrf-mmr", 0.7]]}),
            "--metrics",
            f"{R}/eval/metrics.json", "--out", "scratch/fig.png"])),
        Case("no HOME, no TMPDIR: embed", g, no_home(EMBED + ["--out", "scratch/v2/hashing.npy"])),
        Case("an output path that is a symlink", g, output_is_symlink),
        Case("an artifact replaced by a FIFO", g, artifact_replaced(lambda p: os.mkfifo(p))),
        Case("an artifact replaced by /dev/zero", g, artifact_replaced(lambda p: os.symlink("/dev/zero", p))),
        Case("--configfile /dev/zero", g, config_device),
        Case("a folder that is a file", g, folder_is_a_file),
        Case("results/ a symlink to elsewhere", g, results_link),
    ] + filesystem_links.cases()
