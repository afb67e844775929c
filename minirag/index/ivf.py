"""IVF: an inverted-file index for approximate nearest-neighbour search over an embedder's vectors.

The flat store (store.py) scores a query against all N rows. An IVF index cuts the rows
into `nlist` lists with k-means (the coarse quantizer), scores a query against the list
centroids, and scans only the `nprobe` best lists: nlist + (rows of those lists) inner
products instead of N (Sivic & Zisserman 2003, "Video Google"; Jégou et al. 2011, IVFADC,
here without the compressed codes). With nprobe >= nlist every row is scanned, with the
flat store's scoring function and tie rule, so the ranking is the flat store's exactly.

Build (`build_ivf`), reading `vectors/<embedder>.npy` through a memory map, block by block,
so the (N, d) matrix is never all in RAM:
1. a seeded sample of at most nlist x `train_per_list` rows (FAISS trains on 39 to 256 per list);
2. spherical k-means on the sample (Lloyd 1982; Dhillon & Modha 2001: unit-length centroids,
   a row goes to the centroid of largest inner product): seeded distinct sample rows as the
   first centroids, at most `iterations` rounds, stopping when no row changes list; a list
   left empty is re-seeded with the sample row the centroids serve worst;
3. every row assigned to its best centroid (ties: the lower list);
4. the files, each written atomically, meta.json last:

    ivf/<name>/centroids.npy        (nlist, d) float32 unit centroids
               offsets.npy          (nlist + 1,) int64: list l is positions offsets[l]:offsets[l+1]
               order.npy            (N,) int64 row ids of the vectors file, grouped by list, ascending in a list
               vectors_by_list.npy  (N, d) float32: the vectors in `order`
               meta.json            settings, list sizes, k-means objective per round, and the
                                    sha256 of the vectors and of their sidecar it was built from

Why a list-ordered copy of the vectors: a probed list is then one contiguous slice of a
memory map, read as sequential pages and scored in place. Gathering a list's rows from the
embedder's file instead touches one page per row, scattered over the file, and copies them
before scoring (at 10^6 x 384, a 16-list probe gathers ~24 MB per query). The price is a
second copy on disk, N x d x 4 bytes.

Search (`IVFIndex.search`): centroid scores -> the nprobe best lists (ties: lower list) ->
exact inner products over their rows -> top k, equal scores by ascending row id, as
store.top_k does. It counts distance computations (nlist + rows scanned) for the benchmark.

What it leaves out: compressed codes (PQ, SQ: rows stay float32 and scores exact), graph
indexes (HNSW), adding rows to a built index (changed vectors rebuild it), and batched or
multi-threaded search.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from ..artifacts import content
from ..artifacts.integrity import verified
from ..artifacts.io import atomic_path, load_npy, npy_map, read_json, save_npy, sha256_file, write_json
from ..artifacts.layout import IVF_FILES
from ..settings import setting
from .store import inner_products, top_k
from .vectors import AlignmentError

FORMAT = "minirag-ivf/1"
BLOCK_ROWS = 16384  # rows read and scored at a time: bounds the (rows, nlist) score block in RAM


@dataclass(frozen=True)
class IVFSettings:
    """An IVF index: its lists and how many a query scans."""
    nlist: int = setting(64, minimum=1)            # lists (k-means centroids); about sqrt(N) to 4 sqrt(N)
    nprobe: int = setting(8, minimum=1)            # lists scanned per query (search only); >= nlist: exact
    seed: int = 0                                  # the training sample and the first centroids
    iterations: int = setting(20, minimum=1)       # k-means rounds at most (fewer once no row changes list)
    train_per_list: int = setting(256, minimum=1)  # k-means trains on at most nlist x this many sampled rows

    BUILD: ClassVar[tuple[str, ...]] = ("nlist", "seed", "iterations", "train_per_list")

    def build_settings(self) -> dict:
        """What building the index reads (nprobe is the search's alone)."""
        return {key: getattr(self, key) for key in self.BUILD}


def unit_rows(x: np.ndarray) -> np.ndarray:
    """(n, d) rows scaled to unit length; a zero row stays zero."""
    norms = np.linalg.norm(x, axis=1, keepdims=True)  # (n, 1)
    return (x / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def assign(x: np.ndarray, centroids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's list (largest inner product with its centroid; ties: the lower list) and that
    score, block by block so a memory-mapped x is read once and never held whole."""
    n = x.shape[0]
    labels, best = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.float32)  # (n,), (n,)
    for a in range(0, n, BLOCK_ROWS):
        scores = np.asarray(x[a:a + BLOCK_ROWS], dtype=np.float32) @ centroids.T  # (b, nlist)
        labels[a:a + len(scores)] = scores.argmax(axis=1)
        best[a:a + len(scores)] = scores[np.arange(len(scores)), labels[a:a + len(scores)]]
    return labels, best


def update(x: np.ndarray, labels: np.ndarray, best: np.ndarray, nlist: int) -> np.ndarray:
    """Spherical k-means update: each list's mean row, scaled to unit length. An empty list takes
    the row the current lists serve worst (lowest best score; ties: lower row), one row each."""
    counts = np.bincount(labels, minlength=nlist)  # (nlist,)
    order = np.argsort(labels, kind="stable")      # (n,) rows grouped by list
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    full = counts > 0
    sums = np.zeros((nlist, x.shape[1]), dtype=np.float64)  # (nlist, d)
    sums[full] = np.add.reduceat(x[order], starts[full], axis=0, dtype=np.float64)
    centroids = unit_rows(sums)
    empty = np.flatnonzero(~full)
    if len(empty):
        worst = np.argsort(best, kind="stable")[:len(empty)]
        centroids[empty] = unit_rows(x[worst])
    return centroids


def spherical_kmeans(x: np.ndarray, nlist: int, iterations: int,
                     rng: np.random.Generator) -> tuple[np.ndarray, list[float]]:
    """(nlist, d) unit centroids of the (m, d) rows x, and the mean best score of each round."""
    centroids = unit_rows(x[np.sort(rng.choice(x.shape[0], size=nlist, replace=False))])  # (nlist, d)
    labels, objective = None, []
    for _ in range(iterations):
        new, best = assign(x, centroids)
        objective.append(round(float(best.mean(dtype=np.float64)), 6))
        if labels is not None and np.array_equal(new, labels):
            break  # a fixed point: the update would give the same centroids
        labels = new
        centroids = update(x, labels, best, nlist)
    return centroids, objective


def build_ivf(vectors: str | Path, out_dir: str | Path, s: IVFSettings, provenance: dict) -> list[Path]:
    """Build the index of the (N, d) float32 .npy `vectors` into `out_dir` (module docstring);
    `provenance` (the embedder, the hashes of the vectors and sidecar) goes into meta.json."""
    out_dir = Path(out_dir)
    x = load_npy(vectors, mmap=True)  # (N, d) memory map
    if x.ndim != 2 or x.dtype != np.float32:
        raise ValueError(f"{vectors}: expected an (N, d) float32 array, got {x.dtype} {x.shape}")
    n, d = x.shape
    if s.nlist > n:
        raise ValueError(f"{vectors}: {n} vectors cannot fill nlist={s.nlist} lists; set nlist to at most {n}")
    rng = np.random.default_rng(s.seed)
    size = s.nlist * s.train_per_list
    rows = np.arange(n) if size >= n else np.sort(rng.choice(n, size=size, replace=False))  # (m,)
    centroids, objective = spherical_kmeans(np.asarray(x[rows], dtype=np.float32), s.nlist, s.iterations, rng)
    labels, _ = assign(x, centroids)                                       # (N,)
    order = np.argsort(labels, kind="stable")                              # (N,) rows by list, ascending inside
    counts = np.bincount(labels, minlength=s.nlist)                        # (nlist,)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)    # (nlist + 1,)
    save_npy(out_dir / "centroids.npy", centroids)
    save_npy(out_dir / "offsets.npy", offsets)
    save_npy(out_dir / "order.npy", order.astype(np.int64))
    with atomic_path(out_dir / "vectors_by_list.npy") as tmp:
        copy = npy_map(tmp, (n, d))  # (N, d)
        for a in range(0, n, BLOCK_ROWS):
            copy[a:a + BLOCK_ROWS] = x[order[a:a + BLOCK_ROWS]]
        copy.flush()
        del copy
    write_json(out_dir / "meta.json", {
        "format": FORMAT, **provenance, **s.build_settings(), "rows": n, "dim": d, "train_rows": len(rows),
        "rounds": len(objective), "objective": objective,
        "list_sizes": {"min": int(counts.min()), "median": float(np.median(counts)), "max": int(counts.max())},
        "counts": counts.tolist()})
    return [out_dir / name for name in IVF_FILES]


class IVFIndex:
    """A built index: centroids, offsets and row order in RAM, the list-ordered vectors memory-mapped."""

    def __init__(self, centroids: np.ndarray, offsets: np.ndarray, order: np.ndarray, vectors: np.ndarray,
                 meta: dict, where: str = "IVF index"):
        nlist, n = centroids.shape[0], order.shape[0]
        if offsets.shape != (nlist + 1,) or offsets[0] != 0 or offsets[-1] != n or vectors.shape[0] != n \
                or vectors.shape[1:] != centroids.shape[1:]:
            raise ValueError(f"{where}: files disagree ({nlist} centroids, {offsets.shape[0]} offsets, {n} row ids, "
                             f"vectors {vectors.shape}); re-run ivf")
        self.centroids, self.offsets, self.order, self.vectors = centroids, offsets, order, vectors
        self.meta, self.nlist, self.n = meta, nlist, n

    @classmethod
    def open(cls, directory: str | Path, mmap: bool = True) -> "IVFIndex":
        """The index in `directory`, its files unchecked (query/sources.py checks them against their receipt)."""
        directory = Path(directory)
        meta = read_json(directory / "meta.json")
        if meta.get("format") != FORMAT:
            raise ValueError(f"{directory / 'meta.json'}: not a {FORMAT} index; re-run ivf")
        arrays = [load_npy(directory / f) for f in ("centroids.npy", "offsets.npy", "order.npy")]
        rows = load_npy(directory / "vectors_by_list.npy", mmap=mmap)  # (N, d)
        content.ivf_arrays(*arrays, rows, directory)
        return cls(*arrays, rows, meta, str(directory))

    def probe(self, q: np.ndarray, nprobe: int) -> np.ndarray:
        """The nprobe lists whose centroids score highest against the (d,) query, best first."""
        return top_k(inner_products(self.centroids, q), nprobe)

    def search(self, q: np.ndarray, k: int, nprobe: int) -> tuple[np.ndarray, np.ndarray, int]:
        """(row ids, scores) of the k best rows of the probed lists, best first (equal scores: lower
        row id), and the distance computations made: nlist + rows scanned."""
        spans = [(self.offsets[lst], self.offsets[lst + 1]) for lst in self.probe(q, nprobe)]
        spans = [(a, b) for a, b in spans if b > a]
        if not spans:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32), self.nlist
        rows = np.concatenate([self.order[a:b] for a, b in spans])                          # (n_scanned,)
        scores = np.concatenate([inner_products(self.vectors[a:b], q) for a, b in spans])  # (n_scanned,)
        best = top_k(scores, k, ids=rows)
        return rows[best], scores[best], self.nlist + len(rows)


def check_built_from(directory: str | Path, meta: dict, sidecar_path: str | Path, sidecar: dict) -> None:
    """Refuse an index whose recorded vectors are not the ones `sidecar` (read from `sidecar_path`)
    now describes: the sha256 of the .npy that the sidecar records, and the sidecar's own."""
    for key, now, what in (("vectors_sha256", sidecar.get("npy_sha256"), "vectors"),
                           ("sidecar_sha256", sha256_file(Path(sidecar_path)), "vectors sidecar")):
        if meta.get(key) != now:
            raise AlignmentError(f"{Path(directory) / 'meta.json'}: the index was built from other {what} than "
                             f"{sidecar_path} describes ({key} {str(meta.get(key))[:12]} vs {str(now)[:12]}); "
                             f"re-run ivf: snakemake -c1 '{Path(directory) / 'meta.json'}'")


def load_ivf(directory: str | Path, sidecar_path: str | Path, sidecar: dict) -> IVFIndex:
    """An ivf stage's index: each file checked against the job's receipt, and built from the
    vectors that `sidecar` describes."""
    for name in IVF_FILES:
        verified(Path(directory) / name, "IVF index")
    index = IVFIndex.open(directory)
    check_built_from(directory, index.meta, sidecar_path, sidecar)
    return index
