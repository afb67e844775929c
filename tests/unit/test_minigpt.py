"""MiniGPT in isolation: hand-written backward against finite differences, seeded determinism, the KV cache
against full recomputation, save/load, and that the copy head learns to copy unseen tokens."""

import numpy as np
import pytest

from minirag.answer.minigpt.model import MiniGPT, MiniGPTConfig, param_spec
from minirag.answer.minigpt.train import Adam, clip_grad_norm, load_model, load_sidecar, npz_bytes, save_model, train


def batch(rng, cfg, B=2, T=9, n_src=5):
    ids = rng.integers(0, cfg.vocab_size, (B, T))
    ids[:, 3] = ids[:, 1]  # a repeated token, so the copy-continuation feature fires
    targets = rng.integers(0, cfg.vocab_size, (B, T))
    targets[0, -1] = ids[0, 2]  # a target the copy head can produce
    loss_mask = np.zeros((B, T), dtype=bool)
    loss_mask[:, n_src - 1:] = True
    src_mask = np.zeros((B, T), dtype=bool)
    src_mask[:, :n_src] = True
    marks = (rng.random((B, T)) < 0.4).astype(float)
    return ids, targets, loss_mask, src_mask, marks


@pytest.mark.parametrize("pointer", [True, False])
def test_backward_matches_finite_differences_for_every_parameter(pointer):
    cfg = MiniGPTConfig(vocab_size=11, block_size=12, d=8, n_layers=2, n_heads=2, pointer=pointer, seed=3)
    rng = np.random.default_rng(0)
    params = {n: p + rng.normal(0, 0.3, p.shape) for n, p in MiniGPT(cfg, dtype=np.float64).params.items()}
    model = MiniGPT(cfg, params, dtype=np.float64)  # perturbed: gains, biases and the gate are not at their init
    data = batch(rng, cfg)
    _, grads = model.loss_and_grads(*data)
    assert set(grads) == {n for n, _, _ in param_spec(cfg)}
    eps = 1e-6
    for name, p in model.params.items():
        assert grads[name].shape == p.shape, name
        flat = p.reshape(-1)
        for i in rng.choice(flat.size, size=min(flat.size, 6), replace=False):
            old = flat[i]
            flat[i] = old + eps
            up = model.loss(*data)
            flat[i] = old - eps
            down = model.loss(*data)
            flat[i] = old
            numeric = (up - down) / (2 * eps)
            assert abs(numeric - grads[name].reshape(-1)[i]) <= 1e-6 + 1e-4 * abs(numeric), (name, i)


def test_kv_cache_gives_the_same_tokens_and_distributions_as_recomputing():
    cfg = MiniGPTConfig(vocab_size=23, block_size=40, d=16, n_layers=2, n_heads=4, seed=1)
    rng = np.random.default_rng(5)
    params = {n: p + rng.normal(0, 0.5, p.shape) for n, p in MiniGPT(cfg, dtype=np.float64).params.items()}
    model = MiniGPT(cfg, params, dtype=np.float64)
    prompt, marks = rng.integers(0, 23, 15), rng.integers(0, 2, 15)
    cached, full = model.generate(prompt, 12, 20, marks=marks), model.generate_uncached(prompt, 12, 20, marks=marks)
    assert cached == full and len(cached) == 20 and cached != model.generate(prompt, 12, 20)
    seq = list(prompt) + cached[:5]
    src = np.arange(len(seq)) < 12
    dist = model.next_distribution(seq, src, np.pad(marks, (0, 5)))
    assert dist.shape == (23,) and dist.sum() == pytest.approx(1.0) and int(np.argmax(dist)) == cached[5]
    stop = cached[3]
    assert model.generate(prompt, 12, 20, stop_ids=(stop,), marks=marks) == cached[: cached.index(stop) + 1]


def test_generation_stops_at_the_block():
    cfg = MiniGPTConfig(vocab_size=7, block_size=10, d=8, n_layers=1, n_heads=2)
    model = MiniGPT(cfg)
    assert len(model.generate([1, 2, 3, 4, 5, 6], 6, 50)) == 5  # positions 6..9, plus the one read at 9
    with pytest.raises(ValueError, match="1..10 tokens"):
        model.generate(list(range(7)) * 2, 3, 2)


def test_same_seed_same_bytes_and_different_seed_different_weights(tmp_path):
    def trained(seed):
        cfg = MiniGPTConfig(vocab_size=13, block_size=12, d=8, n_layers=1, n_heads=2, seed=seed)
        model = MiniGPT(cfg)
        rng = np.random.default_rng(seed)
        train(model, (batch(rng, cfg) for _ in range(5)), 5, 1e-2)
        return npz_bytes(model.params)
    assert trained(0) == trained(0) and trained(0) != trained(1)


def test_save_and_load_round_trip(tmp_path):
    cfg = MiniGPTConfig(vocab_size=13, block_size=12, d=8, n_layers=1, n_heads=2, seed=2)
    model = MiniGPT(cfg)
    save_model(tmp_path / "m.npz", model, {"note": "x"})
    back = load_model(tmp_path / "m.npz")
    assert back.config == cfg and all(np.array_equal(back.params[n], p) for n, p in model.params.items())
    assert load_sidecar(tmp_path / "m.npz")["note"] == "x"
    assert back.generate([1, 2, 3], 3, 4) == model.generate([1, 2, 3], 3, 4)


def test_wrong_parameters_are_named():
    cfg = MiniGPTConfig(vocab_size=13, block_size=12, d=8, n_layers=1, n_heads=2)
    params = MiniGPT(cfg).params
    params["wte"] = params["wte"][:5]
    with pytest.raises(ValueError, match="wte"):
        MiniGPT(cfg, params)
    with pytest.raises(ValueError, match="divisible"):
        MiniGPTConfig(vocab_size=13, d=10, n_heads=4)


def test_clip_and_adam():
    grads = {"a": np.array([3.0, 4.0])}
    assert clip_grad_norm(grads, 1.0) == pytest.approx(5.0) and np.linalg.norm(grads["a"]) == pytest.approx(1.0)
    params = {"a": np.array([1.0, -1.0])}
    Adam(lr=0.1, weight_decay=0.0).step(params, {"a": np.array([1.0, -1.0])})
    np.testing.assert_allclose(params["a"], [0.9, -0.9], rtol=1e-6)  # Adam's first step moves lr·sign(g)


def test_pointer_model_learns_to_copy_tokens_it_never_saw_as_answers():
    """Copy task: `a b c SEP` -> `b c`. Training answers use tokens 3..199 (too many for the vocabulary softmax
    to take over in 300 steps); test answers use 200..229, which the model never produces in training — only
    the copy head can answer them."""
    V, rng = 230, np.random.default_rng(0)
    SEP = 1

    def example(lo, hi):
        x = list(rng.integers(lo, hi, 3))
        return x + [SEP] + x[1:], 4

    def stream():
        while True:
            ex = [example(3, 200) for _ in range(16)]
            ids = np.array([s[:-1] for s, _ in ex])
            targets = np.array([s[1:] for s, _ in ex])
            loss_mask = np.zeros_like(ids, dtype=bool)
            loss_mask[:, 3:] = True
            src_mask = np.zeros_like(ids, dtype=bool)
            src_mask[:, :4] = True
            yield ids, targets, loss_mask, src_mask
    model = MiniGPT(MiniGPTConfig(vocab_size=V, block_size=8, d=16, n_layers=1, n_heads=2, seed=0))
    losses = train(model, stream(), 300, 1e-2)
    assert np.mean(losses[-20:]) < 0.5 * np.mean(losses[:20])
    right = 0
    for _ in range(20):
        seq, _ = example(200, 230)
        right += model.generate(seq[:4], 4, 2) == seq[4:]
    assert right >= 16
