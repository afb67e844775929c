"""MiniGPT's shape: its config, the name and shape of every parameter, and their seeded GPT-2 init.

GPT-2 init: N(0, 0.02), residual projections scaled by 1/√(2·n_layers), biases 0, gains 1; the pointer
head's parameters exist only with `pointer=True` (model.py's docstring has the formulas they serve).

What it leaves out: what the parameters compute (model.py) and how they are trained and stored (train.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MiniGPTConfig:
    vocab_size: int
    block_size: int = 192
    d: int = 96
    n_layers: int = 2
    n_heads: int = 4
    pointer: bool = True
    seed: int = 0

    def __post_init__(self):
        if min(self.vocab_size, self.block_size, self.d, self.n_layers, self.n_heads) < 1:
            raise ValueError(f"MiniGPTConfig: every size must be positive: {self}")
        if self.d % self.n_heads:
            raise ValueError(f"MiniGPTConfig: d={self.d} is not divisible by n_heads={self.n_heads}")


def param_spec(cfg: MiniGPTConfig) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, shape, init) of every parameter, in the order init draws them."""
    d, spec = cfg.d, [("wte", (cfg.vocab_size, cfg.d), "normal"), ("wpe", (cfg.block_size, cfg.d), "normal"),
                      ("wme", (cfg.d,), "normal")]
    for i in range(cfg.n_layers):
        n = f"h{i}."
        spec += [(n + "ln1.g", (d,), "ones"), (n + "ln1.b", (d,), "zeros"),
                 (n + "attn.w_qkv", (d, 3 * d), "normal"), (n + "attn.b_qkv", (3 * d,), "zeros"),
                 (n + "attn.w_o", (d, d), "proj"), (n + "attn.b_o", (d,), "zeros"),
                 (n + "ln2.g", (d,), "ones"), (n + "ln2.b", (d,), "zeros"),
                 (n + "mlp.w_in", (d, 4 * d), "normal"), (n + "mlp.b_in", (4 * d,), "zeros"),
                 (n + "mlp.w_out", (4 * d, d), "proj"), (n + "mlp.b_out", (d,), "zeros")]
    spec += [("lnf.g", (d,), "ones"), ("lnf.b", (d,), "zeros")]
    if cfg.pointer:
        spec += [("copy.w_q", (d, d), "normal"), ("copy.w_k", (d, d), "normal"),
                 ("copy.w_next", (d,), "normal"), ("copy.b_next", (1,), "zeros"),
                 ("gate.w", (d,), "normal"), ("gate.b", (1,), "zeros")]
    return spec


def init_params(cfg: MiniGPTConfig) -> dict[str, np.ndarray]:
    """Seeded GPT-2 style init, drawn in float64 so every dtype starts from the same values."""
    rng = np.random.default_rng(cfg.seed)
    # residual writes are scaled so the residual stream's variance does not grow with depth
    std = {"normal": 0.02, "proj": 0.02 / math.sqrt(2 * cfg.n_layers)}
    return {name: rng.normal(0.0, std[kind], shape) if kind in std else np.full(shape, float(kind == "ones"))
            for name, shape, kind in param_spec(cfg)}
