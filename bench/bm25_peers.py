"""BM25 side by side: minirag against bm25s and rank_bm25 on the SciFact test claims.

Every engine indexes the same SciFact documents (title + " " + text, whole documents as items)
analyzed by minirag's Analyzer, and answers the 300 test claims (the query ids of
qrels/test.tsv), top 100, one thread. Two settings:

- plain:    the seed's tokenizer (lowercased \\w+), k1 = 1.5, b = 0.75
- pyserini: Pyserini's BEIR "flat" run: Lucene's 33 English stopwords, Porter stemming,
            k1 = 0.9, b = 0.4 (Pyserini reports nDCG@10 = 0.6789)

Columns: index seconds (from token lists: the corpus analysis is shared, timed once, and
shown as its own row), queries per second (from query strings: the shared analyzer runs
inside every engine's timed loop), nDCG@10 (pytrec_eval), and top-10 agreement with bm25s
lucene: the share of (query, rank) positions, ranks 1-10, holding the same document
(bm25s pads short lists with zero-score documents; those count as empty). Timings are
medians of --repeats runs; ratios are to bm25s in the same run. minirag's "index MB" is
what its index keeps allocated (tracemalloc), with the vocabulary.

    .venv/bin/python bench/bm25_peers.py [--data DIR] [--repeats 5] [--json]
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
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from minirag.analyze import Analyzer, AnalyzerConfig  # noqa: E402
from minirag.bm25 import BM25Index, BM25Params  # noqa: E402
from minirag.io import read_jsonl  # noqa: E402

K = 100
SETTINGS = {
    "plain": (AnalyzerConfig(), BM25Params(k1=1.5, b=0.75)),
    "pyserini": (AnalyzerConfig(stopwords=("en",), stemmer="porter"), BM25Params(k1=0.9, b=0.4)),
}


def load_scifact(data: Path):
    docs = read_jsonl(data / "corpus.jsonl")
    queries = {q["_id"]: q["text"] for q in read_jsonl(data / "queries.jsonl")}
    qrels: dict[str, dict[str, int]] = {}
    for line in (data / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, did, score = line.split("\t")
        qrels.setdefault(qid, {})[did] = int(score)
    qids = list(qrels)
    return [d["_id"] for d in docs], [d["title"] + " " + d["text"] for d in docs], qids, \
        [queries[q] for q in qids], qrels


def timed(fn, repeats):
    """(last result, median seconds) of `repeats` calls."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, statistics.median(times)


def top_k(scores: np.ndarray, k: int):
    idx = np.argpartition(-scores, k - 1)[:k]
    idx = idx[np.argsort(-scores[idx], kind="stable")]
    return idx, scores[idx]


def run_minirag(tokens, analyzer, params, queries, repeats):
    index, index_s = timed(lambda: BM25Index.from_tokens(tokens, analyzer, params), repeats)
    results, query_s = timed(lambda: index.search_batch(queries, K), repeats)
    tracemalloc.start()
    kept = BM25Index.from_tokens(tokens, analyzer, params)
    mem = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept
    return index_s, query_s, [(i.tolist(), s.tolist()) for i, s in results], mem


def run_bm25s(tokens, analyzer, params, queries, repeats):
    import bm25s

    def build():
        r = bm25s.BM25(k1=params.k1, b=params.b, method="lucene")
        r.index(tokens, show_progress=False)
        return r

    retriever, index_s = timed(build, repeats)
    res, query_s = timed(lambda: retriever.retrieve([analyzer(q) for q in queries], k=K, n_threads=0,
                                                    show_progress=False), repeats)
    return index_s, query_s, [(d.tolist(), s.tolist()) for d, s in zip(res.documents, res.scores)], None


def run_rank_bm25(tokens, analyzer, params, queries, repeats):
    from rank_bm25 import BM25Okapi

    bm, index_s = timed(lambda: BM25Okapi(tokens, k1=params.k1, b=params.b), repeats)

    def answer():
        return [top_k(bm.get_scores(analyzer(q)), K) for q in queries]

    res, query_s = timed(answer, repeats)
    return index_s, query_s, [(d.tolist(), s.tolist()) for d, s in res], None


ENGINES = {"bm25s": run_bm25s, "rank_bm25": run_rank_bm25, "minirag": run_minirag}


def ndcg10(doc_ids, qids, results, qrels) -> float:
    import pytrec_eval

    run = {qid: {doc_ids[i]: float(s) for i, s in zip(items, scores)}
           for qid, (items, scores) in zip(qids, results)}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
    return statistics.fmean(per_query[q]["ndcg_cut_10"] for q in qids)


def agreement(results, reference) -> float:
    """Share of (query, rank 1..10) positions where both lists hold the same item (or none)."""
    same = 0
    for (items, scores), (ref_items, ref_scores) in zip(results, reference):
        a = [i for i, s in zip(items, scores) if s > 0][:10]
        b = [i for i, s in zip(ref_items, ref_scores) if s > 0][:10]
        same += sum((a[r] if r < len(a) else None) == (b[r] if r < len(b) else None) for r in range(10))
    return same / (10 * len(results))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "datasets" / "scifact")
    ap.add_argument("--repeats", type=int, default=5, help="runs per timing; the median is reported")
    ap.add_argument("--settings", nargs="+", choices=list(SETTINGS), default=list(SETTINGS))
    ap.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = ap.parse_args(argv)

    doc_ids, texts, qids, queries, qrels = load_scifact(args.data)
    rows = []
    for name in args.settings:
        config, params = SETTINGS[name]
        analyzer = Analyzer(config)
        t0 = time.perf_counter()
        tokens = [analyzer(t) for t in texts]
        analyze_s = time.perf_counter() - t0
        for q in queries:  # warm the stem cache, so no engine pays for first sight of a query word
            analyzer(q)
        found = {e: ENGINES[e](tokens, analyzer, params, queries, args.repeats) for e in ENGINES}
        ref = found["bm25s"]
        rows.append({"setting": name, "engine": "(analyze corpus)", "index_s": analyze_s})
        for engine, (index_s, query_s, results, mem) in found.items():
            rows.append({
                "setting": name, "engine": engine, "index_s": index_s, "qps": len(queries) / query_s,
                "index_ratio": index_s / ref[0], "qps_ratio": ref[1] / query_s,
                "ndcg10": ndcg10(doc_ids, qids, results, qrels),
                "top10_agreement": agreement(results, ref[2]),
                "index_mb": None if mem is None else mem / 2**20,
            })
    if args.json:
        print(json.dumps({"n_docs": len(texts), "n_queries": len(queries), "k": K,
                          "repeats": args.repeats, "rows": rows}, indent=2))
        return
    print(f"SciFact: {len(texts)} docs, {len(queries)} test queries, top {K}, one thread, "
          f"median of {args.repeats}")
    head = f"{'setting':9} {'engine':17} {'index s':>8} {'x bm25s':>8} {'q/s':>8} {'x bm25s':>8} " \
           f"{'nDCG@10':>8} {'top10 agree':>11} {'index MB':>9}"
    print(head)
    print("-" * len(head))
    for r in rows:
        if "qps" not in r:
            print(f"{r['setting']:9} {r['engine']:17} {r['index_s']:8.3f}")
            continue
        mb = "" if r["index_mb"] is None else f"{r['index_mb']:9.1f}"
        print(f"{r['setting']:9} {r['engine']:17} {r['index_s']:8.3f} {r['index_ratio']:8.2f} "
              f"{r['qps']:8.0f} {r['qps_ratio']:8.2f} {r['ndcg10']:8.4f} {r['top10_agreement']:11.2%} {mb:>9}")


if __name__ == "__main__":
    main()
