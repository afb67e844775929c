"""The development suite's answers (bench/suite/): F1 and abstention per corpus, reader, run and split.

    .venv/bin/python bench/suite_eval.py [--build] [--split dev|test|all] [--reader extractive] [--json]

Reads each corpus's built answers (results/<corpus>/answers/<reader>/<run>.jsonl) and its curated
questions (every accepted answer), and scores them as SQuAD's official script does (F1 over
normalised tokens, best over the accepted answers; an unanswerable question scores 1 exactly when the
reader abstains): overall F1, answerable F1, the share of answerable questions abstained on and the
share of not-answerable ones abstained on, beside the answerable F1 of the reader's best span had it
never abstained (the candidates' first answer). `--build` builds the five reports first
(`snakemake -c2 results/suite-<name>.md --configfile bench/suite/<name>.yaml`).

Choices are made on the dev split; the test split is read once, at the end, and quoted in
bench/README.md with the command that printed it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from minirag.evaluation.squad import accepted, f1  # noqa: E402

CORPORA = ("grinder", "leave-policy", "recipes", "router", "gym")  # the last two: written later, a fresh held-out set


def build(name: str) -> None:
    snakemake = Path(sys.executable).with_name("snakemake")
    subprocess.run([str(snakemake), "-c2", f"results/suite-{name}.md", "--configfile", f"bench/suite/{name}.yaml"],
                   cwd=ROOT, check=True)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def best_spans(path: Path) -> dict[str, str]:
    """qid -> the selector's first answer (what the reader says when it answers), "" when it has none."""
    if not path.is_file():
        return {}
    return {r["qid"]: (r["answers"][0]["text"] if r["answers"] else "") for r in read_jsonl(path)}


def scores(questions: list[dict], answers: dict[str, dict], spans: dict[str, str]) -> dict:
    """F1 and abstention of one answers file over `questions`."""
    answerable = [q for q in questions if q["answerable"]]
    other = [q for q in questions if not q["answerable"]]

    def said(q: dict) -> str:
        a = answers[q["qid"]]
        return "" if a["abstained"] else a["answer"]

    def mean(values: list[float]) -> float:
        return round(sum(values) / len(values), 3) if values else 0.0
    return {"n": len(questions), "answerable": len(answerable),
            "f1": mean([f1(said(q), accepted(q)) for q in questions]),
            "answerable_f1": mean([f1(said(q), accepted(q)) for q in answerable]),
            "answerable_abstained": mean([float(answers[q["qid"]]["abstained"]) for q in answerable]),
            "unanswerable_abstained": mean([float(answers[q["qid"]]["abstained"]) for q in other]),
            "answerable_f1_never_abstaining": mean([f1(spans.get(q["qid"], said(q)), accepted(q)) for q in answerable])}


def evaluate(name: str, reader: str, split: str, prefix: str = "") -> list[dict]:
    results = ROOT / "results" / (prefix + name)
    questions = [q for q in read_jsonl(results / "questions.jsonl") if split == "all" or q.get("split", "test") == split]
    rows = []
    for path in sorted((results / "answers" / reader).glob("*.jsonl")):
        answers = {a["qid"]: a for a in read_jsonl(path)}
        spans = best_spans(results / "candidates" / path.name)
        rows.append({"corpus": name, "reader": reader, "run": path.stem, "split": split,
                     **scores(questions, answers, spans)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="store_true", help="build the reports first")
    ap.add_argument("--split", default="dev", choices=("dev", "test", "all"))
    ap.add_argument("--reader", default="extractive")
    ap.add_argument("--corpus", action="append", choices=CORPORA, help="only these corpora (repeatable)")
    ap.add_argument("--prefix", default="", help="read results/<prefix><corpus>/ (a variant built under another name)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    names = args.corpus or list(CORPORA)
    if args.build:
        for name in names:
            build(name)
    rows = [r for name in names for r in evaluate(name, args.reader, args.split, args.prefix)]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    cols = ("corpus", "run", "n", "f1", "answerable_f1", "answerable_abstained", "unanswerable_abstained",
            "answerable_f1_never_abstaining")
    print(f"split: {args.split}, reader: {args.reader}")
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(str(r[c]) for c in cols))


if __name__ == "__main__":
    main()
