"""Per-rule memory and time requests for a cluster, from the Snakemake benchmark files of real builds.

    python bench/rule_resources.py /work/main/results            # table; --json for JSON
    python bench/rule_resources.py RESULTS --profile workflow/profiles/slurm/config.yaml

Reads every `RESULTS/<corpus>/benchmarks/<rule>.<name>.tsv` (and `RESULTS/benchmarks/*.tsv`,
the report's) that the workflow's `benchmark:` directives write, takes per rule the largest
`max_rss` (MB) and the longest wall time `s` over all its jobs and corpora, and turns them
into a request with headroom (the formulas below). With `--profile`, each rule's request in
the profile is printed beside the proposal and a rule asking for less than proposed is
flagged, so the profile can be checked after a bigger build.

What it leaves out: CPU counts (every stage runs on one BLAS thread; see the slurm profile),
disk and GPU requests, and rules no real build has run yet (the profile's guesses for those
are marked there).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path

# The Snakemake process that runs each job inside its SLURM allocation (snakemake-executor-
# plugin-slurm-jobstep) parses the whole workflow; on the fixture config it peaks at 134 MB.
JOBSTEP_MB = 512
MIN_MEM_MB = 1024
MIN_RUNTIME_MIN = 10


def mem_request(max_rss_mb: float) -> int:
    """MB to request: twice the largest resident set seen (a bigger corpus grows it) plus
    the in-job Snakemake, at least 1 GiB, rounded up to 256 MB."""
    return 256 * math.ceil(max(MIN_MEM_MB, 2 * max_rss_mb + JOBSTEP_MB) / 256)


def runtime_request(seconds: float) -> int:
    """Minutes to request: three times the longest wall time seen (timings on two shared
    cores vary, corpora grow), at least 10 minutes for the in-job Snakemake start and a
    slow shared file system, rounded up to 5 minutes."""
    return 5 * math.ceil(max(MIN_RUNTIME_MIN, 3 * seconds / 60) / 5)


def benchmark_files(results: Path) -> list[tuple[str, str, Path]]:
    """(rule, corpus, file) for each benchmark file; the report's live in results/benchmarks."""
    out = [("report", "(all)", p) for p in sorted((results / "benchmarks").glob("*.tsv"))]
    for p in sorted(results.glob("*/benchmarks/*.tsv")):
        if p.parent.parent.name != "benchmarks":
            out.append((p.name.split(".")[0], p.parent.parent.name, p))
    return out


def observed(results: Path) -> dict[str, dict]:
    """Per rule: jobs seen, largest max_rss (MB) and longest s, with where each was seen."""
    rules: dict[str, dict] = {}
    for rule, corpus, path in benchmark_files(results):
        with open(path, encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                s, rss = float(row["s"]), float(row["max_rss"]) if row["max_rss"] != "NA" else 0.0
                r = rules.setdefault(rule, {"jobs": 0, "max_rss_mb": 0.0, "rss_at": "", "max_s": 0.0, "s_at": ""})
                r["jobs"] += 1
                where = f"{corpus}/{path.name}"
                if rss > r["max_rss_mb"]:
                    r["max_rss_mb"], r["rss_at"] = rss, where
                if s > r["max_s"]:
                    r["max_s"], r["s_at"] = s, where
    for r in rules.values():
        r["mem_mb"], r["runtime"] = mem_request(r["max_rss_mb"]), runtime_request(r["max_s"])
    return dict(sorted(rules.items()))


def profile_requests(path: Path) -> dict[str, dict]:
    import yaml

    profile = yaml.safe_load(path.read_text(encoding="utf-8"))
    return profile.get("set-resources") or {}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", type=Path)
    ap.add_argument("--profile", type=Path, help="a profile config.yaml to set beside the proposal")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rules = observed(a.results)
    if not rules:
        raise SystemExit(f"{a.results}: no */benchmarks/*.tsv files")
    given = profile_requests(a.profile) if a.profile else {}
    for name, r in rules.items():
        if a.profile:
            g = given.get(name, {})
            r["profile_mem_mb"], r["profile_runtime"] = g.get("mem_mb"), g.get("runtime")
            r["below_proposal"] = not g or g.get("mem_mb", 0) < r["mem_mb"] or g.get("runtime", 0) < r["runtime"]
    if a.json:
        print(json.dumps(rules, indent=2))
        return 0
    head = f"{'rule':<16} {'jobs':>5} {'max_rss MB':>10} {'max s':>8} {'mem_mb':>7} {'runtime':>8}"
    print(head + ("  profile mem/runtime" if a.profile else "") + "  (largest at / slowest at)")
    for name, r in rules.items():
        line = (f"{name:<16} {r['jobs']:>5} {r['max_rss_mb']:>10.1f} {r['max_s']:>8.1f} "
                f"{r['mem_mb']:>7} {r['runtime']:>8}")
        if a.profile:
            flag = "  BELOW" if r["below_proposal"] else ""
            line += f"  {r['profile_mem_mb']}/{r['profile_runtime']}{flag}"
        print(f"{line}  ({r['rss_at']} / {r['s_at']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
