"""ivf: vectors/<embedder>.npy + .json -> ivf/<index>/{centroids, offsets, order, vectors_by_list}.npy + meta.json.

The index is built from the vectors alone (index/ivf.py), read through a memory map; it
records the sha256 of the vectors and of their sidecar, so a search refuses it once the
embedder has written other vectors. nprobe is not read here: it is the search's.
"""

from __future__ import annotations

import time
from pathlib import Path

from ..artifacts.integrity import load_json, verified
from ..artifacts.io import sha256_file
from ..index.ivf import IVFSettings, build_ivf
from ..index.vectors import AlignmentError, vectors_sidecar_path
from ..pipeline.jobs import name_value, named
from ..pipeline.stage import Out, Size, Stage
from ..settings import settings_from_dict
from .common import log, run_stage

# what an index is: its folder's files (index/ivf.py writes and reads them)
IVF_FILES = ("centroids.npy", "offsets.npy", "order.npy", "vectors_by_list.npy", "meta.json")


def ivf(settings: dict, name: str, vectors: Path, sidecar: Path, out_dir: Path) -> list[Path]:
    """Cluster the embedder's vectors into nlist lists (seeded k-means) and write the index."""
    s = settings_from_dict(IVFSettings, {k: v for k, v in settings.items() if k != "embedder"}, f"ivf.{name}")
    if Path(sidecar) != vectors_sidecar_path(vectors):
        raise ValueError(f"{sidecar}: not the sidecar of {vectors}")
    recorded = load_json(sidecar, "vectors sidecar")
    if "npy_sha256" not in recorded:
        raise AlignmentError(f"{sidecar}: not a vectors sidecar (no npy_sha256); re-run embed")
    if sha256_file(verified(vectors, "vectors")) != recorded["npy_sha256"]:
        raise AlignmentError(f"{vectors}: file hash differs from the one its sidecar recorded; re-run embed")
    t0 = time.perf_counter()
    written = build_ivf(vectors, out_dir, s, {"embedder": settings["embedder"],
                                              "vectors_sha256": recorded["npy_sha256"],
                                              "sidecar_sha256": sha256_file(Path(sidecar))})
    log(f"ivf: {len(recorded['rows'])} vectors into {s.nlist} lists in {time.perf_counter() - t0:.2f}s -> {out_dir}")
    return written


def index_reads(g, name: str) -> dict:
    """The vectors (and sidecar) an IVF index is built from."""
    embedder = g.corpus.ivf_indexes()[name]["embedder"]
    return {"vectors": str(g.layout.vectors(embedder)), "sidecar": str(g.layout.vectors_sidecar(embedder))}


STAGES = (
    # an index's embedder and build settings (its name is made of them); nprobe is no build setting:
    # changing it reruns retrieve alone
    Stage("ivf", phase="index", step=40, names=lambda g: named(g.corpus.ivf_indexes()), values=name_value,
          settings=lambda g, w: g.corpus.ivf_indexes()[w["name"]], reads=lambda g, w: index_reads(g, w["name"]),
          writes={"out_dir": Out("ivf", arg="folder", at="ivf/{name}", files=IVF_FILES,
                                 checks={"vectors_by_list.npy": "ivf"})},
          size=Size(1792, 30, "k-means over every vector of the corpus, then the inverted lists")),
)


if __name__ == "__main__":
    run_stage(ivf)
