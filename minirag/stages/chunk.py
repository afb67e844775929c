"""chunk: docs.jsonl (+ tokenizer.json for token-bounded strategies) -> chunks.jsonl."""

from __future__ import annotations

from pathlib import Path

from ..io import read_jsonl, write_jsonl
from ..text.chunk import chunk_document
from .common import log, run_stage


def chunk(settings: dict, docs: Path, out: Path, tokenizer: Path | None = None) -> None:
    """Cut every document as chunk.strategy says; each chunk an exact slice of its document."""
    tok = None
    if tokenizer:
        from ..text.bpe import BPETokenizer
        tok = BPETokenizer.load(tokenizer)
    chunks = [c for d in read_jsonl(docs) for c in chunk_document(d, tokenizer=tok, **settings)]
    write_jsonl(out, (c.to_record() for c in chunks))
    log(f"chunk: {len(chunks)} chunks ({settings}) -> {out}")


if __name__ == "__main__":
    run_stage(chunk)
