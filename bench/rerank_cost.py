"""What the learned reranker costs per query, set against the first stage it re-orders.

    python bench/rerank_cost.py --retriever <rerank retriever> [--corpus kb] [--repeat 5] [--json]

Loads a built corpus's chunks and the reranker's trained model (results/<corpus>/rerankers/),
takes every question's candidates from the run the reranker reads, and times, per query:
the features of the top N candidates plus the re-ordering (what `rerank` adds; with `dense`, the
query's vector and the cosines, the vector also timed alone), and, as the
peer measured in the same process, the BM25 search of the first channel of that run. Prints
medians and the 90th percentile over queries, each the best of `--repeat` passes; the ratio
rerank / BM25 is what to compare across machines.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minirag.artifacts.integrity import load_records  # noqa: E402
from minirag.artifacts.layout import CorpusLayout  # noqa: E402
from minirag.config.corpus import corpus_config  # noqa: E402
from minirag.config.load import load_config  # noqa: E402
from minirag.config.merge import deep_merge  # noqa: E402
from minirag.config.typed import Corpus  # noqa: E402
from minirag.evaluation.trec import load_run  # noqa: E402
from minirag.query.built_corpus import open_corpus  # noqa: E402
from minirag.rank.rerank import rerank  # noqa: E402


def channel_of(corpus: Corpus, name: str) -> str:
    """The first channel upstream of `name` (the BM25 or dense run its candidates start from)."""
    kind = corpus.retrievers[name]
    return channel_of(corpus, kind.upstream()[0]) if kind.upstream() else name


def best_times(fn, items, repeat: int) -> list[float]:
    """Per item, the best of `repeat` timings in milliseconds."""
    best = [float("inf")] * len(items)
    for _ in range(repeat):
        for i, item in enumerate(items):
            t0 = time.perf_counter()
            fn(item)
            best[i] = min(best[i], (time.perf_counter() - t0) * 1000)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--retriever", required=True)
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--config", default=None, help="a --configfile that defines the retriever")
    ap.add_argument("--results", type=Path, default=Path("results"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    config = load_config("workflow/config.yaml")
    if a.config:  # merged over the default config as snakemake merges a --configfile
        config = deep_merge(config, load_config(a.config))
    cc = corpus_config(config, a.corpus)
    layout = CorpusLayout.of(a.results, a.corpus)
    corpus = Corpus.of(cc)
    kind = corpus.retrievers[a.retriever]
    if not kind.trained:
        raise SystemExit(f"{a.retriever!r} is a {kind.type} retriever, not a reranker")
    _, chunks, sources = open_corpus(a.results, a.corpus, cc)
    model = kind.model(sources)
    run = load_run(layout.run(kind.upstream()[0]))
    questions = [q for q in load_records(layout.questions, "questions") if run.get(q["qid"])]
    n = kind.s.candidates
    jobs = [(q["query"], run[q["qid"]][:n]) for q in questions]

    def rerank_one(job):
        query, head = job
        x = kind.feature_matrix(query, head, sources, model)  # (N, F)
        rerank(head, x, model["w"], model["b"], n)

    peer_name = channel_of(corpus, a.retriever)
    peer = corpus.retrievers[peer_name].open(sources)
    for job in jobs[:3]:  # caches (features of lines, stems) warm as in a long-lived service
        rerank_one(job)
    ours = best_times(rerank_one, jobs, a.repeat)
    theirs = best_times(lambda job: peer.search(job[0], 100), jobs, a.repeat)
    row = {"retriever": a.retriever, "candidates": n, "queries": len(jobs),
           "rerank_median_ms": statistics.median(ours), "rerank_p90_ms": statistics.quantiles(ours, n=10)[-1],
           "peer": peer_name, "peer_median_ms": statistics.median(theirs),
           "ratio": statistics.median(ours) / statistics.median(theirs)}
    if kind.s.dense:  # the part of the rerank time that embeds the query (the dense features' own cost)
        dense = kind.dense_features(sources)
        embeds = best_times(lambda job: dense.query_vectors([job[0]]), jobs, a.repeat)
        row.update(dense_query_median_ms=statistics.median(embeds), dense_query_p90_ms=statistics.quantiles(embeds, n=10)[-1])
    if a.json:
        print(json.dumps(row, indent=2))
        return 0
    print(f"{a.corpus}: {len(jobs)} queries, top {n} candidates, best of {a.repeat} passes per query")
    print(f"{'stage':38} {'median ms':>10} {'p90 ms':>8}")
    print(f"{'rerank ' + a.retriever + ' (features + order)':38} {row['rerank_median_ms']:10.2f} "
          f"{row['rerank_p90_ms']:8.2f}")
    if "dense_query_median_ms" in row:
        print(f"{'  of which the query vector, ' + kind.s.dense:38} {row['dense_query_median_ms']:10.2f} "
              f"{row['dense_query_p90_ms']:8.2f}")
    print(f"{'peer: BM25 search, ' + peer_name:38} {row['peer_median_ms']:10.2f}")
    print(f"ratio rerank / peer: {row['ratio']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
