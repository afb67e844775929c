"""retrieve: questions + the artifacts a retriever reads -> runs/<name>.trec (TREC run format)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

from ..artifacts.integrity import load_records
from ..evaluation.evaluate import build_qrels
from ..evaluation.trec import load_run, write_run
from ..query.sources import Sources, open_retriever
from ..rank.kinds import RetrieverKind
from ..text.chunks import load_chunks
from .common import Written, log, run_stage

# What a retrieve job's settings carry beside the retriever's own: the corpus's depth, a synthetic fit's
# feeding retrievers, and the part of the config a kind ranks with (config_reads, handed back by bind).
NOT_ITS_OWN = ("depth", "feeding", "readers", "reading")


def own_settings(settings: dict) -> dict:
    """A retrieve job's settings without what is not the retriever's own."""
    return {k: v for k, v in settings.items() if k not in NOT_ITS_OWN}


def synthetic_inputs(settings: dict, qs: list[dict], sources: Sources, upstream: list[str],
                     depth: int) -> tuple[list[dict], dict, str]:
    """The held-out synthetic questions `qs` (fit_questions.py) ranked by each of `upstream` live (built
    from `settings["feeding"]`, the settings of every retriever feeding the fusion, as `search` builds
    them), their qrels (the chunk each was made from) and what the receipt says they are."""
    feeding = settings["feeding"]
    kinds = SimpleNamespace(retrievers={r: RetrieverKind.from_spec(own_settings(feeding[r]), f"retrievers.{r}")
                                        for r in feeding},
                            config={"depth": depth})
    for r, kind in kinds.retrievers.items():
        kind.name = r
        kind.bind(feeding[r])  # a feedback run's reader settings (config_reads)
    inputs = []
    for r in upstream:
        live = open_retriever(sources, kinds, r)
        inputs.append({q["qid"]: live.search(q["query"], k=depth) for q in qs})
    families = sorted({q["family"].split(":")[0] for q in qs})
    return inputs, {q["qid"]: {q["chunk"]: 1} for q in qs}, \
        f"synthetic: {len(qs)} held-out questions (families {', '.join(families) or 'none'})"


def retrieve(settings: dict, name: str, questions: Path, docs: Path, chunks: Path, out: Path, runs: list[Path] = (),
             files: dict[str, Path] | None = None, fit_questions: Path | None = None) -> list[Path]:
    """Rank every question's chunks: a channel from its index, the others from their input runs;
    `files` are what the retriever's kind reads (vectors, an index, a model), by their file keys. A fitted
    fusion fits on the dev questions or, given `fit_questions` (the corpus has none), on those."""
    depth = settings["depth"]
    kind = RetrieverKind.from_spec(own_settings(settings), f"retrievers.{name}")
    kind.name = name
    kind.bind(settings)  # the config beyond its settings it ranks with (config_reads)
    qs = load_records(questions, "questions")
    items = load_chunks(chunks, docs)
    sources = Sources(items, files or {}, docs=docs, mmap=True)
    t0 = time.perf_counter()
    fitted = None
    if kind.family == "channel":
        channel = kind.open(sources)
        ranked = channel.search_batch([q["query"] for q in qs], depth)
        if hasattr(channel, "computations"):  # an approximate index: how much of the flat scan it made
            log(f"retrieve: {channel.computations / max(len(qs), 1):.0f} distance computations per query "
                f"({len(items)} rows)")
    else:
        inputs = [load_run(p) for p in runs]  # ordered as kind.upstream()
        if kind.family == "fusion" and kind.s.fit and fit_questions is not None:
            fit_inputs, qrels, fitted_on = synthetic_inputs(settings, load_records(fit_questions, "fit questions"),
                                                           sources, kind.upstream(), depth)
            fitted = kind.fit(fit_inputs, qrels, depth, fitted_on, kind.s.fit_questions.shrink)
        elif kind.family == "fusion" and kind.s.fit:
            dev = [q for q in qs if q.get("split") == "dev" and q.get("answerable", True)]
            fitted = kind.fit(inputs, build_qrels(dev, items)[0], depth)
        if fitted is not None:
            log(f"retrieve: {name}: weights {fitted['weights']} fitted on {fitted['fitted_on']}")
        ranked = [kind.combine(q["query"], [r.get(q["qid"], []) for r in inputs], sources, depth) for q in qs]
    write_run(out, {q["qid"]: r for q, r in zip(qs, ranked)}, name)
    log(f"retrieve: {name} ({kind.type}) {len(qs)} queries in {time.perf_counter() - t0:.2f}s -> {out}")
    return Written([out], fitted)


if __name__ == "__main__":
    run_stage(retrieve)
