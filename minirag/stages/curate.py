"""curate: the corpus's documents -> docs.jsonl (markdown front matter or a BEIR corpus.jsonl)."""

from __future__ import annotations

from pathlib import Path

from ..io import write_jsonl
from .common import log, run_stage


def curate(settings: dict, source: Path, glob: str, out: Path) -> list[Path]:
    """Read and check every document of the source; write one record per document."""
    if settings["format"] == "beir":
        from ..beir import curate_beir
        docs = curate_beir(source, default_lang=settings["default_lang"] or "en", warn=log)
    else:
        from ..text.corpus import curate_markdown
        docs = curate_markdown(source, glob, settings["fields"], settings["default_lang"], tuple(settings["langs"]))
    write_jsonl(out, docs)
    log(f"curate: {len(docs)} documents from {source} -> {out}")
    return [out]


if __name__ == "__main__":
    run_stage(curate)
