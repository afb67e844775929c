"""End-to-end answer latency on built artifacts: retrieve, select the answer, build the prompt, read.

Opens a corpus's artifacts once, as `python -m minirag serve` does (every retriever, reader and the answer
selector loaded, every chunk's candidates read), then answers every question of the corpus with the served
retriever and each local reader through `BuiltCorpus.answer`, timing each call. Peers in the same run:
retrieval alone (the served retriever's top `candidates.depth`) and the answer selector alone over those
chunks, so the table shows what each step adds. Medians and 95th percentiles in milliseconds, wall time of
one thread (BLAS on one thread, as `python -m minirag` runs it).

    .venv/bin/python bench/answer_latency.py [--corpus kb] [--configfile workflow/config.yaml] [--json]

Build the artifacts first: snakemake -c2 results/report.md
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from minirag.artifacts.io import read_jsonl  # noqa: E402
from minirag.query.built_corpus import BuiltCorpus  # noqa: E402


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def timed(fn, items, repeats: int) -> list[float]:
    """Milliseconds of fn(item) for every item, `repeats` passes, the first pass (warming caches) dropped."""
    out = []
    for rep in range(repeats):
        for item in items:
            t0 = time.perf_counter()
            fn(item)
            if rep:
                out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--configfile", default="workflow/config.yaml")
    ap.add_argument("--results", default="results")
    ap.add_argument("--repeats", type=int, default=3, help="passes over the questions (the first warms caches)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    built = BuiltCorpus.open(a.configfile, a.corpus, a.results).load_all()
    queries = [q["query"] for q in read_jsonl(built.layout.questions)]
    name, retriever = built.retriever()
    depth = built.settings.candidates.depth
    steps = {"retrieval alone (top %d)" % depth: lambda q: retriever.search(q, k=depth)}
    if built.selector is not None:
        top = {q: [built.by_id[c] for c, _ in retriever.search(q, k=depth)] for q in queries}
        steps["answer selector alone"] = lambda q: built.selector.select(q, top[q], built.langs)
    for reader in built.reader_names():
        if not built.is_remote(reader):
            steps[f"answer, reader {reader}"] = lambda q, r=reader: built.answer(q, name, r)
    rows = []
    for step, fn in steps.items():
        ms = timed(fn, queries, a.repeats)
        rows.append({"step": step, "retriever": name, "n": len(ms), "p50_ms": round(statistics.median(ms), 3),
                     "p95_ms": round(percentile(ms, 95), 3)})
    if a.json:
        print(json.dumps({"corpus": a.corpus, "retriever": name, "rows": rows}, indent=1))
        return
    print(f"{'step':34s} {'n':>5s} {'p50 ms':>9s} {'p95 ms':>9s}")
    for r in rows:
        print(f"{r['step']:34s} {r['n']:5d} {r['p50_ms']:9.2f} {r['p95_ms']:9.2f}")


if __name__ == "__main__":
    main()
