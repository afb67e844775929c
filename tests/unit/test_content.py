"""Content checks (minirag/artifacts/content.py): each artifact kind's function accepts what a stage writes
and refuses, naming the file and what is wrong, what no stage writes."""

import json

import numpy as np
import pytest

from minirag.artifacts import content
from minirag.artifacts.content import ContentError


def sidecar(n, d):
    return {"shape": [n, d], "rows": [[f"c{i}", "x"] for i in range(n)]}


def test_vectors_finite_float32_of_the_recorded_shape():
    good = np.ones((3, 4), dtype=np.float32)
    content.vectors(good, sidecar(3, 4), "v.npy")
    bad = good.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ContentError, match=r"v\.npy: row 2 holds NaN"):
        content.vectors(bad, sidecar(3, 4), "v.npy")
    with pytest.raises(ContentError, match="float64"):
        content.vectors(good.astype(np.float64), sidecar(3, 4), "v.npy")
    with pytest.raises(ContentError, match="shape"):
        content.vectors(good[:2], sidecar(3, 4), "v.npy")


def test_empty_vectors_pass():
    content.vectors(np.zeros((0, 4), dtype=np.float32), sidecar(0, 4), "empty.npy")


def test_finite_reads_a_memory_map_block_by_block(tmp_path, monkeypatch):
    monkeypatch.setattr(content, "BLOCK", 2)
    a = np.zeros((7, 3), dtype=np.float32)
    a[5, 2] = np.inf
    np.save(tmp_path / "a.npy", a)
    with pytest.raises(ContentError, match="row 5"):
        content.finite(np.load(tmp_path / "a.npy", mmap_mode="r"), "a.npy")


def rows(*lines):
    return [(i + 1, *line) for i, line in enumerate(lines)]


GOOD = rows(("q1", "a", 1, 2.0, "bm25"), ("q1", "b", 2, 1.0, "bm25"), ("q2", "a", 1, 0.5, "bm25"))


@pytest.mark.parametrize("lines, message", [
    (rows(("q1", "a", 1, 2.0, "bm25"), ("q1", "a", 2, 1.0, "bm25")), r"r\.trec:2: chunk 'a' is ranked twice"),
    (rows(("q1", "a", 1, float("nan"), "bm25")), r"r\.trec:1: score nan is not a finite number"),
    (rows(("q1", "a", 2, 1.0, "bm25")), r"r\.trec:1: rank 2 of query 'q1' follows rank 0"),
    (rows(("q1", "a", 1, 1.0, "bm25"), ("q1", "b", 2, 3.0, "bm25")), r"r\.trec:2: rank 2 .* above rank 1's"),
    (rows(("q9", "a", 1, 1.0, "bm25")), r"r\.trec:1: query 'q9' is not in questions\.jsonl"),
    (rows(("q1", "z", 1, 1.0, "bm25")), r"r\.trec:1: chunk 'z' is not in chunks\.jsonl"),
    (rows(("q1", "a", 1, 1.0, "dense")), r"r\.trec:1: the run is named 'dense', the file is 'bm25''s"),
])
def test_a_run_is_well_formed(lines, message):
    content.run_rows(GOOD, "r.trec", "bm25", {"q1", "q2"}, {"a", "b"})
    with pytest.raises(ContentError, match=message):
        content.run_rows(lines, "r.trec", "bm25", {"q1", "q2"}, {"a", "b"})


def bm25():
    return {"indptr": np.array([0, 2, 3]), "items": np.array([0, 1, 1], dtype=np.int32),
            "weights": np.array([0.5, 0.2, 1.0], dtype=np.float32), "title_indptr": np.zeros(3, dtype=np.int64),
            "title_items": np.zeros(0, dtype=np.int32), "title_weights": np.zeros(0, dtype=np.float32),
            "doc_lengths": np.array([3, 4], dtype=np.int32)}


@pytest.mark.parametrize("name, index, value, message", [
    ("items", 2, 7, "outside 0..1"), ("items", 1, 0, "not ascending"), ("indptr", 1, 4, "offsets"),
    ("weights", 0, np.nan, "NaN"), ("doc_lengths", 1, -1, "negative"),
])
def test_bm25_arrays_within_their_bounds(name, index, value, message):
    content.bm25_arrays(bm25(), 2, "index.npz")
    arrays = bm25()
    arrays[name][index] = value
    with pytest.raises(ContentError, match=message):
        content.bm25_arrays(arrays, 2, "index.npz")
    with pytest.raises(ContentError, match="vocabulary"):
        content.bm25_arrays(bm25(), 3, "index.npz")


def test_ivf_lists_a_permutation_between_rising_offsets():
    c, rows_ = np.ones((2, 3), dtype=np.float32), np.ones((4, 3), dtype=np.float32)
    content.ivf_arrays(c, np.array([0, 1, 4]), np.array([2, 0, 1, 3]), rows_, "ivf")
    with pytest.raises(ContentError, match="permutation"):
        content.ivf_arrays(c, np.array([0, 1, 4]), np.array([2, 0, 0, 3]), rows_, "ivf")
    with pytest.raises(ContentError, match="offsets"):
        content.ivf_arrays(c, np.array([0, 3, 2]), np.array([2, 0, 1, 3]), rows_, "ivf")


def test_weights_finite_and_numbers():
    content.weights({"w": np.ones((2, 3)), "b": np.array([0.5])}, "m.npz")
    with pytest.raises(ContentError, match=r"m\.npz: array 'w' row 1 holds NaN"):
        content.weights({"w": np.array([[1.0, 2.0], [np.nan, 0.0]])}, "m.npz")
    with pytest.raises(ContentError, match="not numbers"):
        content.weights({"w": np.array(["a"])}, "m.npz")


def test_json_artifacts_hold_no_nan_and_records_are_objects(tmp_path):
    (tmp_path / "m.json").write_text(json.dumps({"a": float("nan")}))
    with pytest.raises(ContentError, match=r"m\.json: not JSON \(NaN"):
        content.json_file(tmp_path / "m.json")
    (tmp_path / "r.jsonl").write_text('{"a": 1}\n[1]\n')
    with pytest.raises(ContentError, match=r"r\.jsonl:2: not a JSON object"):
        content.records(tmp_path / "r.jsonl")


def test_an_embedding_cache_row_naming_no_model_or_holding_nan_is_refused():
    good = {"models": np.array([b"a" * 64], "S64"), "model": np.zeros(2, np.int32),
            "text_sha256": np.array([b"b" * 64, b"c" * 64], "S64"), "vectors": np.ones((2, 3), np.float32)}
    content.embed_cache(good, "cache.npz")
    with pytest.raises(content.ContentError, match="model index"):
        content.embed_cache({**good, "model": np.array([0, 1], np.int32)}, "cache.npz")
    nan = good["vectors"].copy()
    nan[1, 2] = np.nan
    with pytest.raises(content.ContentError, match="row 1 holds NaN"):
        content.embed_cache({**good, "vectors": nan}, "cache.npz")
    with pytest.raises(content.ContentError, match="not one row each"):
        content.embed_cache({**good, "vectors": good["vectors"][:1]}, "cache.npz")
