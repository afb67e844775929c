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
from ..rank.kinds.base import RetrieveJob, job_kind, kinds_code
from ..text.chunks import load_chunks
from .common import Written, log, run_stage


def live_retrievers(sources: Sources, depth: int):
    """(retrievers' job settings by name, name) -> that retriever live, as `search` builds it: what a kind
    ranks questions of its own with (RetrieveJob.live)."""
    def live(settings, name):
        corpus = SimpleNamespace(retrievers={r: job_kind(settings[r], r) for r in settings}, depth=depth)
        return open_retriever(sources, corpus, name)
    return live


def retrieve(settings: dict, name: str, questions: Path, docs: Path, chunks: Path, out: Path, runs: list[Path] = (),
             files: dict[str, Path] | None = None) -> list[Path]:
    """Rank every question's chunks as the retriever's kind does (`RetrieverKind.rank`): a channel from
    its index, the others from their input runs; `files` are what the kind reads (vectors, an index, a
    model, a fitted fusion's synthetic questions), by their file keys."""
    depth = settings["depth"]
    kind = job_kind(settings, name)  # its settings, bound to the config beyond them it ranks with (config_reads)
    qs = load_records(questions, "questions")
    items = load_chunks(chunks, docs)
    sources = Sources(items, files or {}, docs=docs, mmap=True)
    t0 = time.perf_counter()
    job = RetrieveJob(qs, [load_run(p) for p in runs], sources, depth, log,  # runs ordered as kind.upstream()
                      judged=lambda judged: build_qrels(judged, items)[0],
                      live=live_retrievers(sources, depth))
    ranked, fitted = kind.rank(job)
    write_run(out, {q["qid"]: r for q, r in zip(qs, ranked)}, name)
    log(f"retrieve: {name} ({kind.type}) {len(qs)} queries in {time.perf_counter() - t0:.2f}s -> {out}")
    return Written([out], fitted)


def retrieve_settings(g, w) -> dict:
    """A retriever's settings (the embedder's or index's own travel in the artifact it reads), the depth and
    the part of the config beyond them it ranks with (`config_reads`)."""
    kind = g.corpus.retrievers[w["name"]]
    return {**kind.retrieve_settings(), "depth": g.corpus.depth, **kind.config_reads(g.corpus)}


def retrieve_reads(g, name: str) -> dict:
    """A job's input runs (in its kind's order) and the files its kind reads, by file key."""
    kind = g.corpus.retrievers[name]
    runs = {"runs": paths(*(g.layout.run(r) for r in kind.upstream()))} if kind.upstream() else {}
    return {**runs, "files": kind.reads(g)}


def retrieve_code(g, name: str) -> dict:
    """The kind modules a job runs (rank/kinds/ imports a kind's module when asked for it): its kind's, and
    those of the retrievers upstream of it, which a fusion fitting its weights ranks with live."""
    return kinds_code([g.corpus.retrievers[r] for r in (name, *g.corpus.feeding(name))])


STAGES = (
    Stage("retrieve", phase="rank", step=30, names=lambda g: named(g.corpus.retrievers), values=name_value,
          settings=retrieve_settings,
          reads=lambda g, w: {"questions": str(g.layout.questions), **corpus_files(g), **retrieve_reads(g, w["name"])},
          writes={"out": Out("run", at="runs/{name}.trec", check="run")},
          job_code=lambda g, w: retrieve_code(g, w["name"])),
)


if __name__ == "__main__":
    run_stage(retrieve)
