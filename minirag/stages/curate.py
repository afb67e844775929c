"""curate: the corpus's documents -> docs.jsonl (a folder of Markdown, text, HTML, Word and PDF files, a BEIR
corpus.jsonl or a SQuAD JSON file); a folder's converted files are cached in converted/ beside it."""

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
    elif settings["format"] == "folder":
        from ..text.folder import curate_folder
        docs = curate_folder(source, glob, settings["fields"], settings["default_lang"], tuple(settings["langs"]),
                             keep=keep, outside_links=settings.get("outside_links", "refuse"), warn=log,
                             cache=Path(out).parent / "converted")
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
