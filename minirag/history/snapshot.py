"""A corpus's snapshot for the build history: what each run scored on each question, and what
each reader answered, stored as content-addressed files (blobs.py).

    {"questions": "history/<sha>.json",   qid -> query, split, answerable, gold (answer or documents)
     "runs": {run: "history/<sha>.json"}, qid -> the metrics at chunk and document level, the top document
     "answers": {"<reader>/<run>": "history/<sha>.json"},  qid -> answer, whether it holds the gold
     "settings": "history/<sha>.json"}    the corpus's checked settings (what `diff` compares key by key)

Everything is read from the artifacts the report read (eval/per_query_metrics.csv,
eval/answers.csv, questions.jsonl, the run files, chunks.jsonl), each checked against its
receipt. Scores are rounded to 6 decimals, as the evaluate stage writes them.

What it leaves out: the runs' full rankings (the run files hold them) and the prompts.
"""

from __future__ import annotations

import csv
from pathlib import Path

from ..artifacts.integrity import iter_records, load_records, verified
from ..artifacts.layout import CorpusLayout
from ..evaluation.evaluate import METRIC_KEYS
from ..evaluation.trec import load_run
from . import blobs


def read_csv(path: Path) -> list[dict]:
    with open(verified(path), encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def questions_of(layout: CorpusLayout) -> dict:
    """qid -> what a flipped question is shown with: the query, its split and the gold answer or documents."""
    return {q["qid"]: {"query": q["query"], "split": q.get("split") or "test", "answerable": q["answerable"],
                       "gold": q.get("answer") or ", ".join(g["doc_id"] for g in q["gold"])}
            for q in load_records(layout.questions, "questions")}


def run_scores(layout: CorpusLayout, runs: list[str]) -> dict[str, dict]:
    """run -> {"chunk"|"doc": {qid: [metrics in METRIC_KEYS order]}, "top": {qid: first document}}."""
    out = {r: {"chunk": {}, "doc": {}, "top": {}} for r in runs}
    for row in read_csv(layout.eval("per_query_metrics.csv")):
        if row["retriever"] in out:
            out[row["retriever"]][row["level"]][row["qid"]] = [float(row[k]) for k in METRIC_KEYS]
    first = {r: {qid: ranking[0][0] for qid, ranking in load_run(layout.run(r)).items() if ranking} for r in runs}
    wanted = {cid for tops in first.values() for cid in tops.values()}
    doc_of = {c["id"]: c["doc_id"] for c in iter_records(layout.chunks, "chunks") if c["id"] in wanted}
    for r, tops in first.items():
        out[r]["top"] = {qid: doc_of[cid] for qid, cid in sorted(tops.items())}
    return out


def answer_rows(layout: CorpusLayout) -> dict[str, dict]:
    """"<reader>/<run>" -> {qid: {"answer", "correct"}} from eval/answers.csv."""
    out: dict[str, dict] = {}
    for row in read_csv(layout.eval("answers.csv")):
        out.setdefault(f"{row['reader']}/{row['retriever']}", {})[row["qid"]] = {
            "answer": row["answer"], "correct": row["correct"] == "True"}
    return out


def snapshot(results: str | Path, cc: dict, layout: CorpusLayout, runs: list[str]) -> str:
    """Store the corpus's snapshot (each part once, by content); returns the listing's path."""
    listing = {"questions": blobs.put(results, questions_of(layout)),
               "settings": blobs.put(results, cc),
               "metrics": list(METRIC_KEYS),
               "runs": {r: blobs.put(results, s) for r, s in run_scores(layout, runs).items()},
               "answers": {k: blobs.put(results, v) for k, v in answer_rows(layout).items()}}
    return blobs.put(results, listing)
