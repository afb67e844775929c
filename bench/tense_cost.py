"""Per-query cost of the forms channel's expansion without and with `tenses` and `persons`, on a built corpus.

    python bench/tense_cost.py [--json]       # results/kb: the grammar index and lexicon.json

Times `QueryExpander.concepts` and `BM25Index.search_concepts` (top 100) for every question of
results/<corpus>/questions.jsonl, one thread, with bm25-grammar-forms's expansion at `tenses` 0, `tenses` 3,
and `tenses` 3 with `persons` 3, after one untimed pass, the settings one after the other on each question;
prints median and p95 in ms (a table, or JSON).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import unicodedata
from pathlib import Path

import numpy as np

from minirag.domains.grammar.language.expand import ExpansionSettings, QueryExpander, load_lexicon
from minirag.index.bm25.index import load_bm25

FORMS = dict(translations=0.5, forms=0.5, paradigm=True, endings=True)  # bm25-grammar-forms's expand


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results/kb")
    ap.add_argument("--index", default="grammar")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    root = Path(args.results)
    bm = load_bm25(root / "bm25" / args.index)
    lexicon, forms, paradigms = load_lexicon(root / "lexicon.json", paradigms=True)
    queries = [unicodedata.normalize("NFC", json.loads(line)["query"])
               for line in (root / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    settings = {"tenses 0": {}, "tenses 3": {"tenses": 3.0}, "tenses 3, persons 3": {"tenses": 3.0, "persons": 3.0}}
    expanders = {label: QueryExpander(bm.analyzer, lexicon, forms, ExpansionSettings(**FORMS, **extra), paradigms)
                 for label, extra in settings.items()}
    times = {label: ([], []) for label in expanders}  # per setting: expansion, expansion + scoring (ms)
    for timed in (False, True):
        for q in queries:  # the settings one after the other on each query: drift in the machine's speed hits all
            for label, expander in expanders.items():
                t0 = time.perf_counter()
                concepts = expander.concepts(q)
                t1 = time.perf_counter()
                bm.search_concepts(concepts, 100)
                t2 = time.perf_counter()
                if timed:
                    times[label][0].append((t1 - t0) * 1e3)
                    times[label][1].append((t2 - t0) * 1e3)
    rows = [{"setting": label, "questions": len(queries), "expand_median_ms": round(statistics.median(e), 3),
             "expand_p95_ms": round(float(np.percentile(e, 95)), 3), "total_median_ms": round(statistics.median(t), 3),
             "total_p95_ms": round(float(np.percentile(t, 95)), 3)} for label, (e, t) in times.items()]
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'setting':22} {'expansion median':>17} {'p95':>7} {'+ scoring median':>17} {'p95':>7}  ({len(queries)} questions)")
    for r in rows:
        print(f"{r['setting']:22} {r['expand_median_ms']:14.3f} ms {r['expand_p95_ms']:7.3f} "
              f"{r['total_median_ms']:14.3f} ms {r['total_p95_ms']:7.3f}")

if __name__ == "__main__":
    main()
