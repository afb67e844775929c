"""retrieve: questions + the artifacts a retriever reads -> runs/<name>.trec (TREC run format)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

from ..artifacts.integrity import load_records
from ..evaluation.evaluate import build_qrels
from ..evaluation.trec import load_run, write_run
from ..pipeline.jobs import corpus_files, name_value, named, paths
from ..pipeline.stage import Out, Stage
from ..query.sources import Sources, open_retriever
from ..rank.kinds.base import RetrieveJob, job_kind
from ..text.chunks import load_chunks
from .common import Written, log, run_stage


def feeding_retrievers(settings: dict, sources: Sources, depth: int):
    """name -> a live retriever of one of the retrievers feeding a fusion fitted on synthetic questions,
    built from `settings["feeding"]` (the settings of every one of them) as `search` builds them;
    None when the job's settings carry none."""
    if "feeding" not in settings:
        return None
    feeding = settings["feeding"]
    corpus = SimpleNamespace(retrievers={r: job_kind(feeding[r], r) for r in feeding}, depth=depth)
    return lambda r: open_retriever(sources, corpus, r)


def retrieve(settings: dict, name: str, questions: Path, docs: Path, chunks: Path, out: Path, runs: list[Path] = (),
             files: dict[str, Path] | None = None, fit_questions: Path | None = None) -> list[Path]:
    """Rank every question's chunks as the retriever's kind does (`RetrieverKind.rank`): a channel from
    its index, the others from their input runs; `files` are what the kind reads (vectors, an index, a
    model), by their file keys. A fitted fusion fits on the dev questions or, given `fit_questions`
    (the corpus has none), on those."""
    depth = settings["depth"]
    kind = job_kind(settings, name)  # its settings, bound to the config beyond them it ranks with (config_reads)
    qs = load_records(questions, "questions")
    items = load_chunks(chunks, docs)
    sources = Sources(items, files or {}, docs=docs, mmap=True)
    t0 = time.perf_counter()
    job = RetrieveJob(qs, [load_run(p) for p in runs], sources, depth, log,  # runs ordered as kind.upstream()
                      judged=lambda judged: build_qrels(judged, items)[0],
                      feeding=feeding_retrievers(settings, sources, depth),
                      fit_questions=load_records(fit_questions, "fit questions") if fit_questions is not None else None)
    ranked, fitted = kind.rank(job)
    write_run(out, {q["qid"]: r for q, r in zip(qs, ranked)}, name)
    log(f"retrieve: {name} ({kind.type}) {len(qs)} queries in {time.perf_counter() - t0:.2f}s -> {out}")
    return Written([out], fitted)


def retrieve_settings(g, w) -> dict:
    """A retriever's settings (the embedder's or index's own travel in the artifact it reads) and the depth;
    for a fusion fitted on synthetic questions, the settings of every retriever feeding it too (the stage
    ranks those questions with them live) and how far it shrinks their best weights (its fit_questions'
    shrink: the only one of them the stage reads)."""
    name, retrievers = w["name"], g.corpus.retrievers
    synthetic = {"feeding": {r: {**retrievers[r].retrieve_settings(), **retrievers[r].config_reads(g.corpus)}
                             for r in g.feeding(name)},
                 "fit_questions": {"shrink": retrievers[name].s.fit_questions.shrink}} \
        if name in g.synthetic_fits() else {}
    return {**retrievers[name].retrieve_settings(), "depth": g.corpus.depth, **retrievers[name].config_reads(g.corpus),
            **synthetic}


def retrieve_reads(g, name: str) -> dict:
    """A job's input runs (in its kind's order) and the files its kind reads, by file key; a fusion fitted
    on synthetic questions also reads them and what its upstream retrievers rank them with."""
    kind = g.corpus.retrievers[name]
    runs = {"runs": paths(*(g.layout.run(r) for r in kind.upstream()))} if kind.upstream() else {}
    if name not in g.synthetic_fits():
        return {**runs, "files": kind.reads(g)}
    files = dict(kind.reads(g))
    for r in g.feeding(name):
        files.update(g.corpus.retrievers[r].serves(g))
    return {**runs, "fit_questions": str(g.layout.at("fit_questions", name=name)), "files": files}


STAGES = (
    Stage("retrieve", phase="rank", step=30, names=lambda g: named(g.corpus.retrievers), values=name_value,
          settings=retrieve_settings,
          reads=lambda g, w: {"questions": str(g.layout.questions), **corpus_files(g), **retrieve_reads(g, w["name"])},
          writes={"out": Out("run", at="runs/{name}.trec", check="run")}),
)


if __name__ == "__main__":
    run_stage(retrieve)
