import subprocess
import sys

import numpy as np
import pytest
from support.chunks import make_chunk

from minirag.index.hashing import HashingEmbedder
from minirag.index.store import FlatVectorStore
from minirag.index.vectors import AlignmentError, load_aligned_vectors, save_vectors, vector_rows, vectors_writer


def test_embedding_work_twice_gives_the_same_vector():
    emb = HashingEmbedder(dim=256)
    a, b = emb.embed(["work"]), HashingEmbedder(dim=256).embed(["work"])
    assert a.dtype == np.float32 and a.shape == (1, 256)
    assert np.array_equal(a, b)
    assert np.isclose(np.linalg.norm(a), 1.0)


def test_hashing_is_stable_across_processes():
    # A fresh interpreter has a different hash() seed; blake2b buckets must not move.
    code = "from minirag.index.hashing import HashingEmbedder; print(HashingEmbedder(dim=64).embed(['trabajó mucho'])[0].tolist())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "123", "PATH": ""}).stdout
    here = HashingEmbedder(dim=64).embed(["trabajó mucho"])[0].tolist()
    assert eval(out) == here


def test_fitted_idf_downweights_common_words():
    emb = HashingEmbedder.fit(["the cat", "the dog", "the bird"], dim=512)
    v = emb.embed(["the cat"])[0]
    b_the, s_the = emb.slot("the")
    b_cat, s_cat = emb.slot("cat")
    assert b_the != b_cat
    assert abs(v[b_cat]) > abs(v[b_the]) > 0


def test_empty_store_returns_nothing():
    assert FlatVectorStore(HashingEmbedder()).search("anything", k=5) == []


def test_one_chunk_store_returns_it_with_similarity_one():
    store = FlatVectorStore(HashingEmbedder())
    c = make_chunk("The past of go is went.")
    store.add([c])
    ((got, sim),) = store.search("The past of go is went.", k=5)
    assert got == c and sim == pytest.approx(1.0, abs=1e-6)


def test_store_ranks_best_first_and_respects_k():
    store = FlatVectorStore(HashingEmbedder())
    chunks = [make_chunk(t, offset=i) for i, t in enumerate(["ser y estar", "por y para", "ser estar uso"])]
    store.add(chunks)
    got = store.search("ser estar", k=2)
    assert len(got) == 2 and got[0][1] >= got[1][1]
    assert {c.text for c, _ in got} == {"ser y estar", "ser estar uso"}


def test_aligned_vectors_round_trip_and_detect_an_edited_chunk(tmp_path):
    chunks = [make_chunk("uno", offset=0), make_chunk("dos", offset=10), make_chunk("tres", offset=20)]
    emb = HashingEmbedder(dim=16)
    save_vectors(tmp_path / "v.npy", emb.embed([c.text for c in chunks]), chunks, {"params": emb.params()})
    vectors, _ = load_aligned_vectors(tmp_path / "v.npy", chunks)
    assert vectors.shape == (3, 16)
    edited = chunks[:1] + [make_chunk("DOS", offset=10)] + chunks[2:]
    with pytest.raises(AlignmentError, match="row 1 .* different text"):
        load_aligned_vectors(tmp_path / "v.npy", edited)
    with pytest.raises(AlignmentError, match="row 0 is chunk"):
        load_aligned_vectors(tmp_path / "v.npy", chunks[1:])
    with pytest.raises(AlignmentError, match="3 rows for 2 chunks"):
        load_aligned_vectors(tmp_path / "v.npy", chunks[:2])


def test_vectors_filled_through_the_writer_equal_saved_ones_and_a_failure_leaves_nothing(tmp_path):
    chunks = [make_chunk("uno", offset=0), make_chunk("dos", offset=10), make_chunk("tres", offset=20)]
    vectors = HashingEmbedder(dim=16).embed([c.text for c in chunks])  # (3, 16)
    save_vectors(tmp_path / "a.npy", vectors, chunks, {"params": {}})
    with vectors_writer(tmp_path / "b.npy", vector_rows(chunks), 16, {"params": {}}) as out:
        for i in range(3):  # row by row, as a streaming embedder writes
            out[i] = vectors[i]
    assert (tmp_path / "a.npy").read_bytes() == (tmp_path / "b.npy").read_bytes()
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), vectors)  # a plain .npy
    assert load_aligned_vectors(tmp_path / "b.npy", chunks)[0].shape == (3, 16)
    with pytest.raises(RuntimeError, match="killed"):
        with vectors_writer(tmp_path / "c.npy", vector_rows(chunks), 16, {"params": {}}) as out:
            out[0] = vectors[0]
            raise RuntimeError("killed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "a.npy", "b.json", "b.npy"]
