"""BM25 query speed: minirag's exact searches against the exhaustive one and bm25s (numpy and numba backends).

For a BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv), the first --limit passages
(all by default) are indexed in-process as minirag's plain BM25 index is (the default
analyzer: lowercased \\w+; lucene, k1 1.5, b 0.75; item text title + "\\n" + text), and bm25s
(method lucene, same k1 and b) indexes the same texts as the same token ids (minirag's
analyzer and vocabulary), once per backend. The test queries (the query ids of qrels/test.tsv,
at most --queries) are answered, top --k, one thread, by:

- exhaustive:  `search_batch(..., prune=False)`, every posting of every query term read;
- minirag:     `search_batch(...)`, the retrieve stage's call: the batched search of
               minirag/index/bm25/batch.py where it pays, else MaxScore or the exhaustive
               search query by query (BM25Index._batch_pays);
- bm25s-numpy, bm25s-numba: `BM25(backend=...).retrieve(..., n_threads=0, backend_selection=...)`;
- single:      one query per call, as a live server asks: minirag's `search` and bm25s-numba's
               `retrieve([query])`.

Each engine analyses the query strings inside its timed loop (the same analyzer). Times are
CPU seconds of this one-threaded process, medians of --repeats rounds in which the engines
take turns (the order rotates each round), so load on a shared machine hits all alike:
quote the ratios ("x numba": against bm25s' numba backend, the fastest peer, batch to batch
and single to single). Also reported: the share of queries whose top k (items and float64
scores) is identical between minirag and exhaustive, batched and single (it must be 100 %),
the share identical to bm25s-numba up to ties (same scores rank by rank at float32 tolerance,
same items above the last score: bm25s breaks ties its own way), and the share of the
queries the batched search answered (the rest went one by one).

    .venv/bin/python bench/bm25_speed.py --corpus data/synth/100000 [--limit 10000]
        [--queries 1000] [--k 10] [--repeats 5] [--json]

What it leaves out: index build time (reported, not raced), memory, and several threads.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"  # one thread, before numpy loads

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from topk_compare import positive_top, same_but_ties  # noqa: E402  (bench/, the script's folder)

from minirag.index.bm25.index import BM25Index, BM25Params  # noqa: E402
from minirag.text.analyze import Analyzer, AnalyzerConfig  # noqa: E402

ENGINES = ("exhaustive", "minirag", "bm25s-numpy", "bm25s-numba")
SINGLE = ("minirag-single", "bm25s-numba-single")


def read_corpus(folder: Path, limit: int | None) -> list[str]:
    """title + "\\n" + text of the first `limit` passages."""
    texts = []
    with open(folder / "corpus.jsonl", encoding="utf-8") as fh:
        for line in fh:
            if limit is not None and len(texts) >= limit:
                break
            doc = json.loads(line)
            texts.append(f"{doc.get('title', '')}\n{doc.get('text', '')}")
    return texts


def read_test_queries(folder: Path, n: int) -> list[str]:
    """The texts of the first n query ids of qrels/test.tsv, in file order."""
    ids: dict[str, None] = {}
    with open(folder / "qrels" / "test.tsv", encoding="utf-8") as fh:
        next(fh)  # header
        for line in fh:
            ids.setdefault(line.split("\t")[0], None)
    text = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as fh:
        for line in fh:
            q = json.loads(line)
            text[q["_id"]] = q["text"]
    return [text[i] for i in ids if i in text][:n]


def race(fns: dict, repeats: int) -> tuple[dict[str, float], dict]:
    """Median CPU seconds per engine over `repeats` rounds, the order rotating each round; and
    each engine's last results."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    found = {}
    names = list(fns)
    for r in range(repeats):
        for name in names[r % len(names):] + names[:r % len(names)]:
            t0 = time.process_time()
            found[name] = fns[name]()
            times[name].append(time.process_time() - t0)
    return {name: statistics.median(t) for name, t in times.items()}, found


def measure(corpus: Path, limit: int | None, n_queries: int, k: int, repeats: int) -> dict:
    import bm25s

    texts = read_corpus(corpus, limit)
    queries = read_test_queries(corpus, n_queries)
    analyzer = Analyzer(AnalyzerConfig())  # BM25Settings' default: the plain index's
    t0 = time.process_time()
    index = BM25Index.build(texts, analyzer, BM25Params(variant="lucene", k1=1.5, b=0.75))
    build_s = time.process_time() - t0
    vocab = index.vocab
    ids = [[vocab[t] for t in analyzer(text)] for text in texts]
    del texts
    peers = {}
    for backend in ("numpy", "numba"):
        peers[backend] = bm25s.BM25(k1=1.5, b=0.75, method="lucene", backend=backend)
        peers[backend].index((ids, dict(vocab)), show_progress=False)
    del ids

    def peer_run(backend, batch):
        res = peers[backend].retrieve([analyzer.query(q) for q in batch], k=k, n_threads=0, show_progress=False,
                                      backend_selection=backend)
        return list(zip(res.documents, res.scores))

    fns = {"exhaustive": lambda: index.search_batch(queries, k, prune=False),
           "minirag": lambda: index.search_batch(queries, k),
           "bm25s-numpy": lambda: peer_run("numpy", queries),
           "bm25s-numba": lambda: peer_run("numba", queries),
           "minirag-single": lambda: [index.search(q, k) for q in queries],
           "bm25s-numba-single": lambda: [peer_run("numba", [q])[0] for q in queries]}
    peer_run("numba", queries[:2])  # numba compiles on the first call: not timed
    batched = index._batched().stats if index._batch_pays(len(queries), k) else {"queries": 0, "answered": 0}
    before = dict(batched)
    seconds, found = race(fns, repeats)
    exact = {name: sum(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
                       for a, b in zip(found[name], found["exhaustive"])) / len(queries)
             for name in ("minirag", "minirag-single")}
    mine = [positive_top(i, s, k) for i, s in found["minirag"]]
    theirs = [positive_top(i, s, k) for i, s in found["bm25s-numba"]]
    qps = {name: len(queries) / s for name, s in seconds.items()}
    asked = batched["queries"] - before["queries"]
    return {"corpus": str(corpus), "n": index.n_items, "postings": len(index.arrays["items"]),
            "queries": len(queries), "k": k, "repeats": repeats, "build_s": build_s,
            **{f"{name}_qps": q for name, q in qps.items()},
            "minirag_x_numba": qps["minirag"] / qps["bm25s-numba"],
            "single_x_numba": qps["minirag-single"] / qps["bm25s-numba-single"],
            "minirag_x_exhaustive": qps["minirag"] / qps["exhaustive"],
            "identical_to_exhaustive": exact["minirag"], "single_identical_to_exhaustive": exact["minirag-single"],
            "same_as_numba_up_to_ties": sum(map(same_but_ties, mine, theirs)) / len(queries),
            "batched_share": (batched["answered"] - before["answered"]) / asked if asked else 0.0}


def print_table(row: dict) -> None:
    print(f"{row['corpus']}: {row['n']:,} items, {row['postings']:,} postings, {row['queries']} test queries, "
          f"top {row['k']}, median of {row['repeats']} rounds (CPU s, one thread); built in {row['build_s']:.1f} s")
    print(f"{'engine':20}{'q/s':>9}{'x numba':>9}")
    for name in ENGINES + SINGLE:
        peer = "bm25s-numba-single" if name in SINGLE else "bm25s-numba"
        print(f"{name:20}{row[name + '_qps']:>9.0f}{row[name + '_qps'] / row[peer + '_qps']:>9.2f}")
    print(f"minirag / exhaustive: {row['minirag_x_exhaustive']:.2f}x; the batched search answered "
          f"{row['batched_share']:.1%} of the queries (the rest one by one)")
    print(f"top {row['k']} identical to exhaustive (items and float64 scores): batch "
          f"{row['identical_to_exhaustive']:.1%}, single {row['single_identical_to_exhaustive']:.1%}; "
          f"same as bm25s-numba up to ties: {row['same_as_numba_up_to_ties']:.1%}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, required=True, help="a BEIR folder: corpus.jsonl, queries.jsonl, qrels/")
    ap.add_argument("--limit", type=int, default=None, help="index only the first N passages")
    ap.add_argument("--queries", type=int, default=1000, help="at most this many test queries")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    row = measure(args.corpus, args.limit, args.queries, args.k, args.repeats)
    if args.json:
        print(json.dumps(row, indent=1))
    else:
        print_table(row)
    return 0 if row["identical_to_exhaustive"] == row["single_identical_to_exhaustive"] == 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
