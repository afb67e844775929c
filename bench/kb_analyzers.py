"""Which BM25 analyzer suits a two-language corpus: an ablation on built artifacts.

Indexes a corpus's chunks (`chunks.jsonl`, as the `bm25` stage does: title and section
before the text) once per analyzer setting — stopword lists x stemmer x accent folding x
title field — runs every question and scores the runs with the evaluate stage's own
per-query metrics. The peer in the same run is the seed's analyzer (lowercased \\w+, nothing
else), the first row. Retrieval quality, not time: each index builds in about a second.

    .venv/bin/python bench/kb_analyzers.py [--corpus kb] [--results results] [--tag conjugation] [--json]

Build the artifacts first: snakemake -c2 results/report.md. The settings are chosen on the
evaluation questions themselves (the KB has no held-out split), so the best row is an
optimistic figure for that analyzer; the ordering is what carries over.
"""

from __future__ import annotations

import argparse
import itertools
import json

from minirag.artifacts.io import read_jsonl
from minirag.artifacts.layout import CorpusLayout
from minirag.evaluation.evaluate import mean, per_query_metrics
from minirag.index.bm25.index import BM25Index, BM25Params
from minirag.text.analyze import Analyzer, AnalyzerConfig
from minirag.text.chunks import index_text, load_chunks

STOPWORDS = ((), ("en", "es"))
STEMMERS = (None, "english", "spanish")
FOLDS = (False, True)
TITLE_WEIGHTS = (0.0, 1.0)


def evaluate_setting(chunks, questions, tagged: set[str], analyzer: AnalyzerConfig, title_weight: float,
                     depth: int = 100) -> dict:
    index = BM25Index.build([index_text(c) for c in chunks], Analyzer(analyzer),
                            BM25Params(variant="lucene", k1=1.5, b=0.75, title_weight=title_weight),
                            titles=[c.title for c in chunks])
    results = index.search_batch([q["query"] for q in questions], depth)
    run = {q["qid"]: [(chunks[i].id, float(s)) for i, s in zip(items, scores)]
           for q, (items, scores) in zip(questions, results)}
    scores = per_query_metrics(questions, chunks, {"run": run})["run"]
    chunk, doc = scores["chunk"], scores["doc"]
    tag = [qid for qid in chunk if qid in tagged]
    return {"hit@5": mean(m["hit@5"] for m in chunk.values()),
            "mrr": mean(m["mrr"] for m in chunk.values()),
            "doc_hit@5": mean(m["hit@5"] for m in doc.values()),
            "tag_recall@5": mean(chunk[q]["recall@5"] for q in tag),
            "tag_questions": len(tag)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--results", default="results")
    ap.add_argument("--tag", default="conjugation", help="question tag whose recall@5 gets its own column")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    art = CorpusLayout.of(a.results, a.corpus)
    chunks = load_chunks(art.chunks)
    questions = list(read_jsonl(art.questions))
    tagged = {q["qid"] for q in questions if a.tag in q.get("tags", [])}
    rows = []
    for stop, stem, fold, tw in itertools.product(STOPWORDS, STEMMERS, FOLDS, TITLE_WEIGHTS):
        analyzer = AnalyzerConfig(stopwords=stop, stemmer=stem, fold_accents=fold)
        rows.append({"stopwords": "+".join(stop) or "-", "stemmer": stem or "-", "fold_accents": fold,
                     "title_weight": tw, **evaluate_setting(chunks, questions, tagged, analyzer, tw)})
    if a.json:
        print(json.dumps({"corpus": a.corpus, "chunks": len(chunks), "tag": a.tag, "rows": rows}, indent=2))
        return
    base = rows[0]["hit@5"]
    print(f"corpus {a.corpus}: {len(chunks)} chunks, {len(questions)} questions; "
          f"BM25 lucene k1 1.5 b 0.75; chunk level unless marked doc")
    print(f"{'stopwords':<10}{'stemmer':<9}{'fold':<6}{'title':>6}{'hit@5':>8}{'x seed':>8}{'MRR':>8}"
          f"{'doc hit@5':>11}{a.tag + ' R@5':>18}")
    for r in rows:
        print(f"{r['stopwords']:<10}{r['stemmer']:<9}{'yes' if r['fold_accents'] else 'no':<6}"
              f"{r['title_weight']:>6.1f}{r['hit@5']:>8.3f}{r['hit@5'] / base:>8.2f}{r['mrr']:>8.3f}"
              f"{r['doc_hit@5']:>11.3f}{r['tag_recall@5']:>18.3f}")


if __name__ == "__main__":
    main()
