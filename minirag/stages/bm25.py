"""bm25: chunks.jsonl -> bm25/<name>/{index.npz, vocab.json, params.json, items.json}."""

from __future__ import annotations

from pathlib import Path

from ..index.bm25 import BM25Settings
from ..io import sha256_text, write_json
from ..layout import BM25_FILES
from ..rank.channels import BM25Retriever
from ..settings import settings_from_dict
from ..text.chunks import Chunk, index_text, load_chunks
from .common import log, run_stage


def items_rows(items: list[Chunk], s: BM25Settings) -> list[list[str]]:
    """items.json's rows: per item, its id and the sha256 of the text indexed (and a unit's chunk)."""
    return [[c.id, sha256_text(index_text(c, with_context=s.with_context))]
            + ([c.metadata["parent"]] if s.items == "units" else []) for c in items]


def bm25(settings: dict, docs: Path, chunks: Path, out_dir: Path, units: Path | None = None) -> list[Path]:
    """Index every chunk (title and section prefixed, as the settings say); items.json holds, per
    row, the chunk id and the sha256 of the text indexed (context and text), so a stale index is
    refused like stale vectors."""
    s = settings_from_dict(BM25Settings, settings, "bm25")
    items = load_chunks(units if s.items == "units" else chunks, docs)
    retriever = BM25Retriever.from_chunks(items, s)
    retriever.index.save(out_dir)
    write_json(Path(out_dir) / "items.json", {"with_context": s.with_context, "items": s.items,
                                              "rows": items_rows(items, s)})
    log(f"bm25: {len(retriever.chunk_ids)} chunks indexed ({s.scoring()}) -> {out_dir}")
    return [Path(out_dir) / name for name in BM25_FILES]


if __name__ == "__main__":
    run_stage(bm25)
