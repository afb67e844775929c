"""merge_bm25: every shard's postings + chunks.jsonl -> bm25/<name>/{index.npz, vocab.json, params.json, items.json}.

The bm25 stage of a sharded corpus (its receipt is `bm25.<name>`): the shards' postings
merged and scored with the whole collection's N, df and average length, which gives the
index `bm25` builds from chunks.jsonl at once, byte for byte (index/bm25/shards.py).
"""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import verified
from ..artifacts.io import write_json
from ..artifacts.layout import BM25_FILES
from ..index.bm25.shards import load_postings, merged_index
from ..index.rows import place_rows
from ..pipeline.jobs import corpus_files, paths, sharded
from ..pipeline.stage import Out, Stage
from ..text.analyze import Analyzer
from .bm25 import bm25_settings, file_rows, index_settings
from .common import log, run_stage


def merge_bm25(settings: dict, docs: Path, chunks: Path, shards: list[Path], out_dir: Path) -> list[Path]:
    """Merge shard postings (`shards`: each shard's postings.npz, vocab.json, items.json) into one index."""
    s = index_settings(settings, docs)
    rows = file_rows(chunks, docs, s)
    position = {row[0]: i for i, row in enumerate(rows)}
    parts, row_maps = [], []
    for folder in sorted({p.parent for p in shards}, key=lambda p: int(p.parent.parent.name)):
        for name in ("postings.npz", "vocab.json", "items.json"):
            verified(folder / name, "BM25 shard postings")
        postings, meta = load_postings(folder)
        parts.append(postings)
        row_maps.append(place_rows(folder / "items.json", meta["rows"], rows, position, "bm25_shard"))  # (N_i,)
    index = merged_index(parts, row_maps, len(rows), Analyzer(s.analyzer), s.scoring())
    index.save(out_dir)
    write_json(Path(out_dir) / "items.json", {"with_context": s.with_context, "items": s.items, "rows": rows})
    log(f"merge_bm25: {len(rows)} chunks from {len(parts)} shards ({s.scoring()}) -> {out_dir}")
    return [Path(out_dir) / name for name in BM25_FILES]


def shard_files(g, name: str) -> list[str]:
    return paths(*(p for i in g.shard_ids() for p in g.layout.shard_bm25_files(i, name)))


STAGES = (
    Stage("merge_bm25", phase="index", step=30, job="bm25", corpora="sharded", names=lambda g: sharded(g, g.used_indexes()),
          settings=bm25_settings, reads=lambda g, w: {**corpus_files(g), "shards": shard_files(g, w["name"])},
          writes={"out_dir": Out("bm25", arg="folder")}),
)


if __name__ == "__main__":
    run_stage(merge_bm25)
