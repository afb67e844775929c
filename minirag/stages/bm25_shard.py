"""bm25_shard: a shard's chunks.jsonl -> shards/<i>/bm25/<name>/{postings.npz, vocab.json, items.json}.

A shard's postings only: the scores need the whole collection's statistics, which
merge_bm25 takes when it merges the shards (index/bm25/shards.py).
"""

from __future__ import annotations

from pathlib import Path

from ..index.bm25.index import BM25Settings
from ..index.bm25.shards import save_postings
from ..pipeline.jobs import per_shard
from ..pipeline.stage import Out, Stage
from ..settings import settings_from_dict
from .bm25 import bm25_settings, count_postings
from .common import log, run_stage


def bm25_shard(settings: dict, docs: Path, chunks: Path, out_dir: Path) -> list[Path]:
    """Count the postings of one shard's chunks, analysed exactly as the bm25 stage does."""
    s = settings_from_dict(BM25Settings, settings, "bm25")
    if s.analyzer.languages == "documents":  # a shard's documents may not hold every language of the corpus
        raise ValueError("a sharded corpus names its languages (source.langs or source.default_lang): its BM25 "
                         "analyzer cannot follow the languages each shard's documents happen to hold")
    postings, rows = count_postings(chunks, docs, s)
    written = save_postings(out_dir, postings, rows, {"with_context": s.with_context, "items": s.items})
    log(f"bm25_shard: {postings.n_items} chunks, {len(postings.vocab)} terms -> {out_dir}")
    return written


STAGES = (
    Stage("bm25_shard", phase="index", step=10, per="{shard}.{name}", settings=bm25_settings,
          names=lambda g: per_shard(g, g.used_indexes()),
          reads=lambda g, w: {"docs": str(g.layout.shard_docs(w["shard"])),
                              "chunks": str(g.layout.shard_chunks(w["shard"])), **g.word_lists(w["name"])},
          writes={"out_dir": Out("shard_bm25", arg="folder", at="shards/{shard}/bm25/{name}",
                                 files=("postings.npz", "vocab.json", "items.json"),
                                 checks={"postings.npz": "bm25_postings"})}),
)


if __name__ == "__main__":
    run_stage(bm25_shard)
