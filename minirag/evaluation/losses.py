"""Where each question's answer was lost: retrieval, the candidates, the selection or the reader.

For an answerable question, a reader and a run whose candidates were scored (candidates/<run>.jsonl), the
first stage that failed to carry the gold answer forward:

    retrieval    no relevant chunk in the run's top `depth` (the chunks candidates are read from), and
                 no candidate holds the answer
    candidates   a relevant chunk was there, but no cell or clause of the chunks holds the answer
    selection    a candidate holds it, but the selector's best answer does not
    reader       the selector's best answer holds it, but the reader's answer does not (it abstained
                 under its threshold, or wrote something else)
    answered     the reader's answer holds it

"Holds" is the evaluation's contains-answer (answers.py). `losses.csv` has a row per question, reader and
run; `shares` sums them per slice. A domain's question tags (minirag/domain.py: the grammar's `conjugation`)
are columns of their own, saying whether the question carries the tag (the report slices by each); a
corpus without a domain has none.

What it leaves out: unanswerable questions (the abstention figures cover them) and runs without
candidates (a corpus with no answer selector).
"""

from __future__ import annotations

from .answers import contains

STAGES = ("retrieval", "candidates", "selection", "reader", "answered")
HEAD = ["qid", "split", "lang", "difficulty"]  # then the domain's tags, then TAIL
TAIL = ["reader", "run", "stage", "gold", "answer", "selected"]


def columns(tags: tuple[str, ...] = ()) -> list[str]:
    """The columns of losses.csv: a column per tag of the corpus's domain between the question's and the run's."""
    return HEAD + list(tags) + TAIL


def loss_stage(gold: str, relevant_in_top: bool, record: dict, said: str, abstained: bool) -> str:
    """The stage that lost `gold` (module docstring); `record` is the question's candidates record."""
    if not abstained and contains(said, gold):
        return "answered"
    if not any(contains(k, gold) for k in record["keys"]):
        return "candidates" if relevant_in_top else "retrieval"
    best = record["answers"][0]["text"] if record["answers"] else ""
    return "reader" if contains(best, gold) else "selection"


def loss_rows(questions: list[dict], chunk_qrels: dict, runs: dict, candidates: dict[str, dict[str, dict]],
              answers: dict[str, dict[str, dict]], depth: int, tags: tuple[str, ...] = ()) -> list[dict]:
    """One row per answerable question, reader and run with candidates (`answers` keyed "<reader>/<run>"),
    saying for each of the domain's `tags` whether the question carries it."""
    rows = []
    for name, recs in answers.items():
        reader, run = name.split("/", 1)
        if run not in candidates:
            continue
        for q in (q for q in questions if q["answerable"] and q.get("answer")):
            top = runs[run].get(q["qid"], [])[:depth]
            relevant = chunk_qrels.get(q["qid"], {})
            record, said = candidates[run][q["qid"]], recs[q["qid"]]
            stage = loss_stage(q["answer"], any(relevant.get(c, 0) > 0 for c, _ in top), record, said["answer"],
                               said["abstained"])
            tagged = {t: t in q.get("tags", []) for t in tags}
            rows.append({"qid": q["qid"], "split": q.get("split") or "test", "lang": q.get("lang", ""),
                         "difficulty": q.get("difficulty", ""), **tagged, "reader": reader, "run": run, "stage": stage, "gold": q["answer"], "answer": said["answer"],
                         "selected": record["answers"][0]["text"] if record["answers"] else ""})
    return rows


def shares(rows: list[dict]) -> dict[str, float]:
    """The share of rows lost at each stage (and answered), in STAGES order."""
    return {s: round(sum(r["stage"] == s for r in rows) / len(rows), 4) if rows else 0.0 for s in STAGES}
