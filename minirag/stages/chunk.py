"""chunk: docs.jsonl (+ tokenizer.json for token-bounded strategies) -> chunks.jsonl.

Streamed document by document: a corpus of millions of documents is cut in the memory of one."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import iter_records
from ..artifacts.io import write_jsonl
from ..text.chunker import document_chunker
from ..text.chunks import check_slice
from .common import log, run_stage


def chunk(settings: dict, docs: Path, out: Path, tokenizer: Path | None = None) -> list[Path]:
    """Cut every document as chunk.strategy says; each chunk checked to be an exact slice of its document."""
    tok = None
    if tokenizer:
        from ..text.bpe import load_tokenizer
        tok = load_tokenizer(tokenizer)

    cut = document_chunker(tokenizer=tok, **settings)

    def records():
        line = 0
        for d in iter_records(docs, "documents"):
            for c in cut(d):
                line += 1
                check_slice(c, d["text"], out, line)
                yield c.to_record()

    n = write_jsonl(out, records())
    log(f"chunk: {n} chunks ({settings}) -> {out}")
    return [out]


if __name__ == "__main__":
    run_stage(chunk)
