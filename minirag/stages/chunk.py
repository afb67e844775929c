"""chunk: docs.jsonl (+ tokenizer.json for token-bounded strategies) -> chunks.jsonl.

Streamed document by document: a corpus of millions of documents is cut in the memory of one."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import iter_records
from ..artifacts.io import write_jsonl
from ..pipeline.jobs import docs, one
from ..pipeline.stage import Out, Stage
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


STAGES = (
    Stage("chunk_shard", phase="shards", step=20, module="chunk", per="{shard}",
          settings=lambda g, w: g.corpus.chunk.used(), names=lambda g: [{"shard": str(i)} for i in g.shard_ids()],
          reads=lambda g, w: {"docs": str(g.layout.shard_docs(w["shard"])), **g.chunk()},
          writes={"out": Out("shard_chunks", at="shards/{shard}/chunks.jsonl", check="records")}),
    Stage("chunk", phase="chunks", step=10, per=None, corpora="whole", names=lambda g: one(not g.shard_ids()),
          settings=lambda g, w: g.corpus.chunk.used(), reads=lambda g, w: {**docs(g), **g.chunk()},
          writes={"out": Out("chunks", at="chunks.jsonl", check="records")}),
)


if __name__ == "__main__":
    run_stage(chunk)
