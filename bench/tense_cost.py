"""Per-query cost of the forms channel's expansion with and without `tenses`, on a built corpus.

    python bench/tense_cost.py                # results/kb: the grammar index and lexicon.json

Times `QueryExpander.concepts` and `BM25Index.search_concepts` (top 100) for every question of
results/<corpus>/questions.jsonl, one thread, with bm25-grammar-forms's expansion at `tenses` 0 and 3,
after one untimed pass, the two settings one after the other on each question; prints median and p95 in ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import unicodedata
from pathlib import Path

import numpy as np

from minirag.index.bm25.index import load_bm25
from minirag.text.expand import ExpansionSettings, QueryExpander, load_lexicon

FORMS = dict(translations=0.5, forms=0.5, paradigm=True, endings=True)  # bm25-grammar-forms's expand


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results/kb")
    ap.add_argument("--index", default="grammar")
    args = ap.parse_args()
    root = Path(args.results)
    bm = load_bm25(root / "bm25" / args.index)
    lexicon, forms, paradigms = load_lexicon(root / "lexicon.json", paradigms=True)
    queries = [unicodedata.normalize("NFC", json.loads(line)["query"])
               for line in (root / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    expanders = {t: QueryExpander(bm.analyzer, lexicon, forms, ExpansionSettings(**FORMS, tenses=t), paradigms)
                 for t in (0.0, 3.0)}
    times = {t: ([], []) for t in expanders}  # per setting: expansion, expansion + scoring (ms)
    for timed in (False, True):
        for q in queries:  # the two settings one after the other on each query: drift in the machine's speed hits both
            for tenses, expander in expanders.items():
                t0 = time.perf_counter()
                concepts = expander.concepts(q)
                t1 = time.perf_counter()
                bm.search_concepts(concepts, 100)
                t2 = time.perf_counter()
                if timed:
                    times[tenses][0].append((t1 - t0) * 1e3)
                    times[tenses][1].append((t2 - t0) * 1e3)
    for tenses, (expand, total) in times.items():
        print(f"tenses {tenses:g}: {len(queries)} questions; expansion median {statistics.median(expand):.3f} ms, "
              f"p95 {np.percentile(expand, 95):.3f}; expansion + scoring median {statistics.median(total):.3f} ms, "
              f"p95 {np.percentile(total, 95):.3f}")

if __name__ == "__main__":
    main()
