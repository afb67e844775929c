"""End-to-end answer latency on built artifacts: retrieve, build the prompt, read.

Loads a corpus's artifacts once (as `python -m minirag answer` does), then answers every
question of the corpus with each retriever through `rag_answer`, timing each call, and
reports the median and 95th percentile in milliseconds. The peer in the same run is
retrieval alone (`retriever.search`), so the ratio shows what prompt + reader add. The
seed's budget is well under 500 ms per answer on a laptop CPU.

    .venv/bin/python bench/answer_latency.py [--corpus kb] [--configfile workflow/config.yaml] [--json]

Build the artifacts first: snakemake -c2 results/report.md
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from minirag.answer.rag import rag_answer
from minirag.answer.readers import make_reader
from minirag.config.load import load_corpus
from minirag.io import read_jsonl
from minirag.live import open_corpus, open_retriever


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--configfile", default="workflow/config.yaml")
    ap.add_argument("--results", default="results")
    ap.add_argument("--repeats", type=int, default=3, help="passes over the questions (first one warms caches)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    cc = load_corpus(a.configfile, a.corpus)
    layout, chunks, sources = open_corpus(a.results, a.corpus, cc)
    by_id = {c.id: c for c in chunks}
    queries = [q["query"] for q in read_jsonl(layout.questions)]
    reader = make_reader(cc["reader"])
    k = cc["prompt"]["k"]
    rows = []
    for name, spec in cc["retrievers"].items():
        if "sweep_of" in spec:
            continue
        t0 = time.perf_counter()
        retriever = open_retriever(sources, cc, name)
        load_ms = (time.perf_counter() - t0) * 1000
        search_ms, answer_ms = [], []
        for rep in range(a.repeats):
            for q in queries:
                t0 = time.perf_counter()
                retriever.search(q, k=k)
                t1 = time.perf_counter()
                rag_answer(q, retriever, reader, by_id, k=k)
                t2 = time.perf_counter()
                if rep > 0 or a.repeats == 1:
                    search_ms.append((t1 - t0) * 1000)
                    answer_ms.append((t2 - t1) * 1000)
        rows.append({"retriever": name, "load_ms": round(load_ms, 1),
                     "search_p50_ms": round(statistics.median(search_ms), 3),
                     "answer_p50_ms": round(statistics.median(answer_ms), 3),
                     "answer_p95_ms": round(percentile(answer_ms, 95), 3),
                     "answer_over_search": round(statistics.median(answer_ms) / statistics.median(search_ms), 2),
                     "queries": len(answer_ms)})
    if a.json:
        print(json.dumps({"corpus": a.corpus, "k": k, "rows": rows}, indent=2))
        return
    print(f"corpus {a.corpus}, {len(queries)} questions x {max(a.repeats - 1, 1)} timed passes, k = {k}")
    print(f"{'retriever':<22}{'load ms':>9}{'search p50':>12}{'answer p50':>12}{'answer p95':>12}{'x search':>10}")
    for r in rows:
        print(f"{r['retriever']:<22}{r['load_ms']:>9.1f}{r['search_p50_ms']:>12.3f}{r['answer_p50_ms']:>12.3f}"
              f"{r['answer_p95_ms']:>12.3f}{r['answer_over_search']:>10.2f}")


if __name__ == "__main__":
    main()
