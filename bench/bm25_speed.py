"""BM25 query speed: the exact pruned search (MaxScore) against the exhaustive one and bm25s.

For a BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv), the first --limit passages
(all by default) are indexed in-process as minirag's plain BM25 index is (the default
analyzer: lowercased \\w+; lucene, k1 1.5, b 0.75; item text title + "\\n" + text), and bm25s
(method lucene, same k1 and b) indexes the same texts as the same token ids (minirag's
analyzer and vocabulary). The test queries (the query ids of qrels/test.tsv, at most
--queries) are answered, top --k, one thread, by three engines:

- exhaustive: `search_batch(..., prune=False)`, every posting of every query term read;
- pruned:     `search_batch(...)`, the MaxScore search of minirag/index/bm25_search.py;
- bm25s:      `BM25.retrieve(..., n_threads=0)`.

Each engine analyses the query strings inside its timed loop (the same analyzer). Times are
CPU seconds of this one-threaded process, medians of --repeats rounds in which the engines
take turns (the order rotates each round), so load on a shared machine hits all alike:
quote the ratios. Also reported: the share of queries whose top k (items and float64
scores) is identical between pruned and exhaustive (it must be 100 %), the share identical
to bm25s up to ties (same scores rank by rank at float32 tolerance, same items above the
last score: bm25s breaks ties its own way), the share of queries the pruning answered
(the rest fell back to the exhaustive search) and the postings it read against the
exhaustive search's.

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

from minirag.index.bm25 import BM25Index, BM25Params  # noqa: E402
from minirag.text.analyze import Analyzer, AnalyzerConfig  # noqa: E402

ENGINES = ("exhaustive", "pruned", "bm25s")


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
    peer = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    peer.index((ids, dict(vocab)), show_progress=False)
    del ids

    def bm25s_run():
        res = peer.retrieve([analyzer.query(q) for q in queries], k=k, n_threads=0, show_progress=False)
        return list(zip(res.documents, res.scores))

    fns = {"exhaustive": lambda: index.search_batch(queries, k, prune=False),
           "pruned": lambda: index.search_batch(queries, k),
           "bm25s": bm25s_run}
    stats = index._pruned.stats
    before = dict(stats)
    seconds, found = race(fns, repeats)
    ran = {key: (stats[key] - before[key]) / repeats for key in stats}  # per round of the pruned engine
    total = postings_of(index, queries)
    exact = sum(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
                for a, b in zip(found["pruned"], found["exhaustive"]))
    mine = [positive_top(i, s, k) for i, s in found["pruned"]]
    theirs = [positive_top(i, s, k) for i, s in found["bm25s"]]
    qps = {name: len(queries) / s for name, s in seconds.items()}
    return {"corpus": str(corpus), "n": index.n_items, "postings": len(index.arrays["items"]),
            "queries": len(queries), "k": k, "repeats": repeats, "build_s": build_s,
            **{f"{name}_qps": q for name, q in qps.items()},
            "pruned_x_bm25s": qps["pruned"] / qps["bm25s"], "pruned_x_exhaustive": qps["pruned"] / qps["exhaustive"],
            "exhaustive_x_bm25s": qps["exhaustive"] / qps["bm25s"],
            "identical_to_exhaustive": exact / len(queries),
            "same_as_bm25s_up_to_ties": sum(map(same_but_ties, mine, theirs)) / len(queries),
            "pruned_share": ran["pruned"] / ran["queries"] if ran["queries"] else 0.0,
            "postings_read_share": (ran["postings"] + ran["lookups"]) / total if total else 0.0}


def postings_of(index: BM25Index, queries: list[str]) -> int:
    """What the exhaustive search reads for the queries: postings, title postings, N per dense row."""
    a, n = index.arrays, 0
    for q in queries:
        for t in (index.vocab[w] for w in index.analyzer.query(q) if w in index.vocab):
            n += index.n_items if t in index._dense_row else int(a["indptr"][t + 1] - a["indptr"][t])
            n += int(a["title_indptr"][t + 1] - a["title_indptr"][t])
    return n


def print_table(row: dict) -> None:
    print(f"{row['corpus']}: {row['n']:,} items, {row['postings']:,} postings, {row['queries']} test queries, "
          f"top {row['k']}, median of {row['repeats']} rounds (CPU s, one thread); built in {row['build_s']:.1f} s")
    print(f"{'engine':12}{'q/s':>9}{'x bm25s':>9}")
    for name in ENGINES:
        print(f"{name:12}{row[name + '_qps']:>9.0f}{row[name + '_qps'] / row['bm25s_qps']:>9.2f}")
    print(f"pruned / exhaustive: {row['pruned_x_exhaustive']:.2f}x; pruned answered {row['pruned_share']:.1%} "
          f"of the queries, reading {row['postings_read_share']:.1%} of the exhaustive search's postings")
    print(f"top {row['k']} identical to exhaustive (items and float64 scores): {row['identical_to_exhaustive']:.1%}; "
          f"same as bm25s up to ties: {row['same_as_bm25s_up_to_ties']:.1%}")


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
    return 0 if row["identical_to_exhaustive"] == 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
