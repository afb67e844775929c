"""embed: chunks.jsonl (+ the embedder's files) -> vectors/<name>.npy + .json (rows' chunk ids and text hashes).

With `--out-cache` (an unsharded corpus), a per-text embedder reuses the vectors the cache
holds for its model and each chunk's indexed text and embeds only the others; the cache
and its receipt (receipts/embed_cache.<name>.json) are then rewritten (index/embed_cache.py).
Other embedders write an empty cache."""

from __future__ import annotations

import time
from pathlib import Path

from ..artifacts.integrity import iter_records
from ..artifacts.io import load_npy, sha256_file
from ..artifacts.layout import CorpusLayout
from ..index.embed_cache import EmbedCache, embed_reusing, model_key
from ..index.embedders import EmbedderKind
from ..index.vectors import vector_rows, vectors_sidecar_path, vectors_writer
from ..pipeline.jobs import corpus_files, name_value, per_shard, whole
from ..pipeline.stage import Out, Size, Stage
from ..text.chunks import index_text, iter_chunks, load_chunks
from .common import log, run_stage


def embed(settings: dict, name: str, docs: Path, chunks: Path, out: Path, files: dict[str, Path] | None = None,
          fit_chunks: Path | None = None, out_cache: Path | None = None) -> list[Path]:
    """Embed every chunk's index text with the configured embedder; the sidecar checks alignment later.
    `files` are what its kind reads besides the chunks (a tokenizer, an encoder, a model folder), by
    the kind's own names for them (embedders.py `files`).

    A shard's job passes the whole corpus's chunks as `fit_chunks`: an embedder fitted on the
    corpus (hashing's IDF) is fitted on all of them, so each shard's rows are the unsharded ones."""
    kind = EmbedderKind.from_spec(settings, f"embedders.{name}")
    items = load_chunks(chunks, docs)
    texts = [index_text(c) for c in items]
    fit_texts = texts if fit_chunks is None else (index_text(c) for c in iter_chunks(fit_chunks))
    t0 = time.perf_counter()
    emb, producer = kind.corpus_embedder(fit_texts, files or {})
    sidecar = {"embedder": name, "chunks_sha256": sha256_file(chunks), **producer,
               **kind.coverage(emb, texts, lambda: languages(docs, items))}
    rows = vector_rows(items)
    caching = out_cache is not None and kind.per_text()
    cache = EmbedCache.load(out_cache, emb.d, log) if caching else EmbedCache.empty(emb.d)
    key, shas = model_key(producer), [sha for _, sha in rows]
    with vectors_writer(out, rows, emb.d, sidecar) as vectors:  # (N, d) on disk
        if caching:
            reused = embed_reusing(cache, key, shas, texts, lambda t, o: kind.embed_corpus(emb, t, o), vectors)
        else:
            kind.embed_corpus(emb, texts, vectors)
            reused = 0
    log(f"embed: {len(items)} x {emb.d} ({name}) in {time.perf_counter() - t0:.2f}s -> {out}"
        + (f"; {reused} from the cache, {len(items) - reused} embedded" if caching else ""))
    if out_cache is not None:
        kept = cache.updated(key, shas, load_npy(out, mmap=True)) if caching else EmbedCache.empty(emb.d)
        kept.save(out_cache, CorpusLayout(out_cache.parent.parent).receipt("embed_cache", name), name)
    return [out, vectors_sidecar_path(out)]


def languages(docs: Path, items: list) -> list[str]:
    """Each chunk's document language, in chunk order."""
    lang_of = {d["doc_id"]: d["lang"] for d in iter_records(docs, "documents")}
    return [lang_of[c.doc_id] for c in items]


def embedder_settings(g, w) -> dict:
    return g.corpus.embedders[w["name"]].spec()


def shard_reads(g, name: str) -> dict:
    """A shard's embed job's inputs beyond its chunks: the embedder's files, and the whole corpus's chunks
    for an embedder fitted on them (hashing's IDF)."""
    fit = {"fit_chunks": str(g.layout.chunks)} if g.corpus.embedders[name].fitted else {}
    return {"files": g.embedder_files(name), **fit}


STAGES = (
    Stage("embed_shard", phase="embed", step=30, module="embed", per="{shard}.{name}", settings=embedder_settings,
          values=name_value, names=lambda g: per_shard(g, g.used_embedders()),
          reads=lambda g, w: {"docs": str(g.layout.shard_docs(w["shard"])),
                              "chunks": str(g.layout.shard_chunks(w["shard"])), **shard_reads(g, w["name"])},
          writes={"out": Out("shard_vectors", at="shards/{shard}/vectors/{name}.npy", check="vectors"),
                  "sidecar": Out("shard_vectors_sidecar", arg=None, at="shards/{shard}/vectors/{name}.json",
                                 check="json_file")},
          size=Size(1792, 40, "as embed: a shard does part of its work")),
    Stage("embed", phase="embed", step=40, corpora="whole", names=lambda g: whole(g, g.used_embedders()),
          settings=embedder_settings, values=name_value,
          reads=lambda g, w: {**corpus_files(g), "files": g.embedder_files(w["name"])},
          writes={"out": Out("vectors", at="vectors/{name}.npy", check="vectors"),
                  "sidecar": Out("vectors_sidecar", arg=None, at="vectors/{name}.json", check="json_file"),
                  # the cache is vouched for by a receipt of its own, which this job writes
                  "out_cache": Out("embed_cache", update=True, at="cache/{name}.npz", check="embed_cache",
                                   job="embed_cache"),
                  "cache_receipt": Out("embed_cache", arg=None, update=True, receipt=True)},
          size=Size(1792, 40)),
)


if __name__ == "__main__":
    run_stage(embed)
