"""embed: chunks.jsonl (+ the embedder's files) -> vectors/<name>.npy + .json (rows' chunk ids and text hashes)."""

from __future__ import annotations

import time
from pathlib import Path

from ..index.embedders import EmbedderKind, given_files
from ..index.vectors import save_vectors, vectors_sidecar_path
from ..io import sha256_file
from ..text.chunks import index_text, load_chunks
from .common import log, run_stage


def embed(settings: dict, name: str, docs: Path, chunks: Path, out: Path, tokenizer: Path | None = None,
          encoder: Path | None = None, pretrained: Path | None = None) -> list[Path]:
    """Embed every chunk's index text with the configured embedder; the sidecar checks alignment later."""
    kind = EmbedderKind.from_spec(settings, f"embedders.{name}")
    items = load_chunks(chunks, docs)
    texts = [index_text(c) for c in items]
    files = given_files(tokenizer=tokenizer, encoder=encoder, pretrained=pretrained)
    t0 = time.perf_counter()
    emb, producer = kind.corpus_embedder(texts, files)
    vectors = emb.embed(texts)  # (N, d)
    save_vectors(out, vectors, items, {"embedder": name, "chunks_sha256": sha256_file(chunks), **producer})
    log(f"embed: {vectors.shape[0]} x {vectors.shape[1]} ({name}) in {time.perf_counter() - t0:.2f}s -> {out}")
    return [out, vectors_sidecar_path(out)]


if __name__ == "__main__":
    run_stage(embed)
