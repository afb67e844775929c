"""What a short job spends besides its work: interpreter start, imports, receipt checks and hashing.

    python bench/job_overhead.py [--project .] [--jobs retrieve:bm25,prompt:bm25,evaluate] [--repeats 5] [--json]

For each job (`rule` or `rule:name`, the name as in its receipt, e.g. generate:extractive.bm25),
takes its shell command from `snakemake -n -p --forcerun RULE` on a built project (--project,
default this repository), points its outputs at a temporary folder
(so the build stays up to date), and runs it `--repeats` times with the project's Python:

    interpreter   `python -c pass`
    imports       `python -c "import minirag.stages.<stage>"`, less the interpreter
    integrity     inside integrity.verified, write_receipt and sha256_file (receipt checks, hashing)
    work          the rest of the job

CPU seconds (user + system) of the job's process, medians over the repeats; wall seconds
beside. Snakemake's own cost per job (planning, the shell, its benchmark thread and
metadata) is not in these figures: compare a rule's benchmark-file seconds with "total".

What it leaves out: jobs of more than one process and anything but the KB's default config.
"""

from __future__ import annotations

import argparse
import json
import resource
import shlex
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT_FLAGS = ("--out", "--out-dir", "--receipt", "--out-cache", "--manifest")

# Runs the stage in this process with the integrity functions timed; prints CPU seconds as JSON.
PROBE = r"""
import json, resource, runpy, sys, time
import minirag.artifacts.integrity as integrity
import minirag.artifacts.io as io
spent = [0.0]
def timed(fn):
    def inner(*a, **k):
        depth[0] += 1
        t0 = time.process_time()
        try:
            return fn(*a, **k)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                spent[0] += time.process_time() - t0
    return inner
depth = [0]
for name in ("verified", "write_receipt", "sha256_file"):
    setattr(integrity, name, timed(getattr(integrity, name)))
io.sha256_file = integrity.sha256_file  # what the stages import (before they are imported)
import minirag.stages.common as common
common.write_receipt = integrity.write_receipt
stage, argv = sys.argv[1], sys.argv[2:]
sys.argv = [stage] + argv
try:
    runpy.run_module(f"minirag.stages.{stage}", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    if exc.code:
        raise
r = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"total": r.ru_utime + r.ru_stime, "integrity": spent[0]}), file=sys.__stdout__)
"""


def cpu_of(cmd: list[str], cwd: Path) -> tuple[float, float, str]:
    """(CPU seconds of the child, wall seconds, its stdout)."""
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed:\n{proc.stderr[-2000:]}")
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), wall, proc.stdout


def job_command(project: Path, job: str) -> list[str]:
    """The command of job `rule[:name]` (the first of the rule's without a name), its outputs
    moved to a temporary folder."""
    rule, _, name = job.partition(":")
    receipt = f"/receipts/{rule}.{name}.json" if name else ""
    snakemake = str(project / ".venv" / "bin" / "snakemake")
    out = subprocess.run([snakemake, "-n", "-p", "--forcerun", rule, "results/report.md"], cwd=project,
                         capture_output=True, text=True).stdout
    prefix = f"python -m minirag.stages.{rule} "
    line = next((ln.strip().removeprefix("Shell command: ") for ln in out.splitlines()
                 if ln.strip().removeprefix("Shell command: ").startswith(prefix) and receipt in ln), None)
    if line is None:
        raise SystemExit(f"no {job} job in `snakemake -n -p --forcerun {rule}` of {project}")
    words = shlex.split(line.split(" 2> ")[0])
    tmp = Path(tempfile.mkdtemp(prefix="job-overhead-")) / "results" / "c"
    for i, w in enumerate(words[:-1]):
        if w in OUT_FLAGS:
            target = Path(words[i + 1])
            where = "receipts" if w == "--receipt" else target.parent.name
            words[i + 1] = str(tmp / where / target.name)
    return words[3:]  # after `python -m minirag.stages.<rule>`


def measure(project: Path, job: str, repeats: int) -> dict:
    python = str(project / ".venv" / "bin" / "python")
    args, rule = job_command(project, job), job.partition(":")[0]
    bare = [cpu_of([python, "-c", "pass"], project)[0] for _ in range(repeats)]
    imports = [cpu_of([python, "-c", f"import minirag.stages.{rule}"], project)[0] for _ in range(repeats)]
    runs = []
    for _ in range(repeats):
        cpu, wall, out = cpu_of([python, "-c", PROBE, rule, *args], project)
        runs.append({**json.loads(out.strip().splitlines()[-1]), "cpu": cpu, "wall": wall})
    med = statistics.median
    interp, imp = med(bare), med(imports) - med(bare)
    total, integrity = med(r["cpu"] for r in runs), med(r["integrity"] for r in runs)
    return {"job": job, "interpreter": interp, "imports": imp, "integrity": integrity,
            "work": total - interp - imp - integrity, "total": total, "wall": med(r["wall"] for r in runs)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", type=Path, default=REPO, help="a built project with its .venv (default: here)")
    ap.add_argument("--jobs", default="curate,chunk,bm25:plain,retrieve:bm25,retrieve:hybrid,prompt:bm25,"
                                      "generate:extractive.bm25,evaluate,diagnose,assertions,report")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = [measure(a.project.resolve(), j.strip(), a.repeats) for j in a.jobs.split(",") if j.strip()]
    if a.json:
        print(json.dumps(rows, indent=1))
        return
    keys = ("interpreter", "imports", "integrity", "work", "total", "wall")
    print(f"{'job':<26}" + "".join(f"{k:>12}" for k in keys) + "   (CPU s but wall; medians)")
    for r in rows:
        print(f"{r['job']:<26}" + "".join(f"{r[k]:>12.3f}" for k in keys))
    print(f"{'sum':<26}" + "".join(f"{sum(r[k] for r in rows):>12.3f}" for k in keys))


if __name__ == "__main__":
    main()
