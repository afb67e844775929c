"""assertions: the corpus's assertions file + its runs -> eval/assertions.{md,json} (PASS/FAIL, targets)."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import load_records
from ..artifacts.io import atomic_write_text, write_json
from ..evaluation.assertion_file import load_assertions
from ..evaluation.assertions import check, format_markdown
from ..evaluation.evaluate import per_query_metrics
from ..evaluation.trec import load_run
from ..pipeline.jobs import scored
from ..pipeline.stage import Out, Stage
from ..text.chunks import load_chunks
from .common import log, run_stage


def check_runs(assertions: Path, questions: Path, docs: Path, chunks: Path, runs: list[Path], inputs_of: dict):
    """Every assertion and target of the file checked on the runs (what `minirag assert` prints too)."""
    qs = load_records(questions, "questions")
    items = load_chunks(chunks, docs)
    ranked = {Path(p).stem: load_run(p) for p in runs}
    for run in ranked.values():  # a run file has no lines for a query that matched nothing
        for q in qs:
            run.setdefault(q["qid"], [])
    return check(load_assertions(assertions), ranked, {c.id: c.doc_id for c in items}, qs,
                 per_query_metrics(qs, items, ranked), inputs_of)


def assertions(settings: dict, assertions: Path, questions: Path, docs: Path, chunks: Path, runs: list[Path],
               out: Path) -> list[Path]:
    """Record every result; with `strict`, a failing assertion (not a target) fails the stage."""
    results = check_runs(assertions, questions, docs, chunks, runs, settings["inputs_of"])
    atomic_write_text(out, format_markdown(results))
    write_json(Path(out).with_suffix(".json"), [r.to_record() for r in results])
    failed = [r for r in results if r.gate and not r.passed]
    log(f"assertions: {sum(r.passed for r in results if r.gate)} of {sum(r.gate for r in results)} passed")
    if failed and settings["strict"]:
        raise RuntimeError(f"{len(failed)} assertion(s) failed and the corpus is strict; first: {failed[0].text}")
    return [out, Path(out).with_suffix(".json")]


STAGES = (
    Stage("assertions", phase="evaluate", step=30, per=None, names=lambda g: [{}] * bool(g.corpus.assertions),
          settings=lambda g, w: {"strict": g.corpus.strict, "inputs_of": g.inputs_of()},
          reads=lambda g, w: {"assertions": g.corpus.assertions, **scored(g)},
          writes={"out": Out("assertions", at="eval", files=("assertions.md",)),
                  "table": Out("assertions", arg=None, at="eval", files=("assertions.json",))}),
)


if __name__ == "__main__":
    run_stage(assertions)
