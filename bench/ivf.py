"""The IVF index (minirag/index/ivf.py) against the flat store: recall@10, distance computations,
query latency, build time and memory, at 10^4, 10^5 and 10^6 vectors and on real vectors.

    python bench/ivf.py [--sizes 10000 100000 1000000] [--queries 200] [--nprobe 1 2 4 8 16 32 64]
                        [--real-results results] [--workdir DIR] [--json]

Synthetic (d = 384, float32, unit rows): a mixture of small Gaussian clusters (about 3 rows each,
log-normal sizes and spreads) around sqrt(clusters) topic centres, plus a shared mean direction,
all drawn in a fixed random rotation with a power-law covariance spectrum (anisotropic), then
L2-normalised. Queries are held-out rows of the same mixture (not in the index), perturbed by
the same anisotropic noise. Its parameters were fitted, at N = 5,183 with 64 lists, to the
IVF recall@10 of SciFact's all-MiniLM-L6-v2 vectors and real test claims at nprobe 1, 4 and 16
(a cleanly clustered mixture is far easier than real embeddings: recall 0.99 at nprobe 4),
then to their nearest-neighbour cosines and covariance spectrum; `--calibrate` prints both.
`--mixture clustered` is the first fit, to the cosine statistics alone: well-separated clusters
of about 8 rows, on which IVF looks far better than on real vectors (shown for contrast).
The rows are generated block by block into a memory-mapped .npy under --workdir (10^6 rows:
1.5 GB), never all in RAM.

Real: the built SciFact corpus's `minilm` and `hashing` vectors and the KB's `minilm` vectors
(--real-results, default results/), with their real test questions embedded by the same
embedder; skipped when they are not built.

Per corpus: nlist = the power of two nearest 2 sqrt(N) (`--nlist` to fix it), k-means on
min(N, 64 x nlist) rows (`--train-per-list`), 20 rounds at most, seed 0. The build runs in a
child process: its wall time, its peak RSS (VmHWM: resource.getrusage's ru_maxrss, but counted
from the child's exec; it includes the memory-mapped file pages it touched) and its peak
anonymous RSS (sampled every 20 ms: the RAM it allocated). The searches
run in another child over the memory-mapped index, one query at a time, one warm-up pass:
recall@10 against the flat store's top 10 (same scoring function), distance computations
(nlist + rows scanned) against N, p50/p95 latency, and the flat store's p50 over the same
vectors in the same run as the peer.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minirag.index.ivf import IVFIndex, IVFSettings, build_ivf  # noqa: E402
from minirag.index.store import inner_products, top_k  # noqa: E402

D, K, BLOCK = 384, 10, 65536
MIXTURES = {  # see the module docstring: "hard" is fitted to real vectors' IVF recall, "clustered" is not
    "hard": {"alpha": 0.75, "noise": 1.0, "clusters": 0.8, "mean": 1.0, "topics": 0.6, "per_cluster": 3,
             "spread": 0.3, "query_noise": 0.7},
    "clustered": {"alpha": 0.6, "noise": 1.3, "clusters": 0.9, "mean": 0.7, "topics": 1.2, "per_cluster": 8,
                  "spread": 0.3, "query_noise": 0.5},
}


# ------------------------------------------------------------------ synthetic vectors

def mixture(n: int, p: dict, seed: int = 0) -> dict:
    """The generating model of an n-row corpus: basis, cluster centres, weights, spreads."""
    rng = np.random.default_rng(seed)
    rotation, _ = np.linalg.qr(rng.standard_normal((D, D)))
    spectrum = np.arange(1, D + 1, dtype=np.float64) ** (-p["alpha"])  # power-law variances
    basis = (np.sqrt(spectrum / spectrum.sum())[:, None] * rotation.T).astype(np.float32)  # (D, D)
    mean = rng.standard_normal(D).astype(np.float32)
    clusters = max(8, n // p["per_cluster"])
    topics = p["topics"] * (rng.standard_normal((max(4, round(clusters ** 0.5)), D)).astype(np.float32) @ basis)
    centres = (p["mean"] * mean / np.linalg.norm(mean) + topics[rng.integers(0, len(topics), clusters)]
               + p["clusters"] * (rng.standard_normal((clusters, D)).astype(np.float32) @ basis))  # (C, D)
    weights = rng.lognormal(0.0, 1.0, clusters)
    spreads = p["noise"] * rng.lognormal(0.0, p["spread"], clusters).astype(np.float32)  # (C,)
    return {"basis": basis, "centres": centres.astype(np.float32), "p": weights / weights.sum(), "spreads": spreads}


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def draw(m: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, D) unit rows of the mixture."""
    label = rng.choice(len(m["p"]), size=n, p=m["p"])
    noise = rng.standard_normal((n, D)).astype(np.float32) @ m["basis"]  # (n, D) anisotropic
    return unit(m["centres"][label] + m["spreads"][label][:, None] * noise)


def synthetic(n: int, nq: int, workdir: Path, kind: str = "hard") -> tuple[Path, np.ndarray]:
    """An (n, D) .npy written block by block through a memory map, and (nq, D) held-out queries."""
    m = mixture(n, MIXTURES[kind])
    path = workdir / f"synthetic-{kind}-{n}.npy"
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, D))
    for b, a in enumerate(range(0, n, BLOCK)):
        out[a:a + BLOCK] = draw(m, min(BLOCK, n - a), np.random.default_rng([0, b]))
    out.flush()
    del out
    rng = np.random.default_rng([1, n])
    held = draw(m, nq, rng)
    return path, unit(held + MIXTURES[kind]["query_noise"] * (rng.standard_normal(held.shape).astype(np.float32) @ m["basis"]))


def describe(x: np.ndarray, q: np.ndarray) -> dict:
    """The statistics the mixture was fitted to (x: a few thousand rows)."""
    s = x @ x.T
    np.fill_diagonal(s, -np.inf)
    nn = -np.sort(-s, axis=1)
    pairs = s[np.triu_indices(len(x), 1)]
    ev = np.sort(np.linalg.eigvalsh(np.cov(x.T)))[::-1]
    sq = -np.sort(-(q @ x.T), axis=1)
    return {"pair_cos_mean": pairs.mean(), "pair_cos_sd": pairs.std(), "nn1_cos": nn[:, 0].mean(),
            "nn10_cos": nn[:, 9].mean(), "mean_vector_norm": np.linalg.norm(x.mean(0)),
            "top10_eigen_share": ev[:10].sum() / ev.sum(), "top50_eigen_share": ev[:50].sum() / ev.sum(),
            "query_top1_cos": sq[:, 0].mean(), "query_top10_cos": sq[:, 9].mean()}


# ------------------------------------------------------------------ real vectors

def real_sets(results: Path, nq: int) -> list[tuple[str, Path, np.ndarray]]:
    """(name, vectors .npy, query vectors) of the built corpora's real vectors and test questions."""
    from minirag.artifacts.integrity import load_records
    from minirag.config.load import load_corpus
    from minirag.index.vectors import load_vectors
    from minirag.query.built_corpus import open_corpus
    repo = Path(__file__).resolve().parents[1]
    out = []
    for corpus, config, embedders in (("scifact", "config.scifact.yaml", ("minilm", "hashing")),
                                      ("kb", "config.yaml", ("minilm",))):
        try:
            cc = load_corpus(repo / "workflow" / config, corpus)
            layout, chunks, sources = open_corpus(results, corpus, cc)
            qs = load_records(layout.questions, "questions")[:nq]
            for e in embedders:
                _, sidecar = load_vectors(layout.vectors(e), chunks)
                embed = sources.query_embedder(e, sidecar)
                out.append((f"{corpus}/{e} (real)", layout.vectors(e), np.vstack([embed.embed([q["query"]]) for q in qs])))
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            print(f"skipped real {corpus}: {exc}", file=sys.stderr)
    return out


# ------------------------------------------------------------------ the children

def status_mb(key: str) -> float:
    """A memory figure of this process from /proc/self/status (Linux), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def peak_anon(stop: threading.Event, peak: list) -> None:
    while not stop.wait(0.02):
        peak[0] = max(peak[0], status_mb("RssAnon"))


def child(args: dict) -> dict:
    """Build (args["build"]) or search (args["search"]) in this fresh process; what it measured."""
    stop, peak = threading.Event(), [0.0]
    threading.Thread(target=peak_anon, args=(stop, peak), daemon=True).start()
    if "build" in args:
        t0 = time.perf_counter()
        build_ivf(args["vectors"], args["build"], IVFSettings(**args["settings"]), {"embedder": "bench"})
        out = {"build_s": time.perf_counter() - t0}
    else:
        ix = IVFIndex.open(args["search"])
        queries = np.load(args["queries"])
        out = {"grid": {}}
        for nprobe in args["nprobe"]:
            for q in queries[:5]:
                ix.search(q, K, nprobe)  # warm-up: pages of the probed lists, caches
            ids, ms, comps = [], [], []
            for q in queries:
                t0 = time.perf_counter()
                rows, _, computed = ix.search(q, K, nprobe)
                ms.append((time.perf_counter() - t0) * 1000)
                ids.append(rows.tolist())
                comps.append(computed)
            out["grid"][nprobe] = {"ids": ids, "ms": ms, "computations": comps}
    stop.set()
    # getrusage's ru_maxrss survives exec: a child of a parent holding 2 GB would report 2 GB.
    # VmHWM is the same high-water mark of resident pages, counted from this program's start.
    out["peak_rss_mb"] = status_mb("VmHWM")
    out["ru_maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["peak_anon_mb"] = peak[0]
    return out


def in_child(args: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.run([sys.executable, __file__, "--child", json.dumps(args)], capture_output=True, text=True,
                          env=env, check=True)
    return json.loads(proc.stdout)


# ------------------------------------------------------------------ one corpus

def flat(x: np.ndarray, queries: np.ndarray) -> tuple[list[set], list[float]]:
    """The flat store's top 10 of every query (its own functions) and its per-query milliseconds."""
    truth, ms = [], []
    top_k(inner_products(x, queries[0]), K)  # warm-up
    for q in queries:
        t0 = time.perf_counter()
        idx = top_k(inner_products(x, q), K)
        ms.append((time.perf_counter() - t0) * 1000)
        truth.append(set(idx.tolist()))
    return truth, ms


def bench_one(name: str, vectors: Path, queries: np.ndarray, a, workdir: Path) -> dict:
    x = np.load(vectors, mmap_mode="r")  # (N, D)
    n = x.shape[0]
    nlist = a.nlist or 2 ** round(np.log2(2 * np.sqrt(n)))
    settings = {"nlist": nlist, "seed": 0, "iterations": 20, "train_per_list": a.train_per_list}
    index = workdir / f"ivf-{n}-{name.replace('/', '-').replace(' ', '-')}"
    build = in_child({"build": str(index), "vectors": str(vectors), "settings": settings})
    np.save(workdir / "queries.npy", queries)
    nprobe = [p for p in a.nprobe if p <= nlist] + ([nlist] if nlist not in a.nprobe else [])
    search = in_child({"search": str(index), "queries": str(workdir / "queries.npy"), "nprobe": nprobe})
    truth, flat_ms = flat(x, queries)
    files = {f.name: f.stat().st_size for f in index.iterdir()}
    row = {"corpus": name, "rows": n, "dim": x.shape[1], "queries": len(queries), "nlist": nlist, **settings,
           "build_s": build["build_s"], "build_peak_rss_mb": build["peak_rss_mb"],
           "build_peak_anon_mb": build["peak_anon_mb"], "search_peak_anon_mb": search["peak_anon_mb"],
           "index_mb": sum(files.values()) / 2 ** 20,
           "index_mb_without_copy": (sum(files.values()) - files["vectors_by_list.npy"]) / 2 ** 20,
           "flat_p50_ms": statistics.median(flat_ms), "grid": []}
    for p, g in search["grid"].items():
        recall = statistics.mean(len(t & set(ids)) / K for t, ids in zip(truth, g["ids"]))
        comps = statistics.mean(g["computations"])
        row["grid"].append({"nprobe": int(p), "recall@10": recall, "computations": comps, "fewer_x": n / comps,
                            "p50_ms": statistics.median(g["ms"]), "p95_ms": float(np.percentile(g["ms"], 95))})
    for f in index.iterdir():
        f.unlink()
    index.rmdir()
    return row


def print_table(rows: list[dict]) -> None:
    for r in rows:
        print(f"\n{r['corpus']}: N={r['rows']:,} d={r['dim']} nlist={r['nlist']} (k-means on "
              f"{min(r['rows'], r['nlist'] * r['train_per_list']):,} rows), {r['queries']} queries")
        print(f"  build {r['build_s']:.1f} s; peak RSS {r['build_peak_rss_mb']:.0f} MB (anonymous "
              f"{r['build_peak_anon_mb']:.0f} MB); index on disk {r['index_mb']:.1f} MB "
              f"({r['index_mb_without_copy']:.1f} MB without the list-ordered copy); search anonymous RSS "
              f"{r['search_peak_anon_mb']:.0f} MB; flat p50 {r['flat_p50_ms']:.2f} ms")
        print(f"  {'nprobe':>6} {'recall@10':>9} {'dist. comp.':>11} {'x fewer':>8} {'p50 ms':>7} {'p95 ms':>7} "
              f"{'flat/ivf p50':>12}")
        for g in r["grid"]:
            print(f"  {g['nprobe']:6d} {g['recall@10']:9.3f} {g['computations']:11,.0f} {g['fewer_x']:8.1f} "
                  f"{g['p50_ms']:7.2f} {g['p95_ms']:7.2f} {r['flat_p50_ms'] / g['p50_ms']:12.1f}")


def clean(workdir: Path) -> None:
    for f in workdir.iterdir():
        f.unlink()
    workdir.rmdir()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--nprobe", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32, 64, 128])
    ap.add_argument("--nlist", type=int, default=0, help="fix nlist (default: the power of two nearest 2 sqrt(N))")
    ap.add_argument("--mixture", nargs="+", choices=list(MIXTURES), default=["hard"])
    ap.add_argument("--train-per-list", type=int, default=64)
    ap.add_argument("--real-results", type=Path, default=Path("results"), help="built results/ for the real check")
    ap.add_argument("--no-real", action="store_true")
    ap.add_argument("--calibrate", action="store_true", help="print the mixture's statistics against SciFact minilm")
    ap.add_argument("--workdir", type=Path, default=None, help="where the synthetic .npy go (default: a temp dir)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(json.loads(a.child))))
        return 0
    workdir = Path(tempfile.mkdtemp(prefix="ivf-bench-", dir=a.workdir))
    real = [] if a.no_real else real_sets(a.real_results, a.queries)
    if a.calibrate:  # the synthetic mixture at SciFact's size against SciFact's minilm vectors
        sets = [(f"synthetic {k}", *synthetic(5183, a.queries, workdir, k)) for k in a.mixture]
        sets += [r for r in real if r[0].startswith("scifact/minilm")]
        a.nlist, a.nprobe = 64, [1, 4, 16]
        for name, path, q in sets:
            row = bench_one(name, path, q, a, workdir)
            stats = describe(np.load(path), q)
            print(f"{name}: " + " ".join(f"{k} {v:.3f}" for k, v in stats.items()) + " | recall@10 at nprobe "
                  + " ".join(f"{g['nprobe']}: {g['recall@10']:.3f}" for g in row["grid"][:3]))
        clean(workdir)
        return 0
    rows = [bench_one(name, path, q, a, workdir) for name, path, q in real]
    for kind in a.mixture:
        for n in a.sizes:
            path, queries = synthetic(n, a.queries, workdir, kind)
            rows.append(bench_one(f"synthetic {kind}", path, queries, a, workdir))
            path.unlink()
    clean(workdir)
    if a.json:
        print(json.dumps(rows, indent=2, default=float))
    else:
        print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
