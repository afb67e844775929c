"""retrieve: questions + the artifacts a retriever reads -> runs/<name>.trec (TREC run format)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

from ..artifacts.integrity import load_records
from ..evaluation.evaluate import build_qrels
from ..evaluation.trec import load_run, write_run
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


if __name__ == "__main__":
    run_stage(retrieve)
