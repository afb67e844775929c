"""retrieve: questions + the artifacts a retriever reads -> runs/<name>.trec (TREC run format)."""

from __future__ import annotations

import time
from pathlib import Path

from ..artifacts.integrity import load_records
from ..evaluation.evaluate import build_qrels
from ..evaluation.trec import load_run, write_run
from ..query.sources import Sources
from ..rank.kinds import RetrieverKind
from ..text.chunks import load_chunks
from .common import Written, log, run_stage


def retrieve(settings: dict, name: str, questions: Path, docs: Path, chunks: Path, out: Path, runs: list[Path] = (),
             files: dict[str, Path] | None = None) -> list[Path]:
    """Rank every question's chunks: a channel from its index, the others from their input runs;
    `files` are what the retriever's kind reads (vectors, an index, a model), by their file keys."""
    depth = settings["depth"]
    kind = RetrieverKind.from_spec({k: v for k, v in settings.items() if k != "depth"}, f"retrievers.{name}")
    kind.name = name
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
        if kind.family == "fusion" and kind.s.fit:
            dev = [q for q in qs if q.get("split") == "dev" and q.get("answerable", True)]
            fitted = kind.fit(inputs, build_qrels(dev, items)[0], depth)
            log(f"retrieve: {name}: weights {fitted['weights']} fitted on {fitted['fitted_on']}")
        ranked = [kind.combine(q["query"], [r.get(q["qid"], []) for r in inputs], sources, depth) for q in qs]
    write_run(out, {q["qid"]: r for q, r in zip(qs, ranked)}, name)
    log(f"retrieve: {name} ({kind.type}) {len(qs)} queries in {time.perf_counter() - t0:.2f}s -> {out}")
    return Written([out], fitted)


if __name__ == "__main__":
    run_stage(retrieve)
