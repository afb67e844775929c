"""Vectors on disk: an (N, d) .npy beside a sidecar that says which chunk texts its rows came from.

Vectors are stored as `vectors/<embedder>.npy` (float32, (N, d)) with a JSON sidecar
`vectors/<embedder>.json` that lists, row by row, the chunk id and the sha256 of the text
the row was computed from (the chunk's context and text, `index_text`), plus the embedder's parameters and the sha256 of
the .npy itself. `load_aligned_vectors` refuses to pair vectors with chunks unless
every row's id and text hash match: content hashes, never row order or timestamps.

What it leaves out: how vectors are computed (embedders.py) and searched (store.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..integrity import verified
from ..io import load_npy, read_json, save_npy, sha256_file, sha256_text, write_json
from ..text.chunks import Chunk, index_text


class AlignmentError(RuntimeError):
    """Vectors and chunks do not describe the same texts; the message names the first bad row."""


def vectors_sidecar_path(npy_path: str | Path) -> Path:
    return Path(npy_path).with_suffix(".json")


def save_vectors(npy_path: str | Path, vectors: np.ndarray, chunks: list[Chunk], producer: dict) -> None:
    """Write (N, d) float32 vectors and their sidecar; `producer` holds params and hashes."""
    assert vectors.shape[0] == len(chunks), (vectors.shape, len(chunks))
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)  # (N, d)
    save_npy(npy_path, vectors)
    write_json(vectors_sidecar_path(npy_path), {
        **producer,
        "shape": list(vectors.shape),
        "npy_sha256": sha256_file(npy_path),
        "rows": [[c.id, sha256_text(index_text(c))] for c in chunks],
    })


def load_aligned_vectors(npy_path: str | Path, chunks: list[Chunk]) -> tuple[np.ndarray, dict]:
    """Load vectors and check, row by row, that they were computed from `chunks`."""
    npy_path = Path(npy_path)
    sidecar_path = vectors_sidecar_path(npy_path)
    if not sidecar_path.exists():
        raise AlignmentError(f"{sidecar_path}: sidecar missing; cannot check which chunks {npy_path} holds")
    sidecar = read_json(sidecar_path)
    missing = [k for k in ("npy_sha256", "rows", "params") if k not in sidecar]
    if missing:
        raise AlignmentError(f"{sidecar_path}: not a vectors sidecar (no {', '.join(missing)}); re-run embed")
    if sha256_file(npy_path) != sidecar["npy_sha256"]:
        raise AlignmentError(f"{npy_path}: file hash differs from the one its sidecar recorded")
    vectors = load_npy(npy_path)  # (N, d)
    rows = sidecar["rows"]
    for i, (chunk, (row_id, row_sha)) in enumerate(zip(chunks, rows)):
        if chunk.id != row_id:
            raise AlignmentError(f"{npy_path}: row {i} is chunk {row_id} but chunks.jsonl has {chunk.id} there")
        if sha256_text(index_text(chunk)) != row_sha:
            raise AlignmentError(f"{npy_path}: row {i} (chunk {chunk.id}) was embedded from a different text; "
                                 "re-run embed")
    if len(rows) != len(chunks) or vectors.shape[0] != len(chunks):
        raise AlignmentError(f"{npy_path}: {vectors.shape[0]} rows for {len(chunks)} chunks "
                             f"(first unmatched row {min(len(rows), len(chunks))})")
    return vectors, sidecar


def load_vectors(npy_path: str | Path, chunks: list[Chunk]) -> tuple[np.ndarray, dict]:
    """An embed stage's vectors: both files checked against the job's receipt, then aligned with `chunks`."""
    verified(vectors_sidecar_path(npy_path), "vectors sidecar")
    return load_aligned_vectors(verified(npy_path, "vectors"), chunks)


def load_vectors_by_id(npy_path: str | Path, chunks: list[Chunk]) -> dict[str, np.ndarray]:
    """chunk id -> its (d,) vector, loaded and checked as load_vectors does."""
    vectors, _ = load_vectors(npy_path, chunks)
    return {c.id: vectors[i] for i, c in enumerate(chunks)}
