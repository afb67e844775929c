"""merge_chunks: shards/<i>/chunks.jsonl (every shard) + docs.jsonl -> chunks.jsonl, as `chunk` writes it.

The chunk stage of a sharded corpus: its receipt is `chunk`'s, so everything downstream
reads chunks.jsonl as it would after an unsharded build, and it is that file byte for byte
(documents in docs.jsonl order, each document's chunks in order; shards.py).
"""

from __future__ import annotations

from pathlib import Path

from ..integrity import load_records
from ..io import write_jsonl
from ..shards import merge_by_document
from ..text.chunks import Chunk, check_slices, load_chunks
from .common import log, run_stage


def merge_chunks(settings: dict, docs: Path, shards: list[Path], out: Path) -> list[Path]:
    """Put every shard's chunks in the unsharded order, each checked to be the slice of docs.jsonl it claims."""
    documents = load_records(docs, "documents")
    parts = [load_chunks(path) for path in shards]
    chunks: list[Chunk] = merge_by_document(parts, [d["doc_id"] for d in documents], lambda c: c.doc_id)
    check_slices(chunks, {d["doc_id"]: d["text"] for d in documents}, out)
    write_jsonl(out, (c.to_record() for c in chunks))
    log(f"merge_chunks: {len(chunks)} chunks from {len(shards)} shards -> {out}")
    return [out]


if __name__ == "__main__":
    run_stage(merge_chunks)
