"""merge_vectors: every shard's vectors/<name>.npy + .json + chunks.jsonl -> vectors/<name>.npy + .json.

The embed stage of a sharded corpus (its receipt is `embed.<name>`): rows copied from the
shards' memory-mapped files into the corpus's, in chunks.jsonl order, block by block, so a
large corpus is never in RAM. Every shard row's chunk id and text hash (its sidecar's rows) are
checked against chunks.jsonl before its vector is used, the shard's .npy against its sidecar's
hash, and the shards must agree on everything their sidecars say of the embedder (parameters,
model hashes).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..artifacts.integrity import load_json, verified
from ..artifacts.io import load_npy, sha256_file
from ..index.coverage import added
from ..index.rows import AlignmentError, place_rows
from ..index.vectors import vector_rows, vectors_sidecar_path, vectors_writer
from ..pipeline.jobs import corpus_files, name_value, paths, sharded
from ..pipeline.stage import Out, Size, Stage
from ..text.chunks import iter_chunks
from .common import log, run_stage

PER_ROWS = ("rows", "shape", "npy_sha256", "chunks_sha256", "tokens")  # what differs from shard to shard


def merge_vectors(settings: dict, name: str, docs: Path, chunks: Path, shards: list[Path], out: Path) -> list[Path]:
    """Concatenate the shards' vectors (`shards`: each shard's .npy) in the corpus's chunk order."""
    rows = vector_rows(iter_chunks(chunks, docs))  # [chunk id, sha256 of the text embedded], streamed
    position = {cid: i for i, (cid, _) in enumerate(rows)}
    producer, d, filled = None, None, np.zeros(len(rows), dtype=bool)
    npys = sorted((p for p in shards if p.suffix == ".npy"), key=lambda p: int(p.parent.parent.name))
    shard_rows, coverage = [], []
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
        at = place_rows(npy, sidecar["rows"], rows, position, "embed_shard")  # (N_i,)
        coverage += [sidecar["tokens"]] if "tokens" in sidecar else []  # a pretrained model's counts add up
        shard_rows.append((at, sidecar["npy_sha256"]))
        del sidecar  # its rows: hundreds of MB at millions of chunks
    if coverage:
        producer["tokens"] = added(coverage)
    with vectors_writer(out, rows, d, producer) as merged:  # (N, d)
        for npy, (at, npy_sha256) in zip(npys, shard_rows):
            vectors = load_npy(verified(npy, "vectors"), mmap=True)  # (N_i, d) on disk
            if vectors.shape != (len(at), d) or sha256_file(npy) != npy_sha256:  # hashed once, by verified
                raise AlignmentError(f"{npy}: not the {len(at)} x {d} rows its sidecar describes; re-run embed_shard")
            if filled[at].any():
                raise AlignmentError(f"{npy}: chunk {rows[int(at[filled[at]][0])][0]} is in another shard too")
            for start in range(0, len(at), BLOCK):
                merged[at[start:start + BLOCK]] = vectors[start:start + BLOCK]
            filled[at] = True
        if not filled.all():  # inside: a failure leaves no merged file behind
            raise AlignmentError(f"chunk {rows[int(np.flatnonzero(~filled)[0])][0]} is in no shard's vectors")
    log(f"merge_vectors: {len(rows)} x {d} ({name}) from {len(npys)} shards -> {out}")
    return [out, vectors_sidecar_path(out)]


BLOCK = 65536  # rows copied at once: 96 MB of 384-d float32


def shard_files(g, name: str) -> list[str]:
    """Each shard's vectors of `name`, their sidecars and the shard's chunks."""
    return paths(*(p for i in g.shard_ids() for p in (
        g.layout.shard_vectors(i, name), g.layout.shard_vectors(i, name).with_suffix(".json"),
        g.layout.shard_chunks(i))))


STAGES = (
    Stage("merge_vectors", phase="embed", step=50, job="embed", corpora="sharded",
          names=lambda g: sharded(g, g.used_embedders()),
          settings=lambda g, w: g.corpus.embedders[w["name"]].spec(), values=name_value,
          reads=lambda g, w: {**corpus_files(g), "shards": shard_files(g, w["name"])},
          writes={"out": Out("vectors"), "sidecar": Out("vectors_sidecar", arg=None)},
          size=Size(1792, 10, "a merge holds the whole result once")),
)


if __name__ == "__main__":
    run_stage(merge_vectors)
