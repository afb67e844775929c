"""Vectors on disk: an (N, d) .npy beside a sidecar that says which chunk texts its rows came from.

Vectors are stored as `vectors/<embedder>.npy` (float32, (N, d)) with a JSON sidecar
`vectors/<embedder>.json` that lists, row by row, the chunk id and the sha256 of the text
the row was computed from (the chunk's context and text, `index_text`), plus the embedder's parameters and the sha256 of
the .npy itself. `load_aligned_vectors` refuses to pair vectors with chunks unless
every row's id and text hash match: content hashes, never row order or timestamps.

What it leaves out: how vectors are computed (embedders.py) and searched (store.py).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from ..artifacts import content
from ..artifacts.integrity import verified
from ..artifacts.io import atomic_path, load_npy, note_sha256, npy_map, read_json, sha256_file, write_json
from ..text.chunks import Chunk
from .rows import AlignmentError, check_rows, item_rows  # noqa: F401 (AlignmentError: loaders catch it here)


def vectors_sidecar_path(npy_path: str | Path) -> Path:
    return Path(npy_path).with_suffix(".json")


def vector_rows(chunks: Iterable[Chunk]) -> list[list[str]]:
    """A sidecar's rows: per chunk, its id and the sha256 of the text an embedder sees (index_text)."""
    return item_rows(chunks)


@contextlib.contextmanager
def vectors_writer(npy_path: str | Path, rows: list[list[str]], d: int, producer: dict) -> Iterator[np.ndarray]:
    """Yield an (N, d) float32 memory map of a temporary .npy to fill row by row; on a clean exit
    it is flushed, hashed and renamed over `npy_path`, then the sidecar is written.

    The rows live on disk, not in RAM, so a corpus of millions of chunks is embedded in bounded
    memory; an exception leaves neither file behind (and an older pair untouched).
    """
    with atomic_path(npy_path) as tmp:
        out = npy_map(tmp, (len(rows), d))  # (N, d)
        yield out
        out.flush()
        del out
        npy_sha256 = sha256_file(tmp)
    note_sha256(npy_path, npy_sha256)  # the job's receipt describes the file: no second pass over it
    write_json(vectors_sidecar_path(npy_path), {
        **producer,
        "shape": [len(rows), d],
        "npy_sha256": npy_sha256,
        "rows": rows,
    })


def save_vectors(npy_path: str | Path, vectors: np.ndarray, chunks: list[Chunk], producer: dict) -> None:
    """Write (N, d) vectors held in memory and their sidecar; `producer` holds params and hashes."""
    assert vectors.shape[0] == len(chunks), (vectors.shape, len(chunks))
    with vectors_writer(npy_path, vector_rows(chunks), vectors.shape[1], producer) as out:
        out[:] = vectors


def load_aligned_vectors(npy_path: str | Path, chunks: list[Chunk], mmap: bool = False) -> tuple[np.ndarray, dict]:
    """Load vectors (`mmap`: as a read-only memory map) and check, row by row, that they were computed from `chunks`."""
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
    vectors = load_npy(npy_path, mmap=mmap)  # (N, d)
    check_rows(npy_path, sidecar["rows"], vector_rows(chunks), vectors.shape[0], "embed")
    content.vectors(vectors, sidecar, npy_path)  # finite, float32, the recorded shape
    return vectors, sidecar


def load_vectors(npy_path: str | Path, chunks: list[Chunk], mmap: bool = False) -> tuple[np.ndarray, dict]:
    """An embed stage's vectors: both files checked against the job's receipt, then aligned with `chunks`."""
    verified(vectors_sidecar_path(npy_path), "vectors sidecar")
    return load_aligned_vectors(verified(npy_path, "vectors"), chunks, mmap=mmap)


def load_vectors_by_id(npy_path: str | Path, chunks: list[Chunk], mmap: bool = False) -> dict[str, np.ndarray]:
    """chunk id -> its (d,) vector, loaded and checked as load_vectors does (`mmap`: rows read when used)."""
    vectors, _ = load_vectors(npy_path, chunks, mmap=mmap)
    return {c.id: vectors[i] for i, c in enumerate(chunks)}
