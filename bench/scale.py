"""The cost curve: a KB-style build of 10^4, 10^5, 10^6 passages, stage by stage, and query speed.

For each corpus and size the benchmark asks the graph for the corpus (rule synth_corpus:
`data/synth/<n>/`, Zipfian English words over seeded topics; rule replicate_corpus:
`data/synth/scifact/<n>/`, SciFact's 5,183 abstracts followed by perturbed copies), writes a
config for it under bench/out/scale/ (BEIR source; the KB's chunking: a 2,000-token BPE
tokenizer and 150-token chunks with 20 of overlap, or --chunk none for passages as chunks;
BM25 plain k1 1.5 b 0.75; the hashing embedder as a cheap dense channel; their RRF; an IVF
retriever when the tree has an `ivf` kind; no bi-encoder, no reader) and runs
`snakemake -c2 results/<name>.md` for it. Then, per stage (job):

- wall seconds and peak RSS from Snakemake's benchmark files (results/<name>/benchmarks/*.tsv).
  Snakemake samples a job every 0.5 s for its first 15 s, then every 30 s, so its max_rss
  misses peaks (and its cpu_time most of a longer job); this script also reads /proc every
  0.2 s: each job's exact peak RSS (VmHWM; the larger of the two is used) and CPU seconds
  (user + system, the cost measure that load on a shared machine does not inflate);
- the build's peak of the jobs' summed RSS (two run at once on two cores); a build whose sum
  passes --max-rss-gb, or that runs past --timeout-min, is stopped (its process group) and
  the jobs running then are reported;
- the exponent a of cost ~ n^a, fitted by least squares on log cost against log n over the
  sizes measured (a <= 1: linear or better; fixed start-up costs pull a below 1 at small n),
  and each stage's cost at --target (10^6) extrapolated along it from the largest size;
- sizes on disk of the BM25 index and the vectors;
- queries per second, one thread, median of --repeats (CPU seconds of this process), on the
  corpus's test queries: minirag's BM25 index loaded as query/sources.py loads it (receipt-checked)
  beside bm25s (method lucene, same k1 and b; its numba backend when numba is installed, as the
  bench extra installs it, else numpy) indexing the same texts as the same token ids
  (minirag's analyzer and vocabulary), with the share of queries whose top 10 (positive
  scores) are identical, exactly and up to the order of tied scores; flat dense (the hashing
  vectors, exact cosine); IVF through live.open_retriever when the kind exists.

    nice -n 10 .venv/bin/python bench/scale.py [--sizes 10000 100000] [--corpora synth scifact]
        [--chunk tokens|none] [--timeout-min 40] [--max-rss-gb 8] [--json] [--figure bench/scale.png]
    .venv/bin/python bench/scale.py --load bench/out/scale/scale.*.json    # tables and figure again
    .venv/bin/python bench/scale.py --queries-of bench/out/scale/scale.1000000.synth.json  # queries of built rows

SciFact is read from --beir (default ../shared/datasets/scifact beside the repository).
Results stay in results/scale-<corpus>-<n>/; each run deletes them first so that every stage
runs and is measured (--keep reuses them: then only the queries are measured afresh); the
rows so far are saved in bench/out/scale/scale.<sizes>.<corpora>.json after each size.
What it leaves out: repeated builds (one build per size: quote ratios and exponents, not
single timings), and the answer stages (BEIR questions carry no answers).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"  # one thread, before numpy loads

import argparse
import importlib.util
import json
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from topk_compare import positive_top, same_but_ties  # noqa: E402  (bench/, the script's folder)

OUT = ROOT / "bench" / "out" / "scale"
K = 10


# ---------------------------------------------------------------- build


def corpus_name(kind: str, n: int) -> str:
    return f"scale-{kind}-{n}"


def source_folder(kind: str, n: int) -> str:
    return f"data/synth/{n}" if kind == "synth" else f"data/synth/{kind}/{n}"


def write_config(kind: str, n: int, chunk: str, beir: Path, ivf: bool, shards: int = 1,
                 train_cap: int | None = None) -> Path:
    """The KB-style config of one corpus and size: BM25, hashing, their RRF (+ IVF); `shards` jobs
    per sharded stage, the tokenizer trained on a sample of `train_cap` documents."""
    name = corpus_name(kind, n)
    retrievers = {"hashing": {"type": "dense", "embedder": "hashing"},
                  "bm25": {"type": "bm25", "index": "plain"},
                  "hybrid": {"type": "rrf", "of": ["hashing", "bm25"], "k": 60}}
    if ivf:
        retrievers["ivf"] = {"type": "ivf", "embedder": "hashing"}
    corpus = {"source": {"format": "beir", "path": source_folder(kind, n), "split": "test", "default_lang": "en"},
              "chunk": ({"strategy": "tokens", "target_tokens": 150, "overlap": 20} if chunk == "tokens"
                        else {"strategy": "none"}),
              "embedders": {"hashing": {"type": "hashing", "dim": 256}},
              "bm25": {"plain": {"variant": "lucene", "k1": 1.5, "b": 0.75}},
              "retrievers": retrievers, "diagnose": {"embedder": "hashing"}, "depth": 100}
    if chunk == "tokens":
        corpus["tokenizer"] = {"vocab_size": 2000}
    if shards > 1:
        corpus["shards"] = shards
    if train_cap:
        corpus["train_cap"] = train_cap
    config = {"build": [name], "report": name, "synth": {"sources": {"scifact": str(beir)}},
              "corpora": {name: corpus}}
    path = OUT / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def status_value(pid: int, key: str) -> int | None:
    """A kB field of /proc/<pid>/status (VmHWM: the process's peak resident set), or None."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process so far (/proc/<pid>/stat fields 14 and 15)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class PeakWatcher:
    """Polls /proc for this build's stage processes: each job's peak RSS (VmHWM, MB), the peak of
    the jobs' summed RSS (Snakemake runs two at once on two cores), and a memory guard.

    A job is known by its receipt's name (`bm25.plain`) or its stage; only processes whose
    command line names this corpus are counted, so other builds on the machine stay out.
    When the jobs' summed RSS passes `limit_mb`, `on_exceed` is called (once) with the job."""

    def __init__(self, markers: list[str], limit_mb: float | None = None, on_exceed=None, every: float = 0.2):
        self.markers, self.every, self.limit_mb, self.on_exceed = markers, every, limit_mb, on_exceed
        self.peak_mb: dict[str, float] = {}
        self.cpu_s: dict[str, float] = {}    # job -> CPU seconds (user + system) at the last poll it was seen
        self.running: dict[str, float] = {}  # job -> RSS at the last poll, for jobs alive then
        self.peak_sum_mb = 0.0
        self.exceeded: dict | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def job_of(self, argv: list[str]) -> str | None:
        if "-m" not in argv or not any(a.startswith("minirag.stages.") for a in argv):
            return None
        if not any(m in a for m in self.markers for a in argv):
            return None
        if "--receipt" in argv:
            return Path(argv[argv.index("--receipt") + 1]).stem
        return next(a for a in argv if a.startswith("minirag.stages.")).rsplit(".", 1)[1]

    def poll(self) -> None:
        running: dict[str, float] = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                argv = Path(f"/proc/{entry.name}/cmdline").read_bytes().decode(errors="replace").split("\0")
            except OSError:
                continue
            job = self.job_of(argv)
            if not job:
                continue
            hwm, rss = status_value(int(entry.name), "VmHWM"), status_value(int(entry.name), "VmRSS")
            cpu = cpu_seconds(int(entry.name))
            if cpu is not None:
                self.cpu_s[job] = max(self.cpu_s.get(job, 0.0), cpu)
            if hwm:
                self.peak_mb[job] = max(self.peak_mb.get(job, 0.0), hwm / 1024)
            if rss:
                running[job] = running.get(job, 0.0) + rss / 1024
        self.running = running
        total = sum(running.values())
        self.peak_sum_mb = max(self.peak_sum_mb, total)
        if self.limit_mb and total > self.limit_mb and self.exceeded is None:
            self.exceeded = {"jobs_mb": dict(running), "sum_mb": total}
            if self.on_exceed:
                self.on_exceed()

    def _run(self):
        while not self._stop.is_set():
            self.poll()
            self._stop.wait(self.every)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def snakemake(targets: list[str], config: Path, cores: int, timeout_s: float, watcher_markers: list[str],
              limit_mb: float | None = None, profile: str | None = None) -> dict:
    """Run Snakemake in its own process group; stop the whole group at the timeout or when the
    jobs' summed RSS passes `limit_mb` (a guard for the shared machine, and the memory target)."""
    cmd = [str(Path(sys.executable).with_name("snakemake")), f"-c{cores}", *targets, "--configfile", str(config),
           *(["--profile", profile] if profile else [])]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = OUT / f"{config.stem}.snakemake.log"
    t0 = time.perf_counter()
    proc = None

    def stop():
        os.killpg(proc.pid, signal.SIGTERM)  # the group this call started: Snakemake and its jobs

    with PeakWatcher(watcher_markers, limit_mb, stop) as watcher, open(log, "w") as fh:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = proc.wait(timeout=timeout_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            running = dict(watcher.running)
            stop()
            code, timed_out = proc.wait(), True
    wall = time.perf_counter() - t0
    out = {"wall_s": wall, "returncode": code, "timed_out": timed_out, "peak_mb": dict(watcher.peak_mb),
           "cpu_s": dict(watcher.cpu_s),
           "peak_sum_mb": watcher.peak_sum_mb, "memory_stop": watcher.exceeded, "log": str(log.relative_to(ROOT))}
    if timed_out:
        out["running_at_timeout"] = running
    elif code != 0 and watcher.exceeded is None:
        raise SystemExit(f"snakemake failed ({code}); see {log}")
    return out


def read_benchmarks(folder: Path) -> dict[str, dict]:
    """job -> {s, max_rss (MB)} of Snakemake's benchmark files in a folder."""
    import pandas as pd
    out = {}
    for path in sorted(folder.glob("*.tsv")):
        row = pd.read_csv(path, sep="\t").iloc[-1]
        rss = pd.to_numeric(row.get("max_rss"), errors="coerce")
        out[path.stem] = {"s": float(row["s"]), "max_rss_mb": None if pd.isna(rss) else float(rss)}
    return out


def disk_mb(*paths: Path) -> float:
    total = 0
    for p in paths:
        files = [p] if p.is_file() else [q for q in p.rglob("*") if q.is_file()] if p.is_dir() else []
        total += sum(f.stat().st_size for f in files)
    return total / 2**20


def build(kind: str, n: int, args) -> dict:
    from minirag.rank.kinds import KINDS
    name = corpus_name(kind, n)
    has_ivf = "ivf" in KINDS and not args.no_ivf
    config = write_config(kind, n, args.chunk, args.beir, has_ivf, args.shards, args.train_cap)
    results = ROOT / "results" / name
    if not args.keep and results.exists():
        shutil.rmtree(results)
    src = ROOT / source_folder(kind, n)
    gen_log = ROOT / "data" / "synth" / "benchmarks" / (f"synth.{n}.tsv" if kind == "synth" else f"replicate.{kind}.{n}.tsv")
    limit = args.max_rss_gb * 1024
    gen = snakemake([f"{source_folder(kind, n)}/corpus.jsonl"], config, args.cores, args.timeout_min * 60,
                    [f"data/synth/{n}" if kind == "synth" else f"data/synth/{kind}/{n}"], limit)
    if gen["timed_out"] or gen["memory_stop"]:
        raise SystemExit(f"generating {source_folder(kind, n)} did not finish: {gen}")
    run = snakemake([f"results/{name}.md"], config, args.cores, args.timeout_min * 60,
                    [f"results/{name}/", f"results/{name}.md"], limit, args.profile)
    stages = read_benchmarks(results / "benchmarks")
    report = read_benchmarks(ROOT / "results" / "benchmarks").get(name)
    if report:
        stages["report"] = report
    for job, mb in run["peak_mb"].items():
        stages.setdefault(job, {"s": None, "max_rss_mb": None})["hwm_mb"] = mb
    for job, cpu in run["cpu_s"].items():
        stages.setdefault(job, {"s": None, "max_rss_mb": None})["cpu_s"] = cpu
    generator = read_benchmarks(gen_log.parent).get(gen_log.stem, {})
    generator["hwm_mb"] = gen["peak_mb"].get("synth_corpus")
    generator["cpu_s"] = gen["cpu_s"].get("synth_corpus")
    layout = results
    with open(src / "corpus.jsonl", encoding="utf-8") as fh:
        words = sum(len(json.loads(line)["text"].split()) for line in fh)
    return {"corpus": kind, "n": n, "name": name, "config": str(config.relative_to(ROOT)), "words": words,
            "build_wall_s": run["wall_s"], "timed_out": run["timed_out"] or bool(run["memory_stop"]),
            "returncode": run["returncode"], "running_at_timeout": run.get("running_at_timeout"),
            "memory_stop": run["memory_stop"], "build_peak_sum_mb": run["peak_sum_mb"], "generate": generator, "stages": stages,
            "ivf_kind": has_ivf, "shards": args.shards, "train_cap": args.train_cap, "profile": args.profile,
            "disk_mb": {"corpus.jsonl": disk_mb(src / "corpus.jsonl"), "docs.jsonl": disk_mb(layout / "docs.jsonl"),
                        "chunks.jsonl": disk_mb(layout / "chunks.jsonl"),
                        "vectors": disk_mb(layout / "vectors"), "bm25": disk_mb(layout / "bm25" / "plain")},
            "n_chunks": count_lines(layout / "chunks.jsonl")}


def count_lines(path: Path) -> int | None:
    if not path.exists():
        return None
    with open(path, "rb") as fh:
        return sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b""))


# ---------------------------------------------------------------- queries


def test_queries(src: Path, limit: int) -> list[str]:
    """The test queries of a BEIR folder (qrels order), at most `limit`."""
    from minirag.datasets.beir import qrels_path, read_qrels, read_queries
    texts = read_queries(src)
    return [texts[q] for q in read_qrels(qrels_path(src, "test")) if q in texts][:limit]


def timed(fn, repeats: int) -> tuple[float, object]:
    """Median CPU seconds of fn() over `repeats` calls (this process, one thread), and its last result."""
    times, out = [], None
    for _ in range(repeats):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return statistics.median(times), out


def bm25_race(results: Path, queries: list[str], repeats: int) -> dict:
    """minirag's built index (load_bm25: receipt-checked, as query/sources.py loads it) against bm25s
    indexing the same chunks' texts as the same token ids; queries analysed inside both timings."""
    import bm25s

    from minirag.artifacts.io import read_json
    from minirag.index.bm25.index import load_bm25
    from minirag.text.chunks import Chunk, index_text

    folder = results / "bm25" / "plain"
    t0 = time.perf_counter()
    index = load_bm25(folder)
    load_s = time.perf_counter() - t0
    with_context = read_json(folder / "items.json")["with_context"]
    vocab, analyze = index.vocab, index.analyzer
    t0 = time.perf_counter()
    ids = []
    with open(results / "chunks.jsonl", encoding="utf-8") as fh:
        for line in fh:
            text = index_text(Chunk.from_record(json.loads(line)), with_context=with_context)
            ids.append([vocab[t] for t in analyze(text)])  # KeyError: the analysis differs from the index's
    analyze_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    backend = "numba" if importlib.util.find_spec("numba") else "numpy"  # the fastest bm25s backend there is
    peer = bm25s.BM25(k1=index.params.k1, b=index.params.b, method="lucene", backend=backend)
    peer.index((ids, dict(vocab)), show_progress=False)
    peer_index_s = time.perf_counter() - t0
    del ids

    def mine():
        return index.search_batch(queries, K)

    def theirs():
        res = peer.retrieve([analyze.query(q) for q in queries], k=K, n_threads=0, show_progress=False,
                            backend_selection=backend)
        return list(zip(res.documents, res.scores))

    peer.retrieve([analyze.query(q) for q in queries[:2]], k=K, n_threads=0, show_progress=False,
                  backend_selection=backend)  # numba compiles on the first call: not timed

    times: dict[str, list[float]] = {"minirag": [], "bm25s": []}
    found = {}
    for r in range(repeats):  # the two take turns, so load on the machine hits both alike
        for name, fn in (("minirag", mine), ("bm25s", theirs))[::1 if r % 2 == 0 else -1]:
            t, found[name] = timed(fn, 1)
            times[name].append(t)
    a = [positive_top(*x, K) for x in found["minirag"]]
    b = [positive_top(*x, K) for x in found["bm25s"]]
    qps = {name: len(queries) / statistics.median(t) for name, t in times.items()}
    return {"queries": len(queries), "load_s": load_s, "bm25s_backend": backend, "bm25s_analyze_s": analyze_s,
            "bm25s_index_s": peer_index_s,
            "minirag_qps": qps["minirag"], "bm25s_qps": qps["bm25s"], "ratio": qps["minirag"] / qps["bm25s"],
            "top10_identical": sum(x[0] == y[0] for x, y in zip(a, b)) / len(a),
            "top10_identical_but_ties": sum(same_but_ties(x, y) for x, y in zip(a, b)) / len(a)}


def dense_flat(results: Path, queries: list[str], repeats: int) -> dict:
    """Exact cosine over the hashing vectors (receipt-checked), each query embedded then ranked."""
    from minirag.artifacts.integrity import verified
    from minirag.artifacts.io import load_npy, read_json
    from minirag.index.embedders import EMBEDDERS
    from minirag.index.store import FlatVectorStore
    from minirag.index.vectors import vectors_sidecar_path

    npy = results / "vectors" / "hashing.npy"
    t0 = time.perf_counter()
    sidecar = read_json(verified(vectors_sidecar_path(npy), "vectors sidecar"))
    emb = EMBEDDERS[sidecar["params"]["type"]].query_embedder(sidecar, {})
    store = FlatVectorStore(emb)
    store.vectors, store.chunks = load_npy(verified(npy, "vectors")), sidecar["rows"]  # (N, d); rows name them
    load_s = time.perf_counter() - t0
    t, _ = timed(lambda: [store.search_vectors(emb.embed([q]), K) for q in queries], repeats)
    return {"queries": len(queries), "load_s": load_s, "qps": len(queries) / t}


def ivf_live(config: Path, name: str, queries: list[str], repeats: int) -> dict:
    """The ivf retriever and its flat control as `search` opens them (live.open_retriever)."""
    from minirag.config.corpus import corpus_config
    from minirag.config.typed import Corpus
    from minirag.query.built_corpus import open_corpus
    from minirag.query.sources import open_retriever
    cc = corpus_config(yaml.safe_load(config.read_text(encoding="utf-8")), name)
    t0 = time.perf_counter()
    _, _, sources = open_corpus(ROOT / "results", name, cc)
    kinds = Corpus.of(cc)
    ivf, flat = open_retriever(sources, kinds, "ivf"), open_retriever(sources, kinds, "hashing")
    load_s = time.perf_counter() - t0
    t, got = timed(lambda: [[c for c, _ in ivf.search(q, K)] for q in queries], repeats)
    want = [[c for c, _ in flat.search(q, K)] for q in queries]
    recall = statistics.fmean(len(set(g) & set(w)) / max(1, len(w)) for g, w in zip(got, want))
    return {"queries": len(queries), "load_s": load_s, "qps": len(queries) / t, "recall10_vs_flat": recall}


def measure_queries(row: dict, args) -> dict:
    results, src = ROOT / "results" / row["name"], ROOT / source_folder(row["corpus"], row["n"])
    queries = test_queries(src, args.queries)
    out = {"bm25": bm25_race(results, queries, args.repeats),
           "dense_flat": dense_flat(results, queries[:args.dense_queries], args.repeats)}
    out["ivf"] = (ivf_live(ROOT / row["config"], row["name"], queries[:args.dense_queries], args.repeats)
                  if row["ivf_kind"] else {"note": "IVF left out of this build (--no-ivf; bench/ivf.py measures it)"})
    return out


# ---------------------------------------------------------------- fits, table, figure


def cost(stage: dict, what: str) -> float | None:
    """A stage's wall seconds ("s"), CPU seconds ("cpu": this script's reading of /proc; Snakemake's
    cpu_time is sampled like its memory and misses most of a job longer than 15 s) or peak RSS
    ("mb": the larger of Snakemake's and VmHWM)."""
    if what == "s":
        return stage.get("s")
    if what == "cpu":
        return stage.get("cpu_s")
    values = [v for v in (stage.get("max_rss_mb"), stage.get("hwm_mb")) if v]
    return max(values) if values else None


def exponent(ns: list[int], ys: list[float | None]) -> float | None:
    """a of y ~ n^a: least squares slope of log y on log n (None with fewer than two sizes)."""
    pts = [(n, y) for n, y in zip(ns, ys) if y and y > 0]
    if len(pts) < 2:
        return None
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def fits(rows: list[dict], target: int) -> dict:
    """Per corpus and stage: the exponents of wall time, CPU time and peak memory against n, and
    each extrapolated to `target` from the largest size measured."""
    out: dict = {}
    for corpus in dict.fromkeys(r["corpus"] for r in rows):
        mine = sorted((r for r in rows if r["corpus"] == corpus), key=lambda r: r["n"])
        stages = list(dict.fromkeys(s for r in mine for s in r["stages"]))
        per = {}
        for stage in stages + ["(build)"]:
            # a stopped build's finished stages count; its wall time does not
            if stage == "(build)":
                pts = [(r["n"], r["build_wall_s"], sum(cost(st, "cpu") or 0 for st in r["stages"].values()),
                        r.get("build_peak_sum_mb")) for r in mine if not r["timed_out"]]
            else:
                pts = [(r["n"], *(cost(r["stages"][stage], w) for w in ("s", "cpu", "mb")))
                       for r in mine if r["stages"].get(stage, {}).get("s") is not None]
            ns = [p[0] for p in pts]
            per[stage] = {}
            for i, what in enumerate(("wall_s", "cpu_s", "peak_mb"), start=1):
                ys = [p[i] for p in pts]
                a = exponent(ns, ys)
                per[stage][f"{what}_exponent"] = a
                per[stage][f"{what}_at_{target}"] = extrapolate(ns, ys, a, target)
        out[corpus] = per
    return out


def extrapolate(ns: list[int], ys: list, a: float | None, target: int) -> float | None:
    """The cost at `target` from the largest size measured, along n^a."""
    if a is None or not ys[-1]:
        return None
    return ys[-1] * (target / ns[-1]) ** a


def fmt(v, spec=".1f") -> str:
    return "-" if v is None else format(v, spec)


def print_tables(rows: list[dict], fitted: dict, target: int) -> None:
    for corpus, per in fitted.items():
        mine = sorted((r for r in rows if r["corpus"] == corpus), key=lambda r: r["n"])
        print(f"\n{corpus}: wall s / CPU s / peak RSS MB per stage; exponent a of cost ~ n^a (wall, CPU, "
              f"memory); extrapolated to {target:,}")
        head = f"{'stage':18}" + "".join(f"{r['n']:>23,}" for r in mine) + f"{'a wall':>7}{'a cpu':>6}{'a mem':>6}" \
            f"{'wall s@':>9}{'cpu s@':>8}{'MB@':>8}"
        print(head)
        print("-" * len(head))
        for stage, f in per.items():
            cells = ""
            for r in mine:
                if stage == "(build)":
                    cpu = sum(cost(st, "cpu") or 0 for st in r["stages"].values())
                    cell = f"{fmt(r['build_wall_s'], '.0f')}/{fmt(cpu, '.0f')}/{fmt(r.get('build_peak_sum_mb'), '.0f')}"
                    cells += f"{cell + (' stop' if r['timed_out'] else ''):>23}"
                else:
                    st = r["stages"].get(stage, {})
                    cells += f"{fmt(cost(st, 's'))}/{fmt(cost(st, 'cpu'))}/{fmt(cost(st, 'mb'), '.0f'):>5}".rjust(23)
            print(f"{stage:18}{cells}" + "".join(f"{fmt(f[k + '_exponent'], '.2f'):>{w}}" for k, w in
                                                 (("wall_s", 7), ("cpu_s", 6), ("peak_mb", 6)))
                  + "".join(f"{fmt(f[f'{k}_at_{target}'], ',.0f'):>{w}}" for k, w in
                            (("wall_s", 9), ("cpu_s", 8), ("peak_mb", 8))))
    print(f"\n{'corpus':9}{'n':>10}{'chunks':>10}{'words':>13}{'gen s':>7}{'BM25 q/s':>10}{'bm25s q/s':>10}"
          f"{'x bm25s':>8}{'top10 same':>11}{'but ties':>9}{'flat q/s':>9}{'ivf q/s':>8}{'bm25 MB':>8}{'vectors MB':>11}")
    for r in rows:
        q = r.get("queries") or {}
        bm, dn, iv = q.get("bm25", {}), q.get("dense_flat", {}), q.get("ivf", {})
        print(f"{r['corpus']:9}{r['n']:>10,}{fmt(r['n_chunks'], ',d') if r['n_chunks'] else '-':>10}"
              f"{fmt(r['words'], ',d'):>13}{fmt(r['generate'].get('s')):>7}{fmt(bm.get('minirag_qps'), '.0f'):>10}"
              f"{fmt(bm.get('bm25s_qps'), '.0f'):>10}{fmt(bm.get('ratio'), '.2f'):>8}"
              f"{fmt(bm.get('top10_identical'), '.1%'):>11}{fmt(bm.get('top10_identical_but_ties'), '.1%'):>9}{fmt(dn.get('qps'), '.1f'):>9}{fmt(iv.get('qps'), '.1f'):>8}"
              f"{fmt(r['disk_mb']['bm25']):>8}{fmt(r['disk_mb']['vectors']):>11}")
    for r in rows:
        if r["timed_out"]:
            why = (f"jobs' RSS reached {r['memory_stop']['sum_mb']:,.0f} MB" if r.get("memory_stop")
                   else "timeout")
            at = (r.get("memory_stop") or {}).get("jobs_mb") or r.get("running_at_timeout") or {}
            print(f"{r['name']}: stopped after {r['build_wall_s']:,.0f} s ({why}); running then: "
                  + ", ".join(f"{j} ({mb:,.0f} MB)" for j, mb in at.items()))
    notes = {r["queries"]["ivf"]["note"] for r in rows if r.get("queries") and "note" in r["queries"]["ivf"]}
    for note in notes:
        print(f"ivf: {note}")


def grouped(stages: dict[str, dict]) -> dict[str, dict]:
    """A row's jobs with the shard jobs of one stage as one (`embed_shard.3.hashing` ->
    `embed_shard.hashing (x4)`): their seconds summed, the largest peak."""
    out: dict[str, dict] = {}
    count: dict[str, int] = {}
    for job, st in stages.items():
        head, _, rest = job.partition(".")
        shard, _, tail = rest.partition(".")
        key = f"{head}{'.' + tail if tail else ''}" if head.endswith("_shard") and shard.isdigit() else job
        count[key] = count.get(key, 0) + 1
        got = out.setdefault(key, {"s": 0.0, "cpu_s": 0.0, "hwm_mb": 0.0})
        got["s"] += st.get("s") or 0.0
        got["cpu_s"] += cost(st, "cpu") or 0.0
        got["hwm_mb"] = max(got["hwm_mb"], cost(st, "mb") or 0.0)
    return {(f"{k} (x{count[k]})" if count[k] > 1 else k): v for k, v in out.items()}


def figure(rows: list[dict], path: Path) -> None:
    """CPU seconds, wall seconds and peak RSS per stage against passages, log-log (the shard jobs
    of a stage as one line, and the whole build in black); the grey dotted line has slope 1
    (linear cost) for comparison."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = (("cpu", "CPU seconds (user + system)"), ("s", "wall seconds"),
              ("mb", "peak RSS, MB (whole build: the running jobs' sum)"))
    fig, axes = plt.subplots(1, 3, figsize=(19, 5.4))
    styles = {"synth": "-", "scifact": "--"}
    rows = [{**r, "stages": {**grouped(r["stages"]), "whole build": {
        "s": r["build_wall_s"], "cpu_s": sum(cost(st, "cpu") or 0 for st in r["stages"].values()),
        "hwm_mb": r.get("build_peak_sum_mb")}}} for r in rows if not r["timed_out"]]
    stages = sorted({s for r in rows for s in r["stages"]} - {"whole build"}) + ["whole build"]
    colors = {s: plt.cm.tab20(i % 20) for i, s in enumerate(stages)}
    colors["whole build"] = "black"
    for corpus in dict.fromkeys(r["corpus"] for r in rows):
        done = sorted((r for r in rows if r["corpus"] == corpus), key=lambda r: r["n"])
        for stage in stages:
            for ax, (what, _) in zip(axes, panels):
                xy = [(r["n"], cost(r["stages"][stage], what)) for r in done
                      if r["stages"].get(stage, {}).get("s") is not None and cost(r["stages"][stage], what)]
                if xy:
                    ax.plot(*zip(*xy), styles.get(corpus, ":"), marker="o", color=colors[stage],
                            linewidth=2.5 if stage == "whole build" else 1.2,
                            label=stage if corpus == rows[0]["corpus"] else None)
    ns = sorted({r["n"] for r in rows})
    for ax, (what, label) in zip(axes, panels):
        ax.set_xscale("log")
        ax.set_yscale("log")
        lo, hi = ax.get_ylim()
        ref = np.sqrt(lo * hi)
        ax.plot([ns[0], ns[-1]], [ref, ref * ns[-1] / ns[0]], ":", color="grey", label="slope 1 (linear)")
        ax.set_ylim(lo, max(hi, ref * ns[-1] / ns[0]))
        ax.set_xlabel("passages")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    axes[1].axhline(30 * 60, color="red", linestyle="-.", linewidth=1, label="target at 10^6: 30 min, 8 GB")
    axes[2].axhline(8 * 1024, color="red", linestyle="-.", linewidth=1)
    for ax, top in ((axes[1], 30 * 60), (axes[2], 8 * 1024)):
        ax.set_ylim(top=max(ax.get_ylim()[1], 1.5 * top))
    axes[0].set_title("CPU time per stage (solid: synthetic, dashed: SciFact replicated)")
    axes[1].set_title("wall time per stage")
    axes[2].set_title("peak memory per stage")
    seen: dict = {}  # the stages' lines (one panel) and the targets' (another), each label once
    for ax in axes[1:]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    axes[2].legend(list(seen.values()), list(seen), fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--corpora", nargs="+", default=["synth", "scifact"], help="synth, or a BEIR dataset to replicate")
    ap.add_argument("--beir", type=Path, default=ROOT.parent / "shared" / "datasets" / "scifact",
                    help="the BEIR folder replicated for the scifact corpus")
    ap.add_argument("--chunk", choices=["tokens", "none"], default="tokens",
                    help="tokens: the KB's BPE + 150-token chunks; none: a passage is a chunk")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--profile", help="build through this Snakemake profile (e.g. workflow/profiles/budget)")
    ap.add_argument("--no-ivf", action="store_true", help="leave the IVF retriever out of the build")
    ap.add_argument("--shards", type=int, default=1, help="the corpus setting shards: jobs per sharded stage")
    ap.add_argument("--train-cap", type=int, default=None,
                    help="the corpus setting train_cap: the tokenizer trains on this many documents at most")
    ap.add_argument("--timeout-min", type=float, default=40, help="stop a build (or a generation) after this long")
    ap.add_argument("--max-rss-gb", type=float, default=8.0,
                    help="stop a build when its jobs' summed RSS passes this (the target, and a guard)")
    ap.add_argument("--queries", type=int, default=1000, help="test queries for BM25")
    ap.add_argument("--dense-queries", type=int, default=200, help="of them, for the dense channels")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--target", type=int, default=1_000_000, help="the size costs are extrapolated to")
    ap.add_argument("--keep", action="store_true",
                    help="keep built results (by default each corpus's results are deleted first, so every stage "
                         "runs and is measured)")
    ap.add_argument("--no-queries", action="store_true", help="build and fit only")
    ap.add_argument("--figure", type=Path, default=ROOT / "bench" / "scale.png")
    ap.add_argument("--json", action="store_true", help="print JSON instead of the tables")
    ap.add_argument("--load", type=Path, nargs="+",
                    help="build nothing: fit, print and draw the rows of earlier runs (their --json or scale.json)")
    ap.add_argument("--queries-of", type=Path, nargs="+",
                    help="build nothing: measure the queries of the rows of earlier runs (their results still "
                         "built) and write them into those files")
    args = ap.parse_args(argv)
    if args.queries_of:
        for path in args.queries_of:
            rows = json.loads(path.read_text(encoding="utf-8"))
            for row in rows:
                print(f"queries of {row['name']} ...", file=sys.stderr, flush=True)
                row["queries"] = measure_queries(row, args)
                path.write_text(json.dumps(rows, indent=1), encoding="utf-8")
        return
    if args.load:
        rows = []
        for path in args.load:
            data = json.loads(path.read_text(encoding="utf-8"))
            rows += data["rows"] if isinstance(data, dict) else data
        return report(rows, args)
    if "scifact" in args.corpora and not (args.beir / "corpus.jsonl").exists():
        raise SystemExit(f"{args.beir}: no corpus.jsonl (pass --beir DIR, a BEIR folder of SciFact)")
    rows = []
    partial = OUT / f"scale.{'-'.join(map(str, sorted(args.sizes)))}.{'-'.join(args.corpora)}.json"
    for n in sorted(args.sizes):
        for corpus in args.corpora:
            print(f"building {corpus_name(corpus, n)} ...", file=sys.stderr, flush=True)
            row = build(corpus, n, args)
            if not row["timed_out"] and not args.no_queries:
                row["queries"] = measure_queries(row, args)
            rows.append(row)
            partial.write_text(json.dumps(rows, indent=1), encoding="utf-8")  # what is done survives a stop
    report(rows, args)


def report(rows: list[dict], args) -> None:
    fitted = fits(rows, args.target)
    if args.figure:
        figure(rows, args.figure)
    if args.json:
        print(json.dumps({"cores": args.cores, "chunk": args.chunk, "rows": rows, "fits": fitted}, indent=1))
        return
    print_tables(rows, fitted, args.target)


if __name__ == "__main__":
    main()
