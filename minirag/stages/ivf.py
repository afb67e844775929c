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
from ..settings import settings_from_dict
from .common import log, run_stage


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


if __name__ == "__main__":
    run_stage(ivf)
