"""bm25: chunks.jsonl -> bm25/<name>/{index.npz, vocab.json, params.json, items.json}."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..artifacts.integrity import iter_records
from ..artifacts.io import write_json
from ..index.bm25.index import BM25Index, BM25Settings
from ..index.bm25.postings import Postings
from ..index.rows import item_row, item_rows
from ..pipeline.jobs import corpus_files, whole
from ..pipeline.stage import Out, Stage
from ..settings import settings_from_dict, settings_to_dict
from ..text.analyze import Analyzer, settled
from ..text.chunks import index_text, iter_chunks
from .common import log, run_stage

BM25_FILES = ("index.npz", "vocab.json", "params.json", "items.json")  # an index's files, in its folder


def index_settings(settings: dict, docs: Path) -> BM25Settings:
    """The index's settings, its analyzer settled to the documents' languages when it follows them."""
    s = settings_from_dict(BM25Settings, settings, "bm25")
    if s.analyzer.languages != "documents":
        return s
    langs = {d.get("lang", "") for d in iter_records(docs, "documents")}
    return replace(s, analyzer=settled(s.analyzer, langs))


def file_rows(path: Path, docs: Path, s: BM25Settings) -> list[list[str]]:
    """items.json's rows of every item of a chunks (or units) file, streamed."""
    return item_rows(iter_chunks(path, docs), s.with_context, parent=s.items == "units")


def count_postings(path: Path, docs: Path, s: BM25Settings) -> tuple[Postings, list[list[str]]]:
    """The postings of every item of a chunks (or units) file, analysed as the settings say, and
    their items.json rows; streamed item by item (one chunk's text is held at a time)."""
    rows: list[list[str]] = []

    def pairs():
        for c in iter_chunks(path, docs):
            text = index_text(c, with_context=s.with_context)
            rows.append(item_row(c, s.with_context, parent=s.items == "units"))
            yield text, c.title

    return Postings.count(pairs(), Analyzer(s.analyzer), s.title_weight > 0), rows


def bm25(settings: dict, docs: Path, chunks: Path, out_dir: Path, units: Path | None = None) -> list[Path]:
    """Index every chunk (title and section prefixed, as the settings say); items.json holds, per
    row, the chunk id and the sha256 of the text indexed (context and text), so a stale index is
    refused like stale vectors."""
    s = index_settings(settings, docs)
    postings, rows = count_postings(units if s.items == "units" else chunks, docs, s)
    index = BM25Index.from_postings(postings, Analyzer(s.analyzer), s.scoring())
    index.save(out_dir)
    write_json(Path(out_dir) / "items.json", {"with_context": s.with_context, "items": s.items, "rows": rows})
    log(f"bm25: {index.n_items} chunks indexed ({s.scoring()}) -> {out_dir}")
    return [Path(out_dir) / name for name in BM25_FILES]


def bm25_settings(g, w) -> dict:
    return settings_to_dict(g.corpus.bm25[w["name"]])


def index_reads(g, name: str) -> dict:
    """The units an index over units reads, and its analyzer's word lists."""
    return {**({"units": str(g.layout.units)} if g.over_units(name) else {}), **g.word_lists(name)}


STAGES = (
    Stage("bm25", phase="index", step=20, corpora="whole", names=lambda g: whole(g, g.used_indexes()),
          settings=bm25_settings, reads=lambda g, w: {**corpus_files(g), **index_reads(g, w["name"])},
          writes={"out_dir": Out("bm25", arg="folder", at="bm25/{name}", files=BM25_FILES,
                                 checks={"index.npz": "bm25_index"})}),
)


if __name__ == "__main__":
    run_stage(bm25)
