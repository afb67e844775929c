"""bm25_shard: a shard's chunks.jsonl -> shards/<i>/bm25/<name>/{postings.npz, vocab.json, items.json}.

A shard's postings only: the scores need the whole collection's statistics, which
merge_bm25 takes when it merges the shards (index/bm25_shards.py).
"""

from __future__ import annotations

from pathlib import Path

from ..index.bm25 import BM25Settings
from ..index.bm25_postings import Postings
from ..index.bm25_shards import save_postings
from ..settings import settings_from_dict
from ..text.analyze import Analyzer
from ..text.chunks import index_text, load_chunks
from .bm25 import items_rows
from .common import log, run_stage


def bm25_shard(settings: dict, docs: Path, chunks: Path, out_dir: Path) -> list[Path]:
    """Count the postings of one shard's chunks, analysed exactly as the bm25 stage does."""
    s = settings_from_dict(BM25Settings, settings, "bm25")
    items = load_chunks(chunks, docs)
    texts = [index_text(c, with_context=s.with_context) for c in items]
    postings = Postings.build(texts, Analyzer(s.analyzer), [c.title for c in items] if s.title_weight > 0 else None)
    written = save_postings(out_dir, postings, items_rows(items, s), {"with_context": s.with_context,
                                                                       "items": s.items})
    log(f"bm25_shard: {postings.n_items} chunks, {len(postings.vocab)} terms -> {out_dir}")
    return written


if __name__ == "__main__":
    run_stage(bm25_shard)
