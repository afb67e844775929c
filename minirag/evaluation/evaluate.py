"""Evaluate runs and answers against gold that does not depend on chunking.

Gold is per question: documents and, for a markdown corpus, an evidence span (the
character range where the evidence string occurs in the document). Relevance is then
derived for whatever chunking the graph used:
- a document is relevant when it is a gold document;
- a chunk is relevant when it comes from a gold document and its [char_start, char_end)
  overlaps the evidence span (any chunk of a gold document when there is no span, as in
  BEIR, whose judgements are per document).
A chunk run becomes a document run by keeping each document at its best chunk's rank.

Retrieval metrics (metrics.py) are averaged over answerable questions, at chunk and at
document level; each reader's answers on each run (answers.py) are scored on: contains
the gold answer, exact match and token F1 against it, cites a relevant chunk, is faithful
to what it cites, abstains exactly when the question is unanswerable; and contains the
answer on the questions where a relevant chunk reached the prompt (what retrieval allowed).

What it leaves out: the report's prose and tables (report.py).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Sequence

from ..artifacts.io import atomic_write_text, write_json
from ..text.chunks import Chunk
from .answer_scores import (
    ANSWER_COLUMNS,
    answer_metrics,
    answer_rows_of,
    answer_table,
    best_spans,
    mean,
    split_of,
)
from .losses import columns as loss_columns
from .losses import loss_rows, shares
from .metrics import retrieval_metrics
from .trec import Ranking, write_qrels

METRIC_KEYS = ("hit@1", "hit@3", "hit@5", "mrr", "recall@5", "ndcg@10")


def overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    return a0 < b1 and b0 < a1


def build_qrels(questions: list[dict], chunks: Sequence[Chunk]) -> tuple[dict, dict]:
    """(chunk qrels, doc qrels) as {qid: {id: grade}} for the answerable questions."""
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append(c)
    chunk_qrels: dict[str, dict[str, int]] = {}
    doc_qrels: dict[str, dict[str, int]] = {}
    for q in questions:
        if not q["answerable"]:
            continue
        cq, dq = {}, {}
        for g in q["gold"]:
            grade = g.get("grade", 1)
            dq[g["doc_id"]] = max(dq.get(g["doc_id"], 0), grade)
            for c in by_doc.get(g["doc_id"], []):
                if g.get("char_start") is None or overlaps(
                        c.metadata["char_start"], c.metadata["char_end"], g["char_start"], g["char_end"]):
                    cq[c.id] = max(cq.get(c.id, 0), grade)
        chunk_qrels[q["qid"]] = cq
        doc_qrels[q["qid"]] = dq
    return chunk_qrels, doc_qrels


def doc_ranking(ranking: Ranking, chunk_doc: dict[str, str]) -> list[str]:
    """Documents in the order of their best chunk."""
    seen: dict[str, None] = {}
    for cid, _ in ranking:
        seen.setdefault(chunk_doc[cid], None)
    return list(seen)


def per_query_metrics(questions: list[dict], chunks: Sequence[Chunk],
                      runs: dict[str, dict[str, Ranking]]) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
    """{retriever: {"chunk" | "doc": {qid: retrieval_metrics}}} over the answerable questions."""
    chunk_qrels, doc_qrels = build_qrels(questions, chunks)
    doc_of = {c.id: c.doc_id for c in chunks}
    out: dict = {}
    for name, run in runs.items():
        out[name] = {"chunk": {}, "doc": {}}
        for qid in chunk_qrels:
            ranking = run.get(qid, [])
            out[name]["chunk"][qid] = retrieval_metrics([c for c, _ in ranking], chunk_qrels[qid])
            out[name]["doc"][qid] = retrieval_metrics(doc_ranking(ranking, doc_of), doc_qrels[qid])
    return out


def rank_of(reciprocal_rank: float) -> int | None:
    """The first relevant rank, read back from its reciprocal (1/i round-trips exactly); None if none."""
    return round(1 / reciprocal_rank) if reciprocal_rank else None


def splits_of(questions: list[dict]) -> list[str]:
    """The splits the figures are given for: ["test"] alone, or "test", "dev" and "all" when
    some questions are marked dev (choices are made on dev; test is what is reported)."""
    return ["test", "dev", "all"] if any(split_of(q) == "dev" for q in questions) else ["test"]


def in_split(q: dict, split: str) -> bool:
    return split == "all" or split_of(q) == split


def split_metrics(qs: list[dict], scores: dict, answers: dict, answer_rows: dict, losses: list[dict]) -> dict:
    """questions, answerable, retrieval, answers and tags over the questions `qs`; each reader's answers on
    a run with candidates also say where they were lost (`lost_at`, losses.py)."""
    answerable = [q for q in qs if q["answerable"]]
    ids = {q["qid"] for q in qs}
    retrieval = {name: {level: {k: mean(lv[q["qid"]][k] for q in answerable) for k in METRIC_KEYS + ("recall@100",)}
                        for level, lv in by_level.items()} for name, by_level in scores.items()}
    # answers are keyed "<reader>/<retriever>"; `answers` keeps the first reader's per retriever
    # (the key scripts read), `readers` every reader's
    readers: dict[str, dict] = {}
    for name, recs in answers.items():
        reader, run = name.split("/", 1)
        readers.setdefault(reader, {})[run] = answer_metrics(qs, recs, answer_rows[name])
        mine = [r for r in losses if r["reader"] == reader and r["run"] == run and r["qid"] in ids]
        if mine:
            readers[reader][run]["lost_at"] = shares(mine)
    first = next(iter(readers.values()), {})
    tags = sorted({t for q in answerable for t in q.get("tags", [])})
    tag_metrics = {name: {t: {level: {k: mean(scores[name][level][q["qid"]][k] for q in answerable if t in q.get("tags", []))
                                      for k in METRIC_KEYS} for level in ("chunk", "doc")} for t in tags}
                   for name in scores}
    return {"questions": len(qs), "answerable": len(answerable), "retrieval": retrieval, "answers": first,
            "readers": readers, "tags": tag_metrics}


def evaluate(corpus: str, questions: list[dict], chunks: Sequence[Chunk], runs: dict[str, dict[str, Ranking]],
             answers: dict[str, dict[str, dict]], candidates: dict[str, dict[str, dict]] | None = None,
             tags: tuple[str, ...] = ()) -> dict:
    """Everything the evaluate stage writes, as Python objects (see write_evaluation).

    metrics.json's `questions`, `answerable`, `retrieval`, `answers` and `tags` are the test
    split's (every question, where none is marked dev): the figures to quote. With a dev
    split, `splits` holds the same keys for "dev" and "all". `tags`: the question tags of the corpus's domain,
    each a column of the losses (the grammar's: which questions are about a conjugation)."""
    chunk_qrels, doc_qrels = build_qrels(questions, chunks)
    per_query: dict[str, dict] = {q["qid"]: {} for q in questions}
    scores = per_query_metrics(questions, chunks, runs)
    for name, by_level in scores.items():
        for qid, m in by_level["chunk"].items():
            per_query[qid][name] = rank_of(m["mrr"])
            per_query[qid][name + "_doc"] = rank_of(by_level["doc"][qid]["mrr"])
    texts = {c.id: c.text for c in chunks}
    answer_rows = {name: answer_rows_of(questions, recs, chunk_qrels, texts, best_spans(candidates, name))
                   for name, recs in answers.items()}
    depth = max((r["depth"] for recs in (candidates or {}).values() for r in recs.values()), default=0)
    losses = loss_rows(questions, chunk_qrels, runs, candidates or {}, answers, depth, tags)
    splits = splits_of(questions)
    by_split = {s: split_metrics([q for q in questions if in_split(q, s)], scores, answers, answer_rows, losses)
                for s in splits}
    metrics = {"corpus": corpus, "split": "test", **by_split["test"]}
    if len(splits) > 1:
        metrics["splits"] = {s: by_split[s] for s in splits if s != "test"}
    return {"metrics": metrics, "per_query": per_query, "scores": scores, "slices": slice_rows(questions, scores, splits),
            "answer_rows": answer_rows, "chunk_qrels": chunk_qrels, "doc_qrels": doc_qrels, "losses": losses,
            "loss_columns": loss_columns(tags)}


def slice_rows(questions: list[dict], scores: dict, splits: Sequence[str] = ("test",)) -> list[dict]:
    """Mean metrics per split, retriever, level, language and difficulty ('all' = any)."""
    rows = []
    for split in splits:
        answerable = [q for q in questions if q["answerable"] and in_split(q, split)]
        langs = ["all"] + sorted({q["lang"] for q in answerable})
        diffs = ["all"] + sorted({q["difficulty"] for q in answerable})
        for name, by_level in scores.items():
            for level in ("chunk", "doc"):
                for lang in langs:
                    for diff in diffs:
                        qs = [q for q in answerable if lang in ("all", q["lang"]) and diff in ("all", q["difficulty"])]
                        if not qs:
                            continue
                        row = {"split": split, "retriever": name, "level": level, "lang": lang, "difficulty": diff,
                               "n": len(qs)}
                        row.update({k: round(mean(by_level[level][q["qid"]][k] for q in qs), 6) for k in METRIC_KEYS})
                        rows.append(row)
    return rows


def metric_rows(questions: list[dict], scores: dict) -> list[dict]:
    """eval/per_query_metrics.csv: every answerable question's metrics per run and level, what the
    report's paired tests and the build history compare question by question."""
    return [{"qid": q["qid"], "split": split_of(q), "retriever": name, "level": level,
             **{k: round(by_level[level][q["qid"]][k], 6) for k in METRIC_KEYS}}
            for name, by_level in scores.items() for level in ("chunk", "doc") for q in questions if q["answerable"]]


def to_csv(rows: list[dict], columns: list[str]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({c: ("" if r.get(c) is None else r.get(c)) for c in columns})
    return buf.getvalue()


def write_evaluation(out_dir: str | Path, result: dict, questions: list[dict], runs: list[str], answers: list[str]) -> None:
    out_dir = Path(out_dir)
    write_json(out_dir / "metrics.json", result["metrics"])
    columns = ["qid", "split", "lang", "difficulty", "answerable"]
    for r in runs:
        columns += [r, r + "_doc"]
    for a in answers:
        columns += [a + "_answer_ok"]
    rows = []
    for q in questions:
        row = {"qid": q["qid"], "split": split_of(q), "lang": q["lang"], "difficulty": q["difficulty"],
               "answerable": q["answerable"],
               **result["per_query"][q["qid"]]}
        for a in answers:
            ar = result["answer_rows"][a][q["qid"]]
            row[a + "_answer_ok"] = ar["contains"] if q["answerable"] else ar["abstain_ok"]
        rows.append(row)
    atomic_write_text(out_dir / "per_query.csv", to_csv(rows, columns))
    atomic_write_text(out_dir / "per_query_metrics.csv", to_csv(metric_rows(questions, result["scores"]),
                                                                ["qid", "split", "retriever", "level", *METRIC_KEYS]))
    atomic_write_text(out_dir / "slices.csv", to_csv(result["slices"], ["split", "retriever", "level", "lang", "difficulty",
                                                                        "n", *METRIC_KEYS]))
    write_qrels(out_dir / "qrels.chunk.txt", result["chunk_qrels"])
    write_qrels(out_dir / "qrels.doc.txt", result["doc_qrels"])
    atomic_write_text(out_dir / "answers.csv", to_csv(answer_table(questions, result["answer_rows"]), ANSWER_COLUMNS))
    atomic_write_text(out_dir / "losses.csv", to_csv(result["losses"], result["loss_columns"]))
