"""The KB's questions answered by a rule, a meaning or a phrase: how often the served reader gets them right.

`bench/kb_rules/questions.jsonl` holds 64 learner questions about the KB (52 answerable, 12 about what it does
not cover), written from kb/docs/ by someone who had not seen the reader: "why do you say 'I love music' with no
'the'?", "is 'I have seen him yesterday' correct english", "does embarazada mean embarrassed??". Each lists
short phrases copied from the sentence of the KB that answers it; an answer is right when it holds one of them
as whole words (`contains`, the KB report's measure). The split is by a hash of the qid (dev or test), fixed
before any answer was read.

Opens the built KB once (`BuiltCorpus`, as `python -m minirag serve` does) and answers each question with the
served retriever and a reader (default: the answer selector, `extractive`).

    .venv/bin/python bench/kb_rules.py [--split dev|test|all] [--reader extractive] [--show] [--json]

Build the KB first: make report
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from minirag.artifacts.io import read_jsonl  # noqa: E402
from minirag.evaluation.answers import contains  # noqa: E402
from minirag.query.built_corpus import BuiltCorpus  # noqa: E402

QUESTIONS = Path(__file__).parent / "kb_rules" / "questions.jsonl"


def scored(built: BuiltCorpus, questions: list[dict], reader: str) -> list[dict]:
    """Each question with the reader's answer and whether it is right (answerable: it holds a key phrase;
    not answerable: it abstains)."""
    rows = []
    for q in questions:
        a = built.answer(q["query"], None, reader)
        right = (not a["abstained"] and any(contains(a["answer"], k) for k in q["answers"])) if q["answerable"] \
            else a["abstained"]
        rows.append({"qid": q["qid"], "split": q["split"], "kind": q["kind"], "answerable": q["answerable"],
                     "query": q["query"], "answer": a["answer"], "abstained": a["abstained"], "right": right})
    return rows


def summary(rows: list[dict]) -> list[dict]:
    """Per split: answerable right, not-answerable abstained, answerable abstained; per kind of question."""
    groups = defaultdict(list)
    for r in rows:
        groups[(r["split"], "all")].append(r)
        groups[(r["split"], r["kind"])].append(r)
    out = []
    for (split, kind), rs in sorted(groups.items()):
        ans = [r for r in rs if r["answerable"]]
        un = [r for r in rs if not r["answerable"]]
        out.append({"split": split, "kind": kind, "answerable": len(ans),
                    "right": round(sum(r["right"] for r in ans) / len(ans), 3) if ans else None,
                    "answerable_abstained": round(sum(r["abstained"] for r in ans) / len(ans), 3) if ans else None,
                    "unanswerable": len(un),
                    "unanswerable_abstained": round(sum(r["abstained"] for r in un) / len(un), 3) if un else None})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", default="dev", choices=("dev", "test", "all"))
    ap.add_argument("--reader", default="extractive")
    ap.add_argument("--questions", default=str(QUESTIONS))
    ap.add_argument("--configfile", default="workflow/config.yaml")
    ap.add_argument("--results", default="results")
    ap.add_argument("--show", action="store_true", help="print every question and its answer")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    questions = [q for q in read_jsonl(a.questions) if a.split in ("all", q["split"])]
    built = BuiltCorpus.open(a.configfile, "kb", a.results).load_all()
    rows = scored(built, questions, a.reader)
    table = summary(rows)
    if a.json:
        print(json.dumps({"reader": a.reader, "split": a.split, "summary": table,
                          **({"questions": rows} if a.show else {})}, indent=1, ensure_ascii=False))
        return
    if a.show:
        for r in rows:
            print(f"{'OK' if r['right'] else '--'} {r['qid']} {r['query'][:70]!r} -> {r['answer'][:90]!r}")
    print(f"{'split':6s} {'kind':12s} {'n':>3s} {'right':>6s} {'abst.':>6s} {'n un.':>6s} {'abst. un.':>9s}")
    for t in table:
        f = (lambda v: "-" if v is None else f"{v:.3f}")
        print(f"{t['split']:6s} {t['kind']:12s} {t['answerable']:3d} {f(t['right']):>6s} "
              f"{f(t['answerable_abstained']):>6s} {t['unanswerable']:6d} {f(t['unanswerable_abstained']):>9s}")


if __name__ == "__main__":
    main()
