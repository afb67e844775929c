"""Two built runs of a corpus compared question by question, on each split, as the report compares them.

    python bench/paired_runs.py <run> <control> [--corpus kb] [--split dev --split test]

Chunk level, answerable questions: hit@5, recall@5, recall@5 of the conjugation questions and MRR@10,
each as the run's mean, the control's, and the paired difference with its 95 % bootstrap interval and
Fisher's randomization p (minirag.evaluation.significance.compare, the report's test), uncorrected.

What it leaves out: Holm's correction across a table (the report's), document-level figures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minirag.artifacts.integrity import load_records  # noqa: E402
from minirag.evaluation.evaluate import build_qrels  # noqa: E402
from minirag.evaluation.significance import compare  # noqa: E402
from minirag.evaluation.trec import load_run  # noqa: E402
from minirag.text.chunks import load_chunks  # noqa: E402


def per_question(ranking: list, relevant: set[str]) -> dict[str, float]:
    top = [cid for cid, _ in ranking[:10]]
    first = next((i + 1 for i, cid in enumerate(top) if cid in relevant), None)
    return {"hit@5": float(bool(relevant & set(top[:5]))), "recall@5": len(relevant & set(top[:5])) / max(len(relevant), 1),
            "MRR@10": 1 / first if first else 0.0}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run")
    ap.add_argument("control")
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--results", type=Path, default=Path("results"))
    ap.add_argument("--split", action="append", help="dev, test (default both)")
    a = ap.parse_args()
    root = a.results / a.corpus
    chunks = load_chunks(root / "chunks.jsonl", root / "docs.jsonl")
    questions = [q for q in load_records(root / "questions.jsonl", "questions") if q["answerable"]]
    runs = [load_run(root / "runs" / f"{r}.trec") for r in (a.run, a.control)]
    for split in a.split or ["dev", "test"]:
        qs = [q for q in questions if q.get("split") == split]
        qrels = build_qrels(qs, chunks)[0]
        scores = [[per_question(run.get(q["qid"], []), {c for c, g in qrels[q["qid"]].items() if g > 0}) for q in qs]
                  for run in runs]
        conj = [i for i, q in enumerate(qs) if "conjugation" in q.get("tags", [])]
        for label, metric, rows in (("hit@5", "hit@5", range(len(qs))), ("recall@5", "recall@5", range(len(qs))),
                                    ("conj recall@5", "recall@5", conj), ("MRR@10", "MRR@10", range(len(qs)))):
            x, y = ([s[i][metric] for i in rows] for s in scores)
            if not x:
                continue
            print(f"{split:5} {label:14} {a.run} {sum(x) / len(x):.3f}  {a.control} {sum(y) / len(y):.3f}  "
                  f"{compare(x, y).text()}  ({len(x)} questions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
