"""bm25: chunks.jsonl -> bm25/<name>/{index.npz, vocab.json, params.json, items.json}."""

from __future__ import annotations

from pathlib import Path

from ..index.bm25 import BM25Settings
from ..io import write_json
from ..rank.channels import BM25Retriever
from ..settings import settings_from_dict
from ..text.chunk import load_chunks
from .common import log, run_stage


def bm25(settings: dict, chunks: Path, out_dir: Path) -> None:
    """Index every chunk (title and section prefixed, as the settings say); items.json maps rows to chunk ids."""
    s = settings_from_dict(BM25Settings, settings, "bm25")
    retriever = BM25Retriever.from_chunks(load_chunks(chunks), s)
    retriever.index.save(out_dir)
    write_json(Path(out_dir) / "items.json", retriever.chunk_ids)
    log(f"bm25: {len(retriever.chunk_ids)} chunks indexed ({s.scoring()}) -> {out_dir}")


if __name__ == "__main__":
    run_stage(bm25)
