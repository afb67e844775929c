"""evaluate: questions + every run and answer file -> eval/{metrics.json, per_query.csv, slices.csv, qrels.*.txt}."""

from __future__ import annotations

from pathlib import Path

from ..evaluation.evaluate import evaluate as score
from ..evaluation.evaluate import write_evaluation
from ..evaluation.trec import read_run
from ..io import read_jsonl
from ..text.chunk import load_chunks
from .common import log, run_stage


def evaluate(corpus: str, questions: Path, chunks: Path, runs: list[Path], out_dir: Path,
             answers: list[Path] = ()) -> None:
    """Score every run at chunk and document level, and every answer file, against the gold."""
    qs = read_jsonl(questions)
    ranked = {p.stem: read_run(p) for p in runs}
    answered = {p.stem: {r["qid"]: r for r in read_jsonl(p)} for p in answers}
    result = score(corpus, qs, load_chunks(chunks), ranked, answered)
    write_evaluation(out_dir, result, qs, list(ranked), list(answered))
    log(f"evaluate: {len(qs)} questions, {len(ranked)} runs -> {out_dir}")


if __name__ == "__main__":
    run_stage(evaluate)
