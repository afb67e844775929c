"""Cold `python -m minirag answer` latency: a new process each time, as a user at a terminal runs it.

Runs `python -m minirag answer QUESTION --json` `--runs` times (10), each a fresh interpreter, and
reports the wall time of each process (start to exit: imports, opening the config, the chunks, the
retriever, the reader and the answer selector, then answering) beside the time the answer itself
reports (`latency_ms`: opening the retriever, reader and selector, then retrieve, select, prompt,
read, inside the process), and the process's CPU time (user + system: on a loaded machine, closer to
what a quiet one's wall time would be). The table gives the median, minimum and maximum of each,
and the part of the wall time spent before answering. One run
first, not counted, warms the OS file cache (what the bench measures is Python, not the disk).

    .venv/bin/python bench/cli_latency.py [--question "past tense of swim"] [--runs 10] [--json]
    .venv/bin/python -X importtime -m minirag answer "past tense of swim" 2> imports.txt   # where imports go

Build the artifacts first: snakemake -c2 results/report.md
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time


def run_once(cmd: list[str]) -> tuple[float, float, dict]:
    """(wall milliseconds, CPU milliseconds (user + system), the JSON the command printed). Bytecode is
    cached as on a user's machine (PYTHONDONTWRITEBYTECODE, set in some sandboxes, would recompile every
    module at every start)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return wall, cpu, json.loads(proc.stdout)


def measure(question: str, runs: int, extra: list[str]) -> dict:
    cmd = [sys.executable, "-m", "minirag", "answer", question, "--json", *extra]
    run_once(cmd)  # warms the file cache; not counted
    walls, cpus, inside, out = [], [], [], {}
    for _ in range(runs):
        wall, cpu, out = run_once(cmd)
        walls.append(wall)
        cpus.append(cpu)
        inside.append(out["latency_ms"])
    summary = {k: {"median": statistics.median(v), "min": min(v), "max": max(v)}
               for k, v in (("wall_ms", walls), ("cpu_ms", cpus), ("in_process_ms", inside))}
    return {"command": " ".join(["python", "-m", "minirag", "answer", json.dumps(question), "--json", *extra]),
            "runs": runs, "python": sys.version.split()[0], "load_average": os.getloadavg()[0],
            "cpus": os.cpu_count(), "answer": out.get("answer"),
            "retriever": out.get("retriever"), "reader": out.get("reader"), **summary,
            "before_answering_ms": statistics.median(w - i for w, i in zip(walls, inside)),
            "wall_ms_each": [round(w, 1) for w in walls], "in_process_ms_each": [round(i, 1) for i in inside]}


def table(r: dict) -> str:
    rows = [("cold wall time (process start to exit)", r["wall_ms"]),
            ("its CPU time (user + system)", r["cpu_ms"]),
            ("answer inside the process (latency_ms)", r["in_process_ms"])]
    lines = [f"{r['command']}  ({r['runs']} runs; answer: {r['answer']!r} by {r['reader']} over {r['retriever']}; "
             f"load average {r['load_average']:.1f} on {r['cpus']} CPUs)",
             "", f"{'':42} {'median':>8} {'min':>8} {'max':>8}"]
    lines += [f"{name:42} {s['median']:8.1f} {s['min']:8.1f} {s['max']:8.1f}" for name, s in rows]
    lines.append(f"{'before answering (imports, loading), median':42} {r['before_answering_ms']:8.1f}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--question", default="past tense of swim")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--corpus", default=None, help="a corpus of the config (default: its first built one)")
    ap.add_argument("--configfile", default="workflow/config.yaml")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    extra = ["--configfile", a.configfile] + (["--corpus", a.corpus] if a.corpus else [])
    result = measure(a.question, a.runs, extra if a.configfile != "workflow/config.yaml" or a.corpus else [])
    print(json.dumps(result, indent=2) if a.json else table(result))


if __name__ == "__main__":
    main()
