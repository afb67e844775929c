"""MiniBiEncoder: hand-written gradients, loss masking, encoding, determinism, save/load, learning."""

from __future__ import annotations

import json
import re
from dataclasses import asdict

import numpy as np
import pytest
from support.toy_biencoder import small_config, toy_pairs

from minirag.index.biencoder import (
    PARAM_NAMES,
    BiEncoderConfig,
    BiEncoderEmbedder,
    MiniBiEncoder,
    normalize_text,
    pack,
)
from minirag.index.biencoder_train import (
    Adam,
    info_nce,
    loss_and_grads,
    same_matrix,
    token_idf,
    train_biencoder,
)


class ByteTokenizer:
    """Stand-in for the BPE tokenizer: one id per UTF-8 byte."""
    vocab_size = 256

    def encode(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        return [self.encode(t) for t in texts]


class WordTokenizer:
    """Stand-in with one id per whitespace word of a fixed vocabulary (0 = unknown)."""

    def __init__(self, texts: list[str]):
        words = sorted({w for t in texts for w in t.split()})
        self.ids = {w: i + 1 for i, w in enumerate(words)}
        self.vocab_size = len(words) + 1

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        return [[self.ids.get(w, 0) for w in t.split()] for t in texts]


def float64_model(vocab: int, config: BiEncoderConfig, seed: int = 1) -> MiniBiEncoder:
    model = MiniBiEncoder(vocab, config)
    rng = np.random.default_rng(seed)
    model.params = {k: v.astype(np.float64) for k, v in model.params.items()}
    # non-zero biases so their gradients are exercised away from the symmetric start
    model.params["b1"] += 0.3 * rng.standard_normal(model.params["b1"].shape)
    model.params["b2"] += 0.3 * rng.standard_normal(model.params["b2"].shape)
    return model


def test_gradients_match_finite_differences_for_every_parameter():
    config = BiEncoderConfig(d=5, hidden=7, token_dim=6, max_tokens=6, temperature=0.5)
    model = float64_model(20, config)
    a = [[1, 2, 3], [4, 5], [], [1, 2, 3], [7, 8, 9, 10, 11, 12, 13, 14]]  # empty, repeated, truncated
    b = [[6, 7, 8, 9], [2, 2, 2], [3, 9], [10, 11], [0]]
    same = same_matrix(np.array([0, 1, 2, 0, 3]), np.array([10, 11, 12, 13, 14]))  # pairs 0 and 3 share a
    loss, grads = loss_and_grads(model, a, b, same)
    assert set(grads) == set(model.params) == set(PARAM_NAMES)
    eps = 1e-6
    for name in PARAM_NAMES:
        p = model.params[name]
        numeric = np.zeros_like(p)
        for i in np.ndindex(p.shape):
            old = p[i]
            p[i] = old + eps
            up, _ = loss_and_grads(model, a, b, same)
            p[i] = old - eps
            down, _ = loss_and_grads(model, a, b, same)
            p[i] = old
            numeric[i] = (up - down) / (2 * eps)
        assert np.abs(grads[name]).max() > 1e-4, name  # the check is not vacuous
        np.testing.assert_allclose(grads[name], numeric, atol=1e-7, rtol=1e-5, err_msg=name)


def test_info_nce_masks_pairs_sharing_a_text_instead_of_treating_them_as_negatives():
    rng = np.random.default_rng(0)
    y = rng.standard_normal((3, 4))
    y /= np.linalg.norm(y, axis=1, keepdims=True)
    yq, yp = y.copy(), y[[0, 0, 2]].copy()  # pairs 0 and 1 have the same passage
    same = same_matrix(np.array([0, 1, 2]), np.array([5, 5, 6]))
    assert same.tolist() == [[True, True, False], [True, True, False], [False, False, True]]
    tau = 0.1
    loss, dyq, dyp, _ = info_nce(yq, yp, same, tau)
    S = yq @ yp.T / tau
    allowed = ~same | np.eye(3, dtype=bool)

    def ce(logits, keep, target):
        row = logits[keep]
        return -(logits[target] - np.log(np.exp(row).sum()))

    expected = 0.5 * (np.mean([ce(S[i], allowed[i], i) for i in range(3)])
                      + np.mean([ce(S[:, j], allowed[:, j], j) for j in range(3)]))
    assert loss == pytest.approx(expected, rel=1e-12)
    unmasked, _, _, _ = info_nce(yq, yp, np.eye(3, dtype=bool), tau)
    assert unmasked > loss + 1e-3


def test_encode_ids_gives_unit_float32_rows_and_truncates():
    config = small_config(max_tokens=4)
    model = MiniBiEncoder(50, config)
    out = model.encode_ids([[1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4], [9], []])
    assert out.shape == (4, config.d) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out[:3], axis=1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(out[0], out[1])  # only the first max_tokens tokens count
    assert np.all(out[3] == 0)  # an empty sequence embeds to zeros, not NaN


def test_encoding_is_a_bag_of_tokens_and_independent_of_the_batch():
    model = MiniBiEncoder(50, small_config())
    alone = model.encode_ids([[3, 1, 4, 1, 5]])
    batch = model.encode_ids([[9, 9], [5, 1, 1, 4, 3], [2, 6, 7, 8, 10, 11]], block=2)
    np.testing.assert_allclose(batch[1], alone[0], rtol=1e-5, atol=1e-6)


def test_pack_truncates_and_flattens():
    flat, lens = pack([[1, 2, 3], [], [4, 5, 6, 7]], max_tokens=2)
    assert flat.tolist() == [1, 2, 4, 5] and lens.tolist() == [2, 0, 2]


def test_normalize_text_makes_a_word_look_the_same_everywhere():
    assert normalize_text("| Go | went |") == "| go | went |"
    assert normalize_text("'go'") == "' go '"
    assert normalize_text("¿Cómo   se dice (to go)?") == "¿ cómo se dice ( to go ) ?"


def test_token_idf_ranks_rare_tokens_above_common_ones_and_unseen_highest():
    idf = token_idf([[1, 2, 2], [1, 3], [1]], vocab_size=5)
    assert idf[1] < idf[2] == idf[3] < idf[0] == idf[4]
    assert idf[1] == pytest.approx(1.0)  # in every text: log(4/4) + 1


def test_adam_first_step_moves_each_weight_by_lr_against_its_gradient():
    params = {"w": np.array([1.0, -2.0, 3.0])}
    opt = Adam(params, lr=0.1)
    opt.step({"w": np.array([0.5, -4.0, 0.0])})
    np.testing.assert_allclose(params["w"], [0.9, -1.9, 3.0], atol=1e-6)


def test_training_learns_associations_with_no_shared_tokens():
    # queries "qN" and passages of distinct words share no token: only training can link them
    pairs = [(f"q{i}", f"w{i}a w{i}b w{i}c") for i in range(32)]
    tok = WordTokenizer([t for p in pairs for t in p])
    config = small_config(d=16, hidden=32, token_dim=16, epochs=30, batch_size=16, lr=3e-2, normalize=False)
    model, losses = train_biencoder(pairs, tok, config)
    emb = BiEncoderEmbedder(model, tok)
    sims = emb.embed([a for a, _ in pairs]) @ emb.embed([b for _, b in pairs]).T
    accuracy = np.mean(sims.argmax(axis=1) == np.arange(len(pairs)))
    assert losses[-1] < 0.5 * losses[0]
    assert accuracy >= 0.9


def test_progress_is_reported_every_step_and_losses_every_epoch():
    calls = []
    config = small_config(epochs=3, batch_size=10)
    _, losses = train_biencoder(toy_pairs(24), ByteTokenizer(), config, progress=lambda *a: calls.append(a))
    assert len(losses) == 3 and all(np.isfinite(losses))
    assert [(e, s, n) for e, s, n, _ in calls] == [(e, s, 3) for e in (1, 2, 3) for s in (1, 2, 3)]


def test_training_refuses_an_empty_pair_list():
    with pytest.raises(ValueError, match="no training pairs"):
        train_biencoder([], ByteTokenizer(), small_config())


def test_same_config_seed_and_pairs_give_byte_identical_weights(tmp_path):
    blobs = []
    for run, seed in enumerate([0, 0, 1]):
        model, losses = train_biencoder(toy_pairs(), ByteTokenizer(), small_config(epochs=2, seed=seed))
        model.save(tmp_path / f"m{run}.npz", {"loss_per_epoch": losses})
        blobs.append((tmp_path / f"m{run}.npz").read_bytes())
    assert blobs[0] == blobs[1]
    assert blobs[0] != blobs[2]  # the seed matters, so the equality above is not trivial


def test_save_writes_sidecar_and_load_restores_the_encoder(tmp_path):
    tok = ByteTokenizer()
    config = small_config(epochs=1)
    model, losses = train_biencoder(toy_pairs(), tok, config)
    path = tmp_path / "biencoder.npz"
    model.save(path, {"tokenizer_sha256": "abc", "data_sha256": "def", "loss_per_epoch": losses})
    meta = json.loads((tmp_path / "biencoder.json").read_text(encoding="utf-8"))
    assert meta["config"] == json.loads(json.dumps(asdict(config)))
    assert meta["vocab_size"] == 256 and meta["loss_per_epoch"] == losses
    assert meta["tokenizer_sha256"] == "abc" and meta["data_sha256"] == "def"
    assert re.fullmatch(r"[0-9a-f]{64}", meta["weights_sha256"])
    loaded = MiniBiEncoder.load(path)
    assert loaded.config == config
    texts = ["what colour is item 3", "passage 3"]
    np.testing.assert_array_equal(BiEncoderEmbedder(loaded, tok).embed(texts),
                                  BiEncoderEmbedder(model, tok).embed(texts))


def test_load_refuses_weights_that_do_not_match_the_sidecar(tmp_path):
    model = MiniBiEncoder(30, small_config())
    model.save(tmp_path / "m.npz", {})
    other = MiniBiEncoder(30, small_config(seed=5))
    other.save(tmp_path / "other.npz", {})
    (tmp_path / "m.npz").write_bytes((tmp_path / "other.npz").read_bytes())
    with pytest.raises(ValueError, match="do not match"):
        MiniBiEncoder.load(tmp_path / "m.npz")


def test_config_from_dict_round_trips_and_rejects_unknown_keys():
    config = small_config(sources=("title", "ict"))
    assert BiEncoderConfig.from_dict(json.loads(json.dumps(asdict(config)))) == config
    with pytest.raises(ValueError, match="temprature"):
        BiEncoderConfig.from_dict({"temprature": 0.1})


def test_embedder_has_the_model_dimension_and_handles_no_texts():
    emb = BiEncoderEmbedder(MiniBiEncoder(256, small_config(d=6)), ByteTokenizer())
    assert emb.d == 6
    assert emb.embed([]).shape == (0, 6)
    out = emb.embed(["uno", "dos", "tres"])
    assert out.shape == (3, 6) and out.dtype == np.float32
