"""The IVF index: seeded, byte-identical builds; exactly the flat store's ranking when every list
is probed; recall and cost growing with nprobe; a memory map searching as RAM does; an index of
other vectors refused; and, on the fixture corpus, what a change of nprobe, nlist or the vectors
rebuilds (snakemake -n), and a live search ranking as the run file."""

import json
import re
import sys

import numpy as np
import pytest
from support.chunks import make_chunk
from support.project import MINI_CORPUS, copy_project, run, snakemake

from minirag.artifacts.io import save_npy
from minirag.artifacts.layout import IVF_FILES
from minirag.index.hashing import HashingEmbedder
from minirag.index.ivf import IVFIndex, IVFSettings, build_ivf, check_built_from
from minirag.index.store import FlatVectorStore, inner_products, top_k
from minirag.index.vectors import AlignmentError, save_vectors, vectors_sidecar_path


def clustered(n: int, d: int = 32, clusters: int = 24, seed: int = 0) -> np.ndarray:
    """(n, d) unit rows around `clusters` centres, with a few exact duplicates (ties)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, d))
    x = centres[rng.integers(0, clusters, n)] + 0.6 * rng.standard_normal((n, d))
    x[5:9] = x[4]  # four rows equal to row 4: their scores tie exactly
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def queries(x: np.ndarray, n: int = 40, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    q = x[rng.integers(0, len(x), n)] + 0.3 * rng.standard_normal((n, x.shape[1]))
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("ivf")
    x = clustered(1500)
    save_npy(root / "v.npy", x)
    build_ivf(root / "v.npy", root / "a", IVFSettings(nlist=16), {"embedder": "test"})
    return root, x


def test_the_same_seed_writes_byte_identical_files_and_another_seed_other_lists(data):
    root, _ = data
    build_ivf(root / "v.npy", root / "again", IVFSettings(nlist=16), {"embedder": "test"})
    for name in IVF_FILES:
        assert (root / "a" / name).read_bytes() == (root / "again" / name).read_bytes(), name
    build_ivf(root / "v.npy", root / "seed1", IVFSettings(nlist=16, seed=1), {"embedder": "test"})
    assert not np.array_equal(np.load(root / "a" / "centroids.npy"), np.load(root / "seed1" / "centroids.npy"))


def test_the_files_describe_every_row_once_grouped_by_list(data):
    root, x = data
    ix = IVFIndex.open(root / "a")
    assert sorted(ix.order.tolist()) == list(range(len(x)))
    assert ix.offsets[-1] == len(x) and np.all(np.diff(ix.offsets) >= 0)
    assert np.array_equal(np.asarray(ix.vectors), x[ix.order])
    meta = json.loads((root / "a" / "meta.json").read_text())
    assert meta["counts"] == np.diff(ix.offsets).tolist() and meta["rows"] == len(x) and meta["nlist"] == 16
    # each row sits in the list of its best centroid
    best = (x @ ix.centroids.T).argmax(axis=1)
    lists = np.repeat(np.arange(16), np.diff(ix.offsets))
    assert np.array_equal(best[ix.order], lists)


def test_scores_do_not_depend_on_which_rows_are_scored_together():
    x, q = clustered(700, d=384), queries(clustered(50, d=384), 1)[0]
    whole = inner_products(x, q)
    rng = np.random.default_rng(0)
    cuts = np.sort(rng.choice(np.arange(1, 700), 40, replace=False))
    parts = np.concatenate([inner_products(part, q) for part in np.split(x, cuts)])
    assert np.array_equal(whole, parts)
    assert np.array_equal(inner_products(x[::-1].copy(), q), whole[::-1])


def test_top_k_breaks_ties_by_the_lower_id_also_at_the_cut():
    scores = np.array([0.5, 0.9, 0.5, 0.9, 0.5], dtype=np.float32)
    assert top_k(scores, 3).tolist() == [1, 3, 0]
    assert top_k(scores, 3, ids=np.array([9, 8, 7, 6, 5])).tolist() == [3, 1, 4]


def test_probing_every_list_is_exactly_the_flat_store(data):
    root, x = data
    ix = IVFIndex.open(root / "a")
    store = FlatVectorStore(HashingEmbedder(dim=x.shape[1]))
    store.add([make_chunk(f"c{i}", offset=i) for i in range(len(x))], x)
    qs = np.vstack([queries(x), x[4:5]])  # the last query ties rows 4..8 at the top
    for q, (flat_ids, flat_scores) in zip(qs, store.search_vectors(qs, 20)):
        ids, scores, computed = ix.search(q, 20, nprobe=16)
        assert np.array_equal(ids, flat_ids) and np.array_equal(scores, flat_scores)
        assert computed == 16 + len(x)
    assert ix.search(x[4], 6, nprobe=16)[0].tolist()[:5] == [4, 5, 6, 7, 8]


def test_recall_and_cost_grow_with_nprobe(data):
    root, x = data
    ix = IVFIndex.open(root / "a")
    recalls, costs = [], []
    for nprobe in (1, 2, 4, 8, 16):
        per_query = []
        for q in queries(x):
            truth = set(top_k(inner_products(x, q), 10).tolist())
            ids, _, computed = ix.search(q, 10, nprobe)
            per_query.append((len(truth & set(ids.tolist())) / 10, computed))
        recalls.append([r for r, _ in per_query])
        costs.append([c for _, c in per_query])
    recalls, costs = np.array(recalls), np.array(costs)  # (5, Q)
    assert np.all(np.diff(recalls, axis=0) >= 0) and np.all(np.diff(costs, axis=0) > 0)
    assert recalls[0].mean() < 0.9 and recalls[-1].min() == 1.0
    assert costs[0].mean() < len(x) / 4  # one list of 16 reads far less than the flat scan


def test_a_memory_mapped_index_searches_as_one_in_ram(data):
    root, x = data
    mapped, loaded = IVFIndex.open(root / "a"), IVFIndex.open(root / "a", mmap=False)
    assert isinstance(mapped.vectors, np.memmap) and not isinstance(loaded.vectors, np.memmap)
    for q in queries(x, 10):
        for a, b in zip(mapped.search(q, 10, 3), loaded.search(q, 10, 3)):
            assert np.array_equal(a, b)


def test_an_index_of_other_vectors_is_refused_naming_the_file(tmp_path):
    chunks = [make_chunk(f"text {i}", offset=i) for i in range(40)]
    save_vectors(tmp_path / "v.npy", clustered(40), chunks, {"params": {"type": "hashing"}})
    sidecar = json.loads(vectors_sidecar_path(tmp_path / "v.npy").read_text())
    build_ivf(tmp_path / "v.npy", tmp_path / "ix", IVFSettings(nlist=4), {
        "embedder": "h", "vectors_sha256": sidecar["npy_sha256"],
        "sidecar_sha256": __import__("hashlib").sha256(vectors_sidecar_path(tmp_path / "v.npy").read_bytes()).hexdigest()})
    meta = IVFIndex.open(tmp_path / "ix").meta
    check_built_from(tmp_path / "ix", meta, vectors_sidecar_path(tmp_path / "v.npy"), sidecar)  # the same: accepted
    save_vectors(tmp_path / "v.npy", clustered(40, seed=3), chunks, {"params": {"type": "hashing"}})  # re-embedded
    sidecar = json.loads(vectors_sidecar_path(tmp_path / "v.npy").read_text())
    with pytest.raises(AlignmentError, match=r"ix/meta.json: the index was built from other vectors .*re-run ivf"):
        check_built_from(tmp_path / "ix", meta, vectors_sidecar_path(tmp_path / "v.npy"), sidecar)


def test_more_lists_than_vectors_is_an_error_naming_the_file(tmp_path):
    save_npy(tmp_path / "v.npy", clustered(10))
    with pytest.raises(ValueError, match=r"v.npy: 10 vectors cannot fill nlist=16 lists"):
        build_ivf(tmp_path / "v.npy", tmp_path / "ix", IVFSettings(nlist=16), {})


# ---------------------------------------------------------------- the rule, on the fixture corpus

IVF_CONFIG = MINI_CORPUS + """\
    embedders:
      hashing: {type: hashing, dim: 64}
    retrievers:
      dense: {type: dense, embedder: hashing}
      ivf: {type: ivf, embedder: hashing, nlist: 4, nprobe: 1, sweep: {nprobe: [4]}}
    readers:
      extractive: {type: extractive}
"""
RUNS = ["results/mini/runs/dense.trec", "results/mini/runs/ivf.trec", "results/mini/runs/ivf@nprobe=4.trec"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("wf"))
    (project / "ivf.yaml").write_text(IVF_CONFIG, encoding="utf-8")
    snakemake(project, *RUNS, configfile="ivf.yaml")
    return project


def planned(project, old: str, new: str) -> dict[str, int]:
    """The jobs `snakemake -n` plans for the runs with one edit of the config (undone after)."""
    cfg = project / "ivf.yaml"
    text = cfg.read_text()
    cfg.write_text(text.replace(old, new, 1))
    try:
        out = snakemake(project, "-n", *RUNS, configfile="ivf.yaml").stdout
    finally:
        cfg.write_text(text)
    if "Nothing to be done" in out:
        return {}
    table = out.split("Job stats:")[1].split("total")[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.MULTILINE)}


@pytest.mark.workflow
def test_nprobe_reruns_retrieve_only_and_nlist_or_the_vectors_rebuild_the_index(built):
    assert planned(built, "nprobe: 1,", "nprobe: 2,") == {"retrieve": 1}
    assert planned(built, "nlist: 4,", "nlist: 3,") == {"ivf": 1, "retrieve": 2}  # ivf and ivf@nprobe=4 share it
    assert planned(built, "dim: 64", "dim: 48") == {"embed": 1, "ivf": 1, "retrieve": 3}


@pytest.mark.workflow
def test_probing_every_list_writes_the_dense_run_and_search_ranks_as_the_run_file(built):
    from minirag.evaluation.trec import read_run
    root = built / "results" / "mini"
    assert (root / "runs" / "ivf@nprobe=4.trec").read_text().replace(" ivf@nprobe=4\n", "\n") == \
        (root / "runs" / "dense.trec").read_text().replace(" dense\n", "\n")
    ivf, dense = read_run(root / "runs" / "ivf.trec"), read_run(root / "runs" / "dense.trec")
    assert all(len(ivf[q]) < len(dense[q]) for q in dense)  # one list of four: only its rows
    proc = run([sys.executable, "-m", "minirag", "search", "past tense of try", "--retriever", "ivf", "-k", "5",
                "--json", "--corpus", "mini", "--configfile", "ivf.yaml"], built)
    assert [(r["chunk_id"], r["score"]) for r in json.loads(proc.stdout)["results"]] == ivf["f-03"][:5]
    index = next((root / "ivf").iterdir())
    assert index.name == "hashing.nlist=4.seed=0.iterations=20.train_per_list=256"
    assert json.loads((index / "meta.json").read_text())["vectors_sha256"] == \
        json.loads((root / "vectors" / "hashing.json").read_text())["npy_sha256"]


@pytest.mark.workflow
def test_search_refuses_an_index_built_from_other_vectors(built):
    root = built / "results" / "mini"
    files = [root / "vectors" / "hashing.npy", root / "vectors" / "hashing.json", root / "receipts" / "embed.hashing.json"]
    saved = {f: f.read_bytes() for f in files}
    settings = {**json.loads(files[2].read_text())["settings"], "dim": 48}
    try:  # the embed job re-run with another setting, and not the ivf job
        run([sys.executable, "-m", "minirag.stages.embed", "--name", "hashing", "--settings", json.dumps(settings),
             "--docs", "results/mini/docs.jsonl", "--chunks", "results/mini/chunks.jsonl",
             "--out", "results/mini/vectors/hashing.npy", "--receipt", "results/mini/receipts/embed.hashing.json"], built)
        proc = run([sys.executable, "-m", "minirag", "search", "past tense of try", "--retriever", "ivf",
                    "--corpus", "mini", "--configfile", "ivf.yaml"], built, check=False)
    finally:
        for f, data in saved.items():
            f.write_bytes(data)
    assert proc.returncode != 0
    assert re.search(r"ivf/hashing\.nlist=4[^ ]*/meta\.json: the index was built from other vectors .*re-run ivf",
                     proc.stderr), proc.stderr


@pytest.mark.workflow
def test_a_served_snapshot_includes_the_ivf_lists(built):
    """The server copies what its retrievers read before swapping a rebuild in: IVF's lists too."""
    from minirag.config.load import load_corpus
    from minirag.serve.state import served_files
    root = built / "results" / "mini"
    served = set(served_files(load_corpus(built / "ivf.yaml", "mini"), root))
    assert {p for p in (root / "ivf").rglob("*") if p.is_file()} <= served and (root / "ivf").is_dir()
