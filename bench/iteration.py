"""The experiment loop, timed on a fresh clone: how long a change takes to show in the report.

    python bench/iteration.py [--rev HEAD] [--vs REV] [--cores 2] [--json] [--keep] [--steps a,b,...]

Clones the repository's `--rev` into /work/tmp-iter-XXXX (a sibling of ../shared, so the
configs that read ../shared/datasets resolve), runs `make report` there from nothing (venv,
install, build; pip reuses its wheel cache and the machine's local wheel folders, and the
table says which), then times each step of a user's loop, every one starting from an
up-to-date build and undone afterwards (the undo is built too, untimed unless it is a step):

    no-op dry run       snakemake -n results/report.md after a build (median of 3)
    no-op build         snakemake -c2 results/report.md with nothing to do
    chunk size          chunk.target_tokens 150 -> 200, then back (its own step); `make plan`'s
                        printout of the change is counted in lines first
    BM25 k1             the seed's BM25 (bm25.plain) k1 1.5 -> 1.2
    retriever only      the seed's hybrid RRF k 10 -> 30
    document edited     a paragraph appended to kb/docs/en/irregular-verbs.md
    document added      a new page kb/docs/en/iteration-bench.md
    reader setting      the extractive reader's threshold, calibrated -> 0.4

With `--vs REV` a second clone of REV is built and timed beside it, step by step in turns
(the same machine, the same minutes), and the table gives each figure of both and their ratio.
The build's tallest figure (results/<corpus>/figures/*.png) is reported in pixels.

For each: wall seconds, the jobs Snakemake ran, the CPU seconds of the whole Snakemake
process tree (getrusage of the waited-for children: exact), and CPU seconds by rule summed
from the rules' benchmark files written during the step (Snakemake samples a job's CPU
once a second for its first 30 s and every 30 s after, so these are lower bounds that
miss up to the last second of each job). The edits are literal text replacements that
must match exactly once: a config that moved on fails here with the text it looked for.

What it leaves out: timing anything but the KB's default report (the other configs build
other reports), and keeping the clone (removed unless --keep).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIG = "workflow/config.yaml"
DOC = "kb/docs/en/irregular-verbs.md"
NEW_DOC = "kb/docs/en/iteration-bench.md"
APPENDED = ("\n\nA note added by bench/iteration.py: *learnt* and *learned* are both past forms of "
            "*learn*; British English uses both, American English prefers *learned*.\n")
NEW_PAGE = """---
title: Spelling of -ed endings (bench page)
lang: en
tags: [spelling]
---

# Spelling of -ed endings

Verbs ending in a consonant + *y* change *y* to *i*: *study* → *studied*, *carry* → *carried*.
One-syllable verbs ending in consonant–vowel–consonant double the last letter: *stop* → *stopped*.
"""

# step -> (edits as (file, old text, new text), target seconds or None)
EDITS = {
    "chunk size": ([(CONFIG, "target_tokens: 150", "target_tokens: 200")], 60),
    "BM25 k1": ([(CONFIG, "plain: {variant: lucene, k1: 1.5, b: 0.75}", "plain: {variant: lucene, k1: 1.2, b: 0.75}")],
                10),
    "retriever only": ([(CONFIG, "hybrid: {type: rrf, of: [biencoder, bm25], k: 10",
                         "hybrid: {type: rrf, of: [biencoder, bm25], k: 30")], 10),
    "reader setting": ([(CONFIG, "        type: extractive\n", "        type: extractive\n        threshold: 0.4\n")],
                       None),
}
TARGETS = {"make report": 180, "no-op dry run": 1.5, "document edited": 45, "document added": 45,
           "plan printout, lines": 60, "tallest figure, px": 1600}
STEPS = ["no-op dry run", "no-op build", "chunk size", "BM25 k1", "retriever only", "document edited",
         "document added", "reader setting"]


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd: list[str], cwd: Path) -> dict:
    """Run a command to completion: wall and CPU seconds, and its output."""
    cpu0, t0 = children_cpu(), time.perf_counter()
    # Snakemake's full output: jobs_of reads its Job stats table
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env={**os.environ, "MINIRAG_VERBOSE": "1"})
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed in {cwd} ({proc.returncode}):\n"
                         f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return {"wall": wall, "cpu": cpu, "out": proc.stdout + proc.stderr}


def jobs_of(out: str) -> dict[str, int]:
    """Snakemake's 'Job stats' table: jobs planned by rule (all of them run: the build succeeded)."""
    if "Job stats:" not in out:
        return {}
    table = out.split("Job stats:", 1)[1].split("\n\n", 1)[0]
    rows = [ln.split() for ln in table.strip().splitlines()[2:]]
    return {r[0]: int(r[1]) for r in rows if len(r) == 2 and r[0] != "total" and r[1].isdigit()}


def rule_seconds(clone: Path, since: float) -> dict[str, dict[str, float]]:
    """{rule: {"cpu": s, "wall": s}} from the benchmark files written since `since`."""
    out: dict[str, dict[str, float]] = {}
    for path in (clone / "results").rglob("benchmarks/*.tsv"):
        if path.stat().st_mtime < since:
            continue
        lines = path.read_text().splitlines()
        if len(lines) < 2:
            continue
        row = dict(zip(lines[0].split("\t"), lines[-1].split("\t")))
        rule = "report" if path.parent.parent.name == "results" else path.stem.split(".", 1)[0]
        acc = out.setdefault(rule, {"cpu": 0.0, "wall": 0.0})
        acc["cpu"] += float(row["cpu_time"]) if row.get("cpu_time", "NA") != "NA" else 0.0
        acc["wall"] += float(row["s"])
    return out


def build(clone: Path, snakemake: str, cores: int) -> dict:
    since = time.time() - 1  # benchmark files' mtimes have a second's resolution on some file systems
    r = run([snakemake, f"-c{cores}", "results/report.md"], clone)
    jobs = jobs_of(r["out"])
    return {"wall": r["wall"], "cpu": r["cpu"], "jobs": sum(jobs.values()), "jobs_by_rule": jobs,
            "by_rule": rule_seconds(clone, since) if jobs else {}}


def edit(clone: Path, edits: list[tuple[str, str, str]], undo: bool = False) -> None:
    for file, old, new in edits:
        old, new = (new, old) if undo else (old, new)
        path = clone / file
        text = path.read_text(encoding="utf-8")
        if text.count(old) != 1:
            raise SystemExit(f"{file}: expected {old!r} exactly once, found it {text.count(old)} times")
        path.write_text(text.replace(old, new), encoding="utf-8")


def clone_at(rev: str) -> Path:
    """A fresh clone of `rev` beside ../shared (/work/tmp-iter-XXXX)."""
    parent = REPO.parent
    clone = Path(tempfile.mkdtemp(prefix="tmp-iter-", dir=parent))
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(REPO), str(clone)], check=True)
    subprocess.run(["git", "checkout", "--quiet", rev], cwd=clone, check=True)
    return clone


def wheel_sources() -> str:
    """Where pip found its packages: the cache and local folders it was configured with."""
    proc = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True)
    cache = subprocess.run([sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True).stdout.strip()
    found = re.findall(r"(?:find-links|index-url|extra-index-url)='([^']*)'", proc.stdout)
    return f"pip cache {cache or 'off'}; " + ("; ".join(sorted(set(found))) or "PyPI")


def fresh_make_report(clone: Path) -> tuple[dict, dict]:
    """`make report` from nothing, as two timed parts: the venv and install, then the build."""
    install = run(["make", ".venv/.installed"], clone)
    since = time.time() - 1
    report = run(["make", "report"], clone)
    jobs = jobs_of(report["out"])
    return install, {"wall": report["wall"], "cpu": report["cpu"], "jobs": sum(jobs.values()),
                     "jobs_by_rule": jobs, "by_rule": rule_seconds(clone, since)}


def plan_printout(clone: Path, snakemake: str) -> int:
    """Lines a user reads to see what a build would run: `make plan` where the Makefile has it, else `snakemake -n`."""
    has_plan = re.search(r"^plan:", (clone / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    cmd = ["make", "-s", "plan"] if has_plan else [snakemake, "-n", "results/report.md"]
    env = {k: v for k, v in os.environ.items() if k != "MINIRAG_VERBOSE"}
    proc = subprocess.run(cmd, cwd=clone, capture_output=True, text=True, env=env)
    return len((proc.stdout + proc.stderr).splitlines())


def tallest_figure(clone: Path) -> int:
    """The height in pixels of the tallest PNG a build wrote under results/ (a PNG's IHDR holds it)."""
    heights = [int.from_bytes(p.read_bytes()[20:24], "big") for p in (clone / "results").rglob("figures/*.png")]
    return max(heights, default=0)


def step(name: str, clone: Path, snakemake: str, cores: int) -> list[dict]:
    """Time one step (and, for the chunk size, its undo); leave the clone built and as it was."""
    if name == "no-op dry run":
        walls, cpus = [], []
        for _ in range(3):
            r = run([snakemake, "-n", "results/report.md"], clone)
            assert "Nothing to be done" in r["out"], r["out"][-2000:]
            walls.append(r["wall"])
            cpus.append(r["cpu"])
        return [{"step": name, "wall": statistics.median(walls), "cpu": statistics.median(cpus), "jobs": 0,
                 "by_rule": {}, "walls": walls}]
    if name == "no-op build":
        return [{"step": name, **build(clone, snakemake, cores)}]
    if name in EDITS:
        edits = EDITS[name][0]
        edit(clone, edits)
        lines = [{"step": "plan printout, lines", "wall": float(plan_printout(clone, snakemake)), "cpu": 0.0,
                  "jobs": 0, "by_rule": {}}] if name == "chunk size" else []
        rows = lines + [{"step": name, **build(clone, snakemake, cores)}]
        edit(clone, edits, undo=True)
        undo = {"step": f"{name}, back", **build(clone, snakemake, cores)}
        return rows + [undo] if name == "chunk size" else rows + [{**undo, "untimed": True}]
    if name in ("document edited", "document added"):
        path = clone / (DOC if name == "document edited" else NEW_DOC)
        before = path.read_text(encoding="utf-8") if path.exists() else None
        path.write_text((before or "") + APPENDED if before else NEW_PAGE, encoding="utf-8")
        rows = [{"step": name, **build(clone, snakemake, cores)}]
        if before is None:
            path.unlink()
        else:
            path.write_text(before, encoding="utf-8")
        return rows + [{"step": f"{name}, back", **build(clone, snakemake, cores), "untimed": True}]
    raise SystemExit(f"unknown step {name!r} (steps: {', '.join(STEPS)})")


def target_of(name: str) -> float | None:
    if name in EDITS:
        return EDITS[name][1]
    return TARGETS.get(name)


def top_rules(by_rule: dict, n: int = 5) -> str:
    ranked = sorted(by_rule.items(), key=lambda kv: -kv[1]["cpu"])[:n]
    return ", ".join(f"{rule} {v['cpu']:.1f}" for rule, v in ranked if v["cpu"] >= 0.05) or "–"


def table(rows: list[dict]) -> str:
    lines = [f"{'step':<24}{'wall s':>9}{'jobs':>6}{'CPU s':>9}{'target':>8}  met  CPU s by rule (benchmark files, top 5)",
             "-" * 120]
    for r in rows:
        if r.get("untimed"):
            continue
        target = target_of(r["step"])
        met = "–" if target is None else ("yes" if r["wall"] <= target else "no")
        lines.append(f"{r['step']:<24}{r['wall']:>9.1f}{r.get('jobs', 0):>6}{r['cpu']:>9.1f}"
                     f"{(f'{target:g}' if target else '–'):>8}  {met:<4} {top_rules(r.get('by_rule', {}))}")
    return "\n".join(lines)


def timed_clone(rev: str) -> tuple[Path, list[dict]]:
    """A fresh clone of `rev` after `make report` from nothing, and the rows of that first build."""
    clone = clone_at(rev)
    install, report = fresh_make_report(clone)
    return clone, [
        {"step": "venv + install", "wall": install["wall"], "cpu": install["cpu"], "jobs": 0, "by_rule": {}},
        {"step": "snakemake (make report)", **report},
        {"step": "make report", "wall": install["wall"] + report["wall"], "cpu": install["cpu"] + report["cpu"],
         "jobs": report["jobs"], "by_rule": report["by_rule"]},
        {"step": "tallest figure, px", "wall": float(tallest_figure(clone)), "cpu": 0.0, "jobs": 0, "by_rule": {}}]


def side_by_side(rows: list[dict], peer: list[dict]) -> str:
    """Each step's wall of this rev and the peer's, their ratio, and the jobs of each."""
    theirs = {r["step"]: r for r in peer if not r.get("untimed")}
    lines = [f"{'step':<24}{'wall s':>9}{'peer':>9}{'ratio':>7}{'jobs':>6}{'peer':>6}{'target':>8}  met",
             "-" * 78]
    for r in rows:
        if r.get("untimed"):
            continue
        p = theirs.get(r["step"], {})
        target = target_of(r["step"])
        ratio = f"{r['wall'] / p['wall']:.2f}" if p.get("wall") else "–"
        met = "–" if target is None else ("yes" if r["wall"] <= target else "no")
        lines.append(f"{r['step']:<24}{r['wall']:>9.1f}{p.get('wall', float('nan')):>9.1f}{ratio:>7}"
                     f"{r.get('jobs', 0):>6}{p.get('jobs', 0):>6}{(f'{target:g}' if target else '–'):>8}  {met}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", default="HEAD", help="the commit to clone and time (default HEAD)")
    ap.add_argument("--vs", help="a second commit, built and timed beside it in turns (the peer)")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--steps", default=",".join(STEPS), help="comma-separated steps to time after make report")
    ap.add_argument("--json", action="store_true", help="print JSON instead of the table")
    ap.add_argument("--keep", action="store_true", help="keep the clones (their paths are printed)")
    a = ap.parse_args()
    revs = [subprocess.run(["git", "rev-parse", r], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
            for r in [a.rev] + ([a.vs] if a.vs else [])]
    clones: dict[str, Path] = {}
    rows: dict[str, list[dict]] = {}
    try:
        for rev in revs:
            clones[rev], rows[rev] = timed_clone(rev)
            print(f"# {rev[:10]}: make report done", file=sys.stderr, flush=True)
        for name in [s.strip() for s in a.steps.split(",") if s.strip()]:
            for rev in revs:  # in turns, so both see the same minutes of a shared machine
                rows[rev] += step(name, clones[rev], str(clones[rev] / ".venv" / "bin" / "snakemake"), a.cores)
            print(f"# {name}: done", file=sys.stderr, flush=True)
    finally:
        for clone in clones.values():
            if a.keep:
                print(f"# a clone: {clone}", file=sys.stderr)
            else:
                shutil.rmtree(clone, ignore_errors=True)
    meta = {"revs": revs, "cores": a.cores, "wheels": wheel_sources(), "load_avg": os.getloadavg()}
    if a.json:
        print(json.dumps({**meta, "steps": rows}, indent=1))
        return
    print(f"rev {revs[0][:10]}" + (f" vs {revs[1][:10]}" if a.vs else "")
          + f", -c{a.cores}, load average {meta['load_avg'][0]:.1f}; installs from {meta['wheels']}")
    print(side_by_side(rows[revs[0]], rows[revs[1]]) if a.vs else table(rows[revs[0]]))


if __name__ == "__main__":
    main()
