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


if __name__ == "__main__":
    run_stage(embed)
