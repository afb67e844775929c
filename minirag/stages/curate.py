"""curate: the corpus's documents -> docs.jsonl (a folder of Markdown, text, HTML, Word and PDF files, a BEIR
corpus.jsonl or a SQuAD JSON file); a folder's converted files are cached in converted/ beside it."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.io import write_jsonl
from ..pipeline.jobs import one
from ..pipeline.shards import shard_of
from ..pipeline.stage import Given, Out, Stage
from ..settings import settings_to_dict
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


def curate_settings(g, w) -> dict:
    src = settings_to_dict(g.source)
    return {k: src[k] for k in ("format", "fields", "default_lang", "langs", "outside_links")}


def source_files(g) -> Given:
    """The documents, given to curate as their folder (a BEIR collection's folder, a SQuAD file)."""
    return Given(g.source.path, tuple(g.documents()))


def shard_documents(g, shard: int) -> list[str]:
    """The source files of one shard: a markdown document's id is its path, so a folder's
    shard lists only its own files and editing one reruns that shard alone; a BEIR corpus is
    one file, read by every shard."""
    if g.source.format in ("beir", "squad"):
        return g.documents()
    from ..text.corpus import path_doc_id, source_paths
    root = Path(g.source.path)
    # planning lists the files; the curate_shard job refuses a symlink leading out (outside_links)
    return [str(p) for p in source_paths(root, g.source.glob, outside_links="follow")
            if shard_of(path_doc_id(p, root), g.shards) == shard and not {"{", "}"} & set(str(p))]


STAGES = (
    Stage("curate", phase="corpus", step=10, per=None, names=lambda g: one(), settings=curate_settings,
          values=lambda g, w: {"glob": g.source.glob},
          reads=lambda g, w: {"source": source_files(g)}, writes={"out": Out("docs", at="docs.jsonl", check="records")}),
    # the source folder with the files of that shard alone
    Stage("curate_shard", phase="shards", step=10, module="curate", per="{shard}", settings=curate_settings,
          names=lambda g: [{"shard": str(i)} for i in g.shard_ids()],
          values=lambda g, w: {"glob": g.source.glob, "shard": w["shard"], "shards": g.shards},
          reads=lambda g, w: {"source": Given(g.source.path, tuple(shard_documents(g, int(w["shard"]))))},
          writes={"out": Out("shard_docs", at="shards/{shard}/docs.jsonl", check="records")}),
)


if __name__ == "__main__":
    run_stage(curate)
