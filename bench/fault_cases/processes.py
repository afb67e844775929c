"""Processes: Snakemake or a stage killed while a stage runs (SIGTERM, SIGKILL), at the moment a
stage opens an output or its receipt; the stage must stop, and the build resumed afterwards
must equal the clean build, byte for byte.

A stage is caught at a known point without editing its code: a sitecustomize module, on the
PYTHONPATH of this matrix's Snakemake only, adds an audit hook to the stage named by
MINIRAG_FAULT_STAGE that, when the stage opens the temporary file of an output (or of its
receipt), writes its pid into MINIRAG_FAULT_FLAG and sleeps. The harness waits for that
announcement (a bounded wait: a busy machine is slow, not broken), sends the signal, and
checks what is left.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from fault_harness import PY, REPO, SNAKEMAKE, Case, R, refused, run, same_as_clean, snakemake

HOOK = '''\
import os, sys, time
_stage = os.environ.get("MINIRAG_FAULT_STAGE")
if _stage and " ".join(sys.orig_argv[1:3]) == f"-m minirag.stages.{_stage}":
    _at, _flag, _busy = os.environ["MINIRAG_FAULT_AT"], os.environ["MINIRAG_FAULT_FLAG"], []

    def _pause(event, args):
        if event != "open" or _busy or not isinstance(args[0], str):
            return
        name = os.path.basename(args[0])
        receipt = "/receipts/" in args[0]
        if name.startswith(".") and name.endswith(".tmp") and os.path.exists(args[0]) \\
                and receipt == (_at == "receipt"):
            _busy.append(1)
            with open(os.path.join(_flag, str(os.getpid())), "w") as fh:
                fh.write(args[0])
            time.sleep(float(os.environ.get("MINIRAG_FAULT_PAUSE", "600")))
    sys.addaudithook(_pause)
'''
ANNOUNCE_S = 300  # how long a stage may take to reach the pause point under load


def hooked(project: Path) -> Path:
    folder = project / "faulthook"
    folder.mkdir(exist_ok=True)
    (folder / "sitecustomize.py").write_text(HOOK)
    return folder


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def paused(project: Path, stage: str, at: str, rule: str, pause_s: float = 600) -> tuple[subprocess.Popen, int | None,
                                                                                         Path]:
    """Snakemake rerunning `rule` (and what follows) until `stage` pauses at `at`: (Snakemake, the
    paused stage's pid or None when it never paused within ANNOUNCE_S, the file it was opening)."""
    snakemake(project, "--unlock")
    flag = project / "scratch/fault-flag"
    shutil.rmtree(flag, ignore_errors=True)
    flag.mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": f"{project}{os.pathsep}{hooked(project)}", "MINIRAG_FAULT_STAGE": stage,
           "MINIRAG_FAULT_AT": at, "MINIRAG_FAULT_FLAG": str(flag), "MINIRAG_FAULT_PAUSE": str(pause_s)}
    sm = subprocess.Popen([SNAKEMAKE, "-c1", "--configfile", "mini.yaml", "--forcerun", rule, "results/mini.md"],
                          cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                          start_new_session=True)
    deadline = time.monotonic() + ANNOUNCE_S
    while time.monotonic() < deadline and sm.poll() is None:
        found = [p for p in flag.iterdir() if p.name.isdigit()]
        if found:
            return sm, int(found[0].name), Path(found[0].read_text())
        time.sleep(0.2)
    return sm, None, Path()


def stopped(pid: int, within: float = 30) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return False


def resume(project: Path) -> tuple[bool, str]:
    """The build the user runs next: unlock if a killed Snakemake left its lock, then build."""
    snakemake(project, "--unlock")
    proc = snakemake(project, "--rerun-incomplete", "results/mini.md", timeout=1800)
    if proc.returncode != 0:
        return False, "the resumed build failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][:120]
    return same_as_clean(project)


def killed(stage: str, sig: signal.Signals, victim: str = "snakemake", at: str = "output", rule: str | None = None):
    """Send `sig` to `victim` while `stage` pauses at `at`: "snakemake", "stage", or "group" (both, as
    a terminal's Ctrl-C or a CI runner's cancel does). Snakemake takes SIGTERM as "finish the
    running jobs, start no more", so then the stage is paused for 3 s only and must complete."""
    def check(project: Path) -> tuple[bool, str]:
        graceful = victim == "snakemake" and sig == signal.SIGTERM
        sm, pid, _ = paused(project, stage, at, rule or stage, pause_s=3 if graceful else 600)
        failure = None
        try:
            if pid is None:
                failure = f"{stage} never reached its {at} within {ANNOUNCE_S} s (Snakemake exit {sm.poll()})"
                return False, failure
            if victim == "group":
                os.killpg(sm.pid, sig)
            else:
                os.kill(sm.pid if victim == "snakemake" else pid, sig)
            try:
                sm.wait(timeout=180)
            except subprocess.TimeoutExpired:
                failure = f"Snakemake ran on after {victim} got {sig.name}"
            if failure is None and not stopped(pid):
                failure = f"the {stage} stage ran on after {victim} got {sig.name}"
        finally:
            for p in (sm.pid, pid):
                if p and alive(p):
                    os.kill(p, signal.SIGKILL)
            sm.wait()
            held, said = resume(project)  # also what puts the project back for the next case
        if failure:
            return False, failure
        return held, f"{victim} got {sig.name} while {stage} wrote its {at}; resumed: {said}"
    return check


def orphan_stops(project: Path) -> tuple[bool, str]:
    """Kill Snakemake while a stage runs: the stage must exit within seconds, not run on."""
    sm, pid, _ = paused(project, "curate", "output", "curate")
    try:
        if pid is None:
            return False, f"curate never announced itself within {ANNOUNCE_S} s (Snakemake exit {sm.poll()})"
        sm.send_signal(signal.SIGKILL)
        sm.wait()
        ok = stopped(pid, within=15)
        return ok, "the stage exited after Snakemake's death" if ok else "the stage ran on after Snakemake died"
    finally:
        if pid and alive(pid):
            os.kill(pid, signal.SIGKILL)
        resume(project)


def disk_full(project: Path) -> tuple[bool, str]:
    """A write that fails (file-size limit, SIGXFSZ ignored): one error line, the old file kept."""
    before = (project / R / "docs.jsonl").read_bytes()
    cmd = ("trap '' XFSZ; ulimit -f 1; exec " + PY + " -m minirag.stages.curate --settings "
           "'{\"format\": \"markdown\", \"fields\": {\"title\": \"title\", \"lang\": \"lang\", \"tags\": \"tags\"}, "
           "\"default_lang\": \"\", \"langs\": []}' --source fixture/docs --glob '**/*.md' --out " + R + "/docs.jsonl")
    held, said = refused(run(["bash", "-c", cmd], project), "File too large")
    return held and (project / R / "docs.jsonl").read_bytes() == before, said


def rebuilt_from_nothing(project: Path) -> tuple[bool, str]:
    """A second build from nothing (no results/ at all) with the same inputs: every artifact the clean
    build's bytes, but the measured ones docs/integrity.md lists (a reader's sidecar included)."""
    kept = project / "scratch" / "results-first-build"
    shutil.rmtree(kept, ignore_errors=True)
    shutil.move(str(project / "results"), kept)
    proc = snakemake(project, "results/mini.md", timeout=1800)
    held, said = (same_as_clean(project) if proc.returncode == 0 else
                  (False, "the second build failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][:120]))
    shutil.rmtree(project / "results", ignore_errors=True)  # the other cases expect the first build
    shutil.move(str(kept), project / "results")
    return held, said


def stale_lock(project: Path) -> tuple[bool, str]:
    """kill -9 of a whole build (Snakemake and its stage, as a closed terminal or a power loss) leaves
    Snakemake's lock: the next `make build` says in one line to run `make unlock`, which clears it,
    and the build after that completes to the clean build's bytes."""
    venv = Path(PY).parent.parent
    make = lambda target: run(["make", "-s", "-f", str(REPO / "Makefile"), target, "CONFIG=mini.yaml",  # noqa: E731
                               f"VENV={venv}", "-o", f"{venv}/.installed"], project, timeout=1800)
    sm, pid, _ = paused(project, "report", "output", "report")
    try:
        if pid is None:
            return False, f"report never announced itself within {ANNOUNCE_S} s (Snakemake exit {sm.poll()})"
        os.killpg(sm.pid, signal.SIGKILL)
        sm.wait()
        held, said = refused(make("build"), "make unlock")
        unlocked, rebuilt = make("unlock"), make("build")
        if unlocked.returncode != 0 or rebuilt.returncode != 0:
            return False, "after make unlock: " + ((unlocked.stderr + rebuilt.stderr).strip().splitlines() or ["?"])[-1]
        same, differ = same_as_clean(project)
        return held and same, said if same else differ
    finally:
        if pid and alive(pid):
            os.kill(pid, signal.SIGKILL)
        resume(project)


LONG = {"curate": "curate", "chunk": "chunk", "embed": "embed", "bm25": "bm25", "retrieve": "retrieve",
        "train_reranker": "train_reranker", "train_reader": "train_reader", "evaluate": "evaluate"}


def cases() -> list[Case]:
    g = "processes"
    c = [Case("a write that fails (disk full)", g, disk_full),
         Case("a stage stops when Snakemake is killed", g, orphan_stops, fast=False),
         Case("a second build from nothing is the first one's bytes", g, rebuilt_from_nothing, fast=False),
         Case("kill -9 of a build: the next says to run make unlock, which clears the lock", g, stale_lock,
              fast=False)]
    for stage, rule in LONG.items():
        for sig in (signal.SIGTERM, signal.SIGKILL):
            c.append(Case(f"{sig.name} to Snakemake during {stage}", g, killed(stage, sig, rule=rule), fast=False))
    c += [Case("SIGKILL to the stage during embed", g, killed("embed", signal.SIGKILL, "stage"), fast=False),
          Case("Ctrl-C (SIGINT to the group) during chunk", g, killed("chunk", signal.SIGINT, "group"), fast=False),
          Case("SIGTERM to the group during train_reader", g, killed("train_reader", signal.SIGTERM, "group"),
               fast=False),
          Case("SIGTERM to the stage during retrieve", g, killed("retrieve", signal.SIGTERM, "stage"), fast=False),
          Case("SIGKILL to the stage during train_reader", g, killed("train_reader", signal.SIGKILL, "stage"),
               fast=False),
          Case("SIGKILL to Snakemake as bm25 writes its receipt", g, killed("bm25", signal.SIGKILL, at="receipt"),
               fast=False),
          Case("SIGTERM to Snakemake as retrieve writes its receipt", g,
               killed("retrieve", signal.SIGTERM, at="receipt"), fast=False)]
    return c
