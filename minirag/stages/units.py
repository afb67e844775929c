"""units: docs.jsonl + chunks.jsonl -> units.jsonl, each chunk's table rows, list items and sentences."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import load_records
from ..artifacts.io import write_jsonl
from ..pipeline.jobs import corpus_files, one
from ..pipeline.stage import Out, Stage
from ..text.chunks import check_slices, load_chunks
from ..text.units import chunk_units
from .common import log, run_stage


def units(docs: Path, chunks: Path, out: Path) -> list[Path]:
    """Cut every chunk into units that small-to-big retrievers score; each an exact slice of its document."""
    documents = {d["doc_id"]: d for d in load_records(docs, "documents")}
    found = chunk_units(load_chunks(chunks, docs), documents)
    check_slices(found, {k: d["text"] for k, d in documents.items()}, out)
    write_jsonl(out, (u.to_record() for u in found))
    log(f"units: {len(found)} units -> {out}")
    return [out]


def uses_units(g) -> bool:
    return any(g.over_units(i) for i in g.used_indexes())


STAGES = (
    Stage("units", phase="chunks", step=30, per=None, names=lambda g: one(uses_units(g)),
          reads=lambda g, w: corpus_files(g), writes={"out": Out("units", at="units.jsonl", check="records")}),
)


if __name__ == "__main__":
    run_stage(units)
