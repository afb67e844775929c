"""The fault matrix: damage, delete, misuse and attack a built fixture project, and check each case holds.

    python bench/faults.py                       # every case; a table of cases, then tried / held per group
    python bench/faults.py --fast --json         # the subset the test suite runs, as JSON
    python bench/faults.py --group http --group openai
    python bench/faults.py --list                # the cases, without running them

A case holds when minirag does what a careful user expects (fault_harness.py says how each
is judged): damaged, forged or hostile input refused with a line naming the file, line, key
or field and no traceback; a deleted artifact rebuilt; a hostile value running nothing; a
killed build resuming to the clean build's bytes; a misbehaving model server or HTTP client
bounded in time and memory. The project is a private copy of the workflow, the library and
tests/fixtures/minikb, built once; each case applies its fault, checks, and restores.

The groups are the modules of fault_cases/. What it leaves out: timings (none are
measured, but a few cases carry a bound: a 100,000-character query answered within 20 s), and faults of the machine beyond those it can make in a process (a file-size
limit for a full disk, a private read-only mount, signals).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fault_cases import GROUPS, all_cases  # noqa: E402
from fault_harness import Case, build_project  # noqa: E402,F401  (build_project: tests/workflow/test_faults.py)


def cases() -> list[Case]:
    return all_cases()


def run_cases(selected: list[Case], project: Path, progress=None) -> list[dict]:
    rows = []
    for case in selected:
        t0 = time.monotonic()
        try:
            held, said = case.check(project)
        except Exception as exc:  # a case that crashes the harness did not hold
            held, said = False, f"{type(exc).__name__}: {exc}"[:200]
        rows.append({"case": case.name, "group": case.group, "fast": case.fast, "held": bool(held),
                     "observed": said, "seconds": round(time.monotonic() - t0, 1)})
        if progress:
            progress(rows[-1])
    return rows


def run_share(args: tuple[list[int], str]) -> list[tuple[int, dict]]:
    """One worker's cases (by index into `cases()`: a case's check is not picklable) on its own copy."""
    indices, project = args
    every = cases()
    return list(zip(indices, run_cases([every[i] for i in indices], Path(project))))


def run_parallel(at: list[int], project: Path, jobs: int, progress=None) -> list[dict]:
    """The cases `at` (indices into `cases()`) dealt round-robin to `jobs` processes, each on its own copy
    of the built project (times kept, so Snakemake finds each up to date); rows in the cases' order."""
    # each copy in a folder of its own: cases set files aside beside the project (its parent's aside/)
    copies = [project] + [project.parent / f"worker-{j}" / project.name for j in range(1, jobs)]
    for copy in copies[1:]:
        shutil.copytree(project, copy, symlinks=True)
    shares = [(at[j::jobs], str(copies[j])) for j in range(jobs)]
    rows: dict[int, dict] = {}
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for done in pool.imap_unordered(run_share, shares):
            for i, row in done:
                rows[i] = row
                if progress:
                    progress(row)
    return [rows[i] for i in at]


def summary(rows: list[dict]) -> list[dict]:
    return [{"group": g, "tried": sum(r["group"] == g for r in rows),
             "held": sum(r["group"] == g and r["held"] for r in rows)} for g in GROUPS
            if any(r["group"] == g for r in rows)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fast", action="store_true", help="only the cases the test suite runs")
    ap.add_argument("--slow", action="store_true", help="only the cases the test suite's slow tier runs")
    ap.add_argument("--group", action="append", choices=GROUPS, help="only these groups (repeatable)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--jobs", type=int, default=1, metavar="N",
                    help="run the cases in N processes, each on its own copy of the fixture project (default 1)")
    a = ap.parse_args()
    every = cases()
    at = [i for i, c in enumerate(every) if (not a.fast or c.fast) and (not a.slow or not c.fast)
          and (not a.group or c.group in a.group)]
    selected = [every[i] for i in at]
    if a.list:
        for c in selected:
            print(f"{c.group:<11} {'fast' if c.fast else 'slow'}  {c.name}")
        print(f"\n{len(selected)} cases")
        return 0
    t0 = time.monotonic()

    def show(row):
        if not a.json:
            print(f"{'held  ' if row['held'] else 'FAILED'}  {row['group']:<10} {row['case'][:60]:<60}  "
                  f"{row['observed'][:100]}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        project = build_project(Path(tmp))
        built_s = time.monotonic() - t0
        rows = run_cases(selected, project, show) if a.jobs <= 1 else run_parallel(at, project, a.jobs, show)
    held = sum(r["held"] for r in rows)
    groups = summary(rows)
    total_s = time.monotonic() - t0
    if a.json:
        print(json.dumps({"tried": len(rows), "held": held, "groups": groups, "build_s": round(built_s),
                          "seconds": round(total_s), "cases": rows}, indent=2))
    else:
        print(f"\n{'group':<12}{'tried':>6}{'held':>6}")
        for grp in groups:
            print(f"{grp['group']:<12}{grp['tried']:>6}{grp['held']:>6}")
        print(f"\n{held} of {len(rows)} cases held ({100 * held / max(len(rows), 1):.0f} %) in {total_s:.0f} s "
              f"(the fixture build {built_s:.0f} s)")
    return 0 if held == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
