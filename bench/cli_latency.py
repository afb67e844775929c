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
    .venv/bin/python bench/cli_latency.py --phases 15      # where a cold answer's CPU time goes, step by step
    .venv/bin/python -X importtime -m minirag answer "past tense of swim" 2> imports.txt   # where imports go

`--phases N` runs, N times in a fresh interpreter, the steps `python -m minirag answer` takes (as
cmd_answer calls them, the garbage collector off as the command runs), and prints each step's CPU
milliseconds (minimum and median over the N): imports, the config, the chunks, each artifact opened,
the answer itself. The interpreter's own start (`python -c pass`) comes on top.

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


PHASES = """
import gc; gc.disable()
import json, os, sys, time
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
marks = [("", time.process_time())]
def mark(name): marks.append((name, time.process_time()))
import numpy; mark("import numpy")
import minirag.cli; mark("import the CLI (argparse, artifacts, history)")
import minirag.config.load, minirag.config.corpus, minirag.query.defaults; mark("import the config's settings")
corpus, settings = minirag.query.defaults.named_corpus(sys.argv[2], sys.argv[3] or None, "results"); mark("read and check the config")
from minirag.query.built_corpus import BuiltCorpus
b = BuiltCorpus(corpus, settings, "results"); mark("read and check chunks and documents")
b.retriever(None); mark("open the retriever (its indexes, the lexicon)")
import minirag.answer.rag, minirag.answer.select.selector; mark("import the reader and the selector")
b.reader(None); mark("open the reader")
b.selector, b.langs; mark("open the answer selector (vocabulary, terms, weights)")
out = b.answer(sys.argv[1]); mark("answer (rerank, select, prompt, read, cite)")
print(json.dumps({n: 1000 * (t - marks[i][1]) for i, (n, t) in enumerate(marks[1:])}))
"""


def phases(question: str, configfile: str, corpus: str | None, runs: int) -> str:
    """Each step's CPU milliseconds, minimum and median over `runs` fresh interpreters (PHASES)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cmd = [sys.executable, "-c", PHASES, question, configfile, corpus or ""]
    subprocess.run(cmd, capture_output=True, env=env, check=True)  # warms the file cache; not counted
    rows = [json.loads(subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout)
            for _ in range(runs)]
    rows = [{**r, "total in the process": sum(r.values())} for r in rows]
    lines = [f"{'CPU ms (' + str(runs) + ' cold runs)':56} {'min':>7} {'median':>7}"]
    lines += [f"{k:56} {min(r[k] for r in rows):7.1f} {statistics.median(r[k] for r in rows):7.1f}" for k in rows[0]]
    return "\n".join(lines)


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
    ap.add_argument("--phases", type=int, default=0, metavar="N", help="time each step instead, over N cold runs")
    a = ap.parse_args()
    if a.phases:
        print(phases(a.question, a.configfile, a.corpus, a.phases))
        return
    extra = ["--configfile", a.configfile] + (["--corpus", a.corpus] if a.corpus else [])
    result = measure(a.question, a.runs, extra if a.configfile != "workflow/config.yaml" or a.corpus else [])
    print(json.dumps(result, indent=2) if a.json else table(result))


if __name__ == "__main__":
    main()
