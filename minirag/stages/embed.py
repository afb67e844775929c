"""embed: chunks.jsonl (+ the embedder's files) -> vectors/<name>.npy + .json (rows' chunk ids and text hashes)."""

from __future__ import annotations

import time
from pathlib import Path

from ..index.embedders import EmbedderKind, given_files
from ..index.vectors import vector_rows, vectors_sidecar_path, vectors_writer
from ..integrity import file_sha256, iter_records
from ..text.chunks import index_text, iter_chunks, load_chunks
from .common import log, run_stage


def embed(settings: dict, name: str, docs: Path, chunks: Path, out: Path, tokenizer: Path | None = None,
          encoder: Path | None = None, pretrained: Path | None = None, fit_chunks: Path | None = None) -> list[Path]:
    """Embed every chunk's index text with the configured embedder; the sidecar checks alignment later.

    A shard's job passes the whole corpus's chunks as `fit_chunks`: an embedder fitted on the
    corpus (hashing's IDF) is fitted on all of them, so each shard's rows are the unsharded ones."""
    kind = EmbedderKind.from_spec(settings, f"embedders.{name}")
    items = load_chunks(chunks, docs)
    texts = [index_text(c) for c in items]
    fit_texts = texts if fit_chunks is None else (index_text(c) for c in iter_chunks(fit_chunks))
    files = given_files(tokenizer=tokenizer, encoder=encoder, pretrained=pretrained)
    t0 = time.perf_counter()
    emb, producer = kind.corpus_embedder(fit_texts, files)
    sidecar = {"embedder": name, "chunks_sha256": file_sha256(chunks), **producer,
               **kind.coverage(emb, texts, lambda: languages(docs, items))}
    with vectors_writer(out, vector_rows(items), emb.d, sidecar) as vectors:  # (N, d) on disk
        kind.embed_corpus(emb, texts, vectors)
    log(f"embed: {len(items)} x {emb.d} ({name}) in {time.perf_counter() - t0:.2f}s -> {out}")
    return [out, vectors_sidecar_path(out)]


def languages(docs: Path, items: list) -> list[str]:
    """Each chunk's document language, in chunk order."""
    lang_of = {d["doc_id"]: d["lang"] for d in iter_records(docs, "documents")}
    return [lang_of[c.doc_id] for c in items]


if __name__ == "__main__":
    run_stage(embed)
