"""An ensemble of MiniBiEncoders (members > 1): its members, its vectors, save/load, determinism."""

from __future__ import annotations

import json

import numpy as np
import pytest
from support.toy_biencoder import small_config, toy_pairs

from minirag.index.biencoder import BiEncoderEmbedder, MiniBiEncoder
from minirag.index.biencoder_ensemble import BiEncoderEnsemble, load_model, member_config
from minirag.index.biencoder_train import train_biencoder


class ByteTokenizer:
    """Stand-in for the BPE tokenizer: one id per UTF-8 byte."""
    vocab_size = 256

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        return [list(t.encode("utf-8")) for t in texts]


def test_member_i_is_the_encoder_trained_alone_with_seed_plus_i(tmp_path):
    config = small_config(epochs=2, seed=3, members=3)
    ensemble, losses = train_biencoder(toy_pairs(), ByteTokenizer(), config)
    assert isinstance(ensemble, BiEncoderEnsemble) and len(ensemble.members) == 3 and len(losses) == 2
    curves = []
    for i, member in enumerate(ensemble.members):
        alone, curve = train_biencoder(toy_pairs(), ByteTokenizer(), small_config(epochs=2, seed=3 + i))
        assert member.config == member_config(config, i) == alone.config
        assert member.fingerprint() == alone.fingerprint()
        curves.append(curve)
    np.testing.assert_allclose(losses, np.mean(curves, axis=0))


def test_vectors_are_the_members_side_by_side_and_the_cosine_their_mean():
    tok = ByteTokenizer()
    ensemble, _ = train_biencoder(toy_pairs(), tok, small_config(d=8, epochs=1, members=2))
    emb = BiEncoderEmbedder(ensemble, tok)
    texts = ["question number 3 about colour 3", "passage 3 talks about shade 3", "passage 9"]
    y = emb.embed(texts)
    assert emb.d == 16 and y.shape == (3, 16) and y.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(y, axis=1), 1.0, atol=1e-6)
    parts = [BiEncoderEmbedder(m, tok).embed(texts) for m in ensemble.members]
    np.testing.assert_allclose(y @ y.T, np.mean([p @ p.T for p in parts], axis=0), atol=1e-6)
    assert emb.embed([]).shape == (0, 16)


def test_progress_counts_epochs_on_through_the_members():
    calls = []
    train_biencoder(toy_pairs(20), ByteTokenizer(), small_config(epochs=2, batch_size=10, members=2),
                    progress=lambda *a: calls.append(a[:3]))
    assert calls == [(e, s, 2) for e in (1, 2, 3, 4) for s in (1, 2)]


def test_save_and_load_restore_the_ensemble_byte_for_byte(tmp_path):
    tok = ByteTokenizer()
    blobs = []
    for run in range(2):
        ensemble, losses = train_biencoder(toy_pairs(), tok, small_config(epochs=1, members=2))
        ensemble.save(tmp_path / f"e{run}.npz", {"loss_per_epoch": losses})
        blobs.append((tmp_path / f"e{run}.npz").read_bytes())
    assert blobs[0] == blobs[1]
    meta = json.loads((tmp_path / "e0.json").read_text(encoding="utf-8"))
    assert meta["config"]["members"] == 2 and meta["weights_sha256"] == ensemble.fingerprint()
    loaded = load_model(tmp_path / "e0.npz")
    assert isinstance(loaded, BiEncoderEnsemble) and loaded.config == ensemble.config
    texts = ["what colour is item 3", "passage 3"]
    np.testing.assert_array_equal(BiEncoderEmbedder(loaded, tok).embed(texts),
                                  BiEncoderEmbedder(ensemble, tok).embed(texts))


def test_one_member_is_a_plain_encoder_and_loads_as_one(tmp_path):
    model, _ = train_biencoder(toy_pairs(), ByteTokenizer(), small_config(epochs=1))
    assert isinstance(model, MiniBiEncoder)
    model.save(tmp_path / "m.npz", {})
    assert isinstance(load_model(tmp_path / "m.npz"), MiniBiEncoder)


def test_load_refuses_an_ensemble_whose_weights_do_not_match_its_sidecar(tmp_path):
    for name, seed in (("e", 0), ("other", 7)):
        ensemble, _ = train_biencoder(toy_pairs(), ByteTokenizer(), small_config(epochs=1, members=2, seed=seed))
        ensemble.save(tmp_path / f"{name}.npz", {})
    (tmp_path / "e.npz").write_bytes((tmp_path / "other.npz").read_bytes())
    with pytest.raises(ValueError, match="do not match"):
        load_model(tmp_path / "e.npz")
    meta = json.loads((tmp_path / "other.json").read_text(encoding="utf-8"))
    meta["config"]["members"] = 3
    (tmp_path / "other.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ValueError, match="no weights m2_"):
        load_model(tmp_path / "other.npz")
