"""chunk: docs.jsonl (+ tokenizer.json for token-bounded strategies) -> chunks.jsonl."""

from __future__ import annotations

from pathlib import Path

from ..integrity import load_records
from ..io import write_jsonl
from ..text.chunk import chunk_document
from ..text.chunks import check_slices
from .common import log, run_stage


def chunk(settings: dict, docs: Path, out: Path, tokenizer: Path | None = None) -> list[Path]:
    """Cut every document as chunk.strategy says; each chunk checked to be an exact slice of its document."""
    tok = None
    if tokenizer:
        from ..text.bpe import load_tokenizer
        tok = load_tokenizer(tokenizer)
    documents = load_records(docs, "documents")
    chunks = [c for d in documents for c in chunk_document(d, tokenizer=tok, **settings)]
    check_slices(chunks, {d["doc_id"]: d["text"] for d in documents}, out)
    write_jsonl(out, (c.to_record() for c in chunks))
    log(f"chunk: {len(chunks)} chunks ({settings}) -> {out}")
    return [out]


if __name__ == "__main__":
    run_stage(chunk)
