"""curate: the corpus's documents -> docs.jsonl (markdown front matter, a BEIR corpus.jsonl or a SQuAD JSON file)."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.io import write_jsonl
from ..pipeline.shards import shard_of
from .common import log, run_stage


def curate(settings: dict, source: Path, glob: str, out: Path, shard: int = -1, shards: int = 1) -> list[Path]:
    """Read and check every document of the source (with --shard, only that shard's); write one record per document."""
    keep = (lambda doc_id: shard_of(doc_id, int(shards)) == int(shard)) if int(shard) >= 0 else None
    if settings["format"] == "beir":
        from ..datasets.beir import iter_beir_documents
        docs = iter_beir_documents(source, default_lang=settings["default_lang"] or "en", warn=log, keep=keep)
    elif settings["format"] == "squad":
        from ..datasets.squad import iter_squad_documents
        docs = iter_squad_documents(source, default_lang=settings["default_lang"] or "en", keep=keep)
    else:
        from ..text.corpus import curate_markdown
        docs = curate_markdown(source, glob, settings["fields"], settings["default_lang"], tuple(settings["langs"]),
                               keep=keep, outside_links=settings.get("outside_links", "refuse"), warn=log)
    n = write_jsonl(out, docs)
    part = f" (shard {shard} of {shards})" if keep else ""
    log(f"curate: {n} documents from {source}{part} -> {out}")
    return [out]


if __name__ == "__main__":
    run_stage(curate)
