"""merge_vectors: every shard's vectors/<name>.npy + .json + chunks.jsonl -> vectors/<name>.npy + .json.

The embed stage of a sharded corpus (its receipt is `embed.<name>`): rows copied from the
shards' memory-mapped files into the corpus's, in chunks.jsonl order, block by block, so a
large corpus is never in RAM. Every shard row's chunk id and text hash are checked against
chunks.jsonl before its vector is used, and the shards must agree on everything their
sidecars say of the embedder (parameters, model hashes).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..index.vectors import AlignmentError, load_vectors, vectors_sidecar_path, vectors_writer
from ..integrity import load_json
from ..io import sha256_file, sha256_text
from ..text.chunks import index_text, load_chunks
from .common import log, run_stage

PER_ROWS = ("rows", "shape", "npy_sha256", "chunks_sha256")  # what differs from shard to shard


def merge_vectors(settings: dict, name: str, docs: Path, chunks: Path, shards: list[Path], out: Path) -> list[Path]:
    """Concatenate the shards' vectors (`shards`: each shard's .npy) in the corpus's chunk order."""
    items = load_chunks(chunks, docs)
    position = {c.id: i for i, c in enumerate(items)}
    producer, d, filled = None, None, np.zeros(len(items), dtype=bool)
    npys = sorted((p for p in shards if p.suffix == ".npy"), key=lambda p: int(p.parent.parent.name))
    for npy in npys:
        sidecar = load_json(vectors_sidecar_path(npy), "vectors sidecar")
        own = {k: v for k, v in sidecar.items() if k not in PER_ROWS}
        if producer is None:
            # the shard's producer fields in their order, this corpus's chunks in place of the shard's
            producer = {k: sha256_file(chunks) if k == "chunks_sha256" else v for k, v in sidecar.items()
                        if k not in ("rows", "shape", "npy_sha256")}
            first, d = own, int(sidecar["shape"][1])
        elif own != first:
            raise AlignmentError(f"{vectors_sidecar_path(npy)}: embedded with other settings or another model than "
                                 f"{vectors_sidecar_path(npys[0])}; re-run embed_shard")
        for i, (cid, sha) in enumerate(sidecar["rows"]):
            if cid not in position or sha != sha256_text(index_text(items[position[cid]])):
                raise AlignmentError(f"{npy}: row {i} (chunk {cid}) is not in chunks.jsonl with the text it was "
                                     "embedded from; re-run embed_shard")
    with vectors_writer(out, items, d, producer) as merged:  # (N, d)
        for npy in npys:
            shard_chunks = load_chunks(npy.parent.parent / "chunks.jsonl")
            vectors, _ = load_vectors(npy, shard_chunks, mmap=True)  # (N_i, d) on disk
            rows = np.array([position[c.id] for c in shard_chunks], dtype=np.int64)  # (N_i,)
            if filled[rows].any():
                raise AlignmentError(f"{npy}: chunk {items[int(rows[filled[rows]][0])].id} is in another shard too")
            for start in range(0, len(rows), BLOCK):
                merged[rows[start:start + BLOCK]] = vectors[start:start + BLOCK]
            filled[rows] = True
        if not filled.all():  # inside: a failure leaves no merged file behind
            raise AlignmentError(f"chunk {items[int(np.flatnonzero(~filled)[0])].id} is in no shard's vectors")
    log(f"merge_vectors: {len(items)} x {d} ({name}) from {len(npys)} shards -> {out}")
    return [out, vectors_sidecar_path(out)]


BLOCK = 65536  # rows copied at once: 96 MB of 384-d float32


if __name__ == "__main__":
    run_stage(merge_vectors)
