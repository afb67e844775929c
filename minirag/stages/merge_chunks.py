"""merge_chunks: shards/<i>/chunks.jsonl (every shard) + docs.jsonl -> chunks.jsonl, as `chunk` writes it.

The chunk stage of a sharded corpus: its receipt is `chunk`'s, so everything downstream
reads chunks.jsonl as it would after an unsharded build, and it is that file byte for byte
(documents in docs.jsonl order, each document's chunks in order; shards.py). Streamed: one
chunk per shard and one document are held at a time.
"""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import iter_records
from ..artifacts.io import write_jsonl
from ..pipeline.jobs import docs, one, paths
from ..pipeline.shards import merge_by_document
from ..pipeline.stage import Out, Stage
from ..text.chunks import DocumentTexts, check_slice, iter_chunks
from .common import log, run_stage


def merge_chunks(settings: dict, docs: Path, shards: list[Path], out: Path) -> list[Path]:
    """Put every shard's chunks in the unsharded order, each checked to be the slice of docs.jsonl it claims."""
    texts = DocumentTexts(docs)
    order = (d["doc_id"] for d in iter_records(docs, "documents"))
    merged = merge_by_document([iter_chunks(path) for path in shards], order, lambda c: c.doc_id)

    def checked():
        for line, c in enumerate(merged, start=1):
            check_slice(c, texts.get(c.doc_id), out, line)
            yield c.to_record()

    n = write_jsonl(out, checked())
    log(f"merge_chunks: {n} chunks from {len(shards)} shards -> {out}")
    return [out]


STAGES = (
    Stage("merge_chunks", phase="chunks", step=20, job="chunk", per=None, corpora="sharded",
          names=lambda g: one(bool(g.shard_ids())), settings=lambda g, w: g.corpus.chunk.used(),
          reads=lambda g, w: {**docs(g), "shards": paths(*(g.layout.shard_chunks(i) for i in g.shard_ids()))},
          writes={"out": Out("chunks")}),
)


if __name__ == "__main__":
    run_stage(merge_chunks)
