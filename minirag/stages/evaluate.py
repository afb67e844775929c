"""evaluate: questions + every run, candidates and answer file -> eval/{metrics.json, per_query.csv, slices.csv,
qrels.*.txt, answers.csv, losses.csv}."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.candidates import load_candidates
from ..artifacts.integrity import load_records
from ..domain import of_corpus
from ..evaluation.evaluate import evaluate as score
from ..evaluation.evaluate import write_evaluation
from ..evaluation.trec import load_run
from ..pipeline.jobs import paths, scored
from ..pipeline.stage import Out, Stage
from ..text.chunks import load_chunks
from .common import log, run_stage

EVAL_FILES = ("metrics.json", "per_query.csv", "slices.csv", "qrels.chunk.txt", "qrels.doc.txt", "answers.csv",
              "per_query_metrics.csv", "losses.csv")  # what it writes in eval/


def evaluate(settings: dict, corpus: str, questions: Path, docs: Path, chunks: Path, runs: list[Path], out_dir: Path,
             answers: list[Path] = (), candidates: list[Path] = ()) -> list[Path]:
    """Score every run at chunk and document level, and every answer file, against the gold; with the
    runs' scored candidates, say where each answer was lost (evaluation/losses.py). `settings`: the
    corpus's domain (its question tags are columns of the losses: the grammar's, which are about a conjugation)."""
    qs = load_records(questions, "questions")
    ranked = {p.stem: load_run(p) for p in runs}
    # answers/<reader>/<retriever>.jsonl -> "<reader>/<retriever>"
    answered = {f"{p.parent.name}/{p.stem}": {r["qid"]: r for r in load_records(p, "answers")} for p in answers}
    scored = {p.stem: load_candidates(p) for p in candidates}
    result = score(corpus, qs, load_chunks(chunks, docs), ranked, answered, scored,
                   d.tags if (d := of_corpus(settings["domain"])) else ())
    write_evaluation(out_dir, result, qs, list(ranked), list(answered))
    log(f"evaluate: {len(qs)} questions, {len(ranked)} runs -> {out_dir}")
    return [Path(out_dir) / name for name in EVAL_FILES]


STAGES = (
    Stage("evaluate", phase="evaluate", step=10, per=None, names=lambda g: [{}],
          values=lambda g, w: {"corpus": g.layout.root.name}, settings=lambda g, w: {"domain": g.corpus.domain},
          reads=lambda g, w: {**scored(g), "answers": g.answers(),
                              "candidates": paths(*(g.layout.candidates(r) for r in g.selected_runs()))},
          writes={"out_dir": Out("eval", arg="folder", at="eval", files=EVAL_FILES)}),
)


if __name__ == "__main__":
    run_stage(evaluate)
