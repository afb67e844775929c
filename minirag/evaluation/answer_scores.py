"""How each reader's answers score, question by question and over a set of questions.

    answer_rows_of(questions, answers, chunk_qrels, chunk_texts, best_spans)  -> {qid: row}
    answer_metrics(questions, answers, rows)                                  -> the figures metrics.json holds
    answer_table(questions, rows_by_reader_and_run)                           -> eval/answers.csv's rows

A row holds contains-answer, exact match and token F1 (answers.py), cites a relevant chunk, faithful,
abstains exactly when it should, and SQuAD's EM and F1 (squad.py) with abstention on and off.

What it leaves out: retrieval metrics and the files (evaluate.py).
"""

from __future__ import annotations

import statistics

from . import answers as scoring
from . import squad


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    idx = min(len(ordered) - 1, max(0, int(round(p / 100 * (len(ordered) - 1)))))
    return ordered[idx]


def split_of(q: dict) -> str:
    return q.get("split") or "test"


def best_spans(candidates: dict | None, name: str) -> dict[str, str]:
    """{qid: the selector's best answer} on the run of `name` ("<reader>/<run>"): what the reader says
    with abstention switched off ({} for a run without candidates)."""
    run = name.split("/", 1)[1]
    return {qid: (r["answers"][0]["text"] if r["answers"] else "") for qid, r in (candidates or {}).get(run, {}).items()}


def said_contains(q: dict, answer: str) -> bool:
    """The answer holds one of the question's accepted answers (its `answers`, else its `answer`)."""
    return any(scoring.contains(answer, g) for g in (q.get("answers") or [q["answer"]]))


def answer_rows_of(questions: list[dict], recs: dict, chunk_qrels: dict, texts: dict[str, str],
                   best: dict[str, str] | None = None) -> dict:
    """Per question: how the reader's answer scores (contains, EM, F1, cites, faithful, abstains when it
    should, SQuAD's EM and F1 with abstention on and off)."""
    rows, best = {}, best or {}
    for q in questions:
        a = recs[q["qid"]]
        gold = q["answer"] if q["answerable"] and q["answer"] else None
        relevant = chunk_qrels.get(q["qid"], {})  # unanswerable questions have no qrels
        said = a["abstained"] is False and gold is not None
        rows[q["qid"]] = {
            "contains": bool(said and said_contains(q, a["answer"])),
            "em": bool(said and scoring.exact_match(a["answer"], gold)),
            "f1": scoring.token_f1(a["answer"], gold) if said else 0.0,
            "cites": bool(q["answerable"] and any(relevant.get(c, 0) > 0 for c in a["citations"])),
            "faithful": bool(not a["abstained"] and scoring.faithful(a["answer"], [texts[c] for c in a["citations"]])),
            "in_prompt": any(relevant.get(c, 0) > 0 for c in a.get("prompt_chunks", [])),
            "abstain_ok": a["abstained"] == (not q["answerable"]),
            "answer": a["answer"], "abstained": a["abstained"], "citations": a["citations"],
            **squad.question_scores(q, a["answer"], a["abstained"], best.get(q["qid"]))}
    return rows


def answer_metrics(qs: list[dict], recs: dict, rows: dict) -> dict:
    answerable = [q for q in qs if q["answerable"]]
    given = [q for q in qs if not rows[q["qid"]]["abstained"]]
    reached = [q for q in answerable if rows[q["qid"]]["in_prompt"]]
    lat = [recs[q["qid"]]["latency_ms"] for q in qs]
    return {
        "reader": next(iter(recs.values()))["reader"] if recs else "",
        "contains_answer": mean(rows[q["qid"]]["contains"] for q in answerable),
        "exact_match": mean(rows[q["qid"]]["em"] for q in answerable),
        "f1": mean(rows[q["qid"]]["f1"] for q in answerable),
        "cites_relevant": mean(rows[q["qid"]]["cites"] for q in answerable),
        "faithful": mean(rows[q["qid"]]["faithful"] for q in given),
        "abstention_accuracy": mean(rows[q["qid"]]["abstain_ok"] for q in qs),
        "unanswerable_abstained": mean(rows[q["qid"]]["abstained"] for q in qs if not q["answerable"]),
        "relevant_in_prompt": len(reached),
        "contains_answer_when_in_prompt": mean(rows[q["qid"]]["contains"] for q in reached),
        "latency_ms_p50": statistics.median(lat) if lat else 0.0,
        "latency_ms_p95": percentile(lat, 95),
        "squad": squad.summary(qs, rows),
        "answer_words": squad.length_summary([rows[q["qid"]]["answer"] for q in qs if not rows[q["qid"]]["abstained"]])}


ANSWER_COLUMNS = ["qid", "split", "query", "gold", "reader", "retriever", "answer", "citations", "abstained",
                  "correct", "exact_match", "f1", "cites_relevant", "faithful", "relevant_in_prompt"]


def answer_table(questions: list[dict], answer_rows: dict) -> list[dict]:
    """eval/answers.csv: one row per question, reader and retriever, what was said and how it scored
    (`correct`: contains the gold answer, or abstains on an unanswerable question)."""
    rows = []
    for q in questions:
        for name, by_q in answer_rows.items():
            reader, run = name.split("/", 1)
            a = by_q[q["qid"]]
            rows.append({"qid": q["qid"], "split": split_of(q), "query": q["query"], "gold": q.get("answer") or "",
                         "reader": reader, "retriever": run, "answer": a["answer"],
                         "citations": " ".join(a["citations"]), "abstained": a["abstained"],
                         "correct": a["contains"] if q["answerable"] else a["abstain_ok"], "exact_match": a["em"],
                         "f1": round(a["f1"], 4), "cites_relevant": a["cites"], "faithful": a["faithful"],
                         "relevant_in_prompt": a["in_prompt"]})
    return rows
