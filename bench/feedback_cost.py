"""What a feedback run (the `feedback` kind) costs per query, and the reader's share of it.

    python bench/feedback_cost.py --retriever <feedback retriever> [--corpus kb] [--repeat 3]

Opens the built corpus as `search` does (query/built_corpus.py), takes every question's input ranking from
the run file of the retriever it re-orders, and times, per query, `combine` (the reader's answer over the top,
then the re-ordering) and inside it the reader's answer alone (selector + prompt + reader). Prints medians and
the 90th percentile over queries, each the best of `--repeat` passes (the first pass loads the selector).

What it leaves out: the input run's own search (bench/rerank_cost.py times a reranker's).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minirag.artifacts.integrity import load_records  # noqa: E402
from minirag.evaluation.trec import load_run  # noqa: E402
from minirag.query.built_corpus import BuiltCorpus  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--retriever", required=True)
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--configfile", default="workflow/config.yaml")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    corpus = BuiltCorpus.open(a.configfile, a.corpus)
    kind, sources = corpus.settings.retrievers[a.retriever], corpus.sources
    inputs = load_run(corpus.layout.run(kind.upstream()[0]))
    qs = load_records(corpus.layout.questions, "questions")
    answer, spent = sources.answer, []

    def timed_answer(*args):  # the reader's share, recorded per call
        t0 = time.perf_counter()
        out = answer(*args)
        spent.append(time.perf_counter() - t0)
        return out

    sources.answer = timed_answer
    best_total, best_reader = [float("inf")] * len(qs), [float("inf")] * len(qs)
    for _ in range(a.repeat):
        for i, q in enumerate(qs):
            spent.clear()
            t0 = time.perf_counter()
            kind.combine(q["query"], [inputs.get(q["qid"], [])], sources, corpus.depth)
            best_total[i] = min(best_total[i], (time.perf_counter() - t0) * 1000)
            best_reader[i] = min(best_reader[i], sum(spent) * 1000)

    def p90(xs):
        return sorted(xs)[int(0.9 * (len(xs) - 1))]

    print(f"{a.retriever}: {len(qs)} queries, best of {a.repeat}")
    print(f"  combine  median {statistics.median(best_total):.2f} ms  p90 {p90(best_total):.2f} ms")
    print(f"  reader   median {statistics.median(best_reader):.2f} ms  p90 {p90(best_reader):.2f} ms "
          f"({statistics.median(best_reader) / statistics.median(best_total):.0%} of combine's median)")


if __name__ == "__main__":
    main()
