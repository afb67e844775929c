"""The numpy layers MiniGPT is built from, each forward paired with its hand-written backward.

A forward returns its output and the cache its backward needs; a backward takes the upstream gradient and
that cache and returns the input gradient (and the parameter gradients). Shapes: B batch, T positions,
d width, H heads, hd = d / H. Nothing here knows about the model's parameter names.
"""

from __future__ import annotations

import math

import numpy as np

LN_EPS = 1e-5
GELU_C = math.sqrt(2.0 / math.pi)


def softmax(s: np.ndarray) -> np.ndarray:
    e = s - s.max(-1, keepdims=True)
    np.exp(e, out=e)  # in place: the (B, H, T, T) attention arrays dominate the memory traffic
    e /= e.sum(-1, keepdims=True)
    return e


def masked_softmax(s: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Softmax over the valid entries of the last axis; a row with none valid is all zeros (not NaN)."""
    s = np.where(valid, s, -np.inf)
    m = s.max(-1, keepdims=True)
    e = np.exp(s - np.where(np.isfinite(m), m, 0.0))  # exp(−inf) = 0 at invalid entries
    z = e.sum(-1, keepdims=True)
    return e / np.where(z > 0, z, 1.0)


def sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # no overflow warning for large |z|, unlike 1 / (1 + exp(−z))


def layer_norm(x, g, b):
    xc = x - x.mean(-1, keepdims=True)
    rstd = 1.0 / np.sqrt((xc * xc).mean(-1, keepdims=True) + LN_EPS)
    xhat = xc * rstd
    return xhat * g + b, (xhat, rstd, g)


def layer_norm_back(dy, cache):
    xhat, rstd, g = cache
    dxhat = dy * g
    dx = rstd * (dxhat - dxhat.mean(-1, keepdims=True) - xhat * (dxhat * xhat).mean(-1, keepdims=True))
    return dx, (dy * xhat).reshape(-1, g.size).sum(0), dy.reshape(-1, g.size).sum(0)


def gelu(u):
    """GELU, tanh approximation: 0.5·u·(1 + tanh(√(2/π)·(u + 0.044715·u³)))."""
    t = u * u  # u·u rather than u**3: a float power is many times slower
    t *= 0.044715
    t += 1.0
    t *= u
    np.tanh(GELU_C * t, out=t)
    y = t + 1.0
    y *= u
    y *= 0.5
    return y, t


def gelu_back(dy, u, t):
    """dy · d gelu/du = dy · (0.5·(1 + t) + 0.5·u·(1 − t²)·√(2/π)·(1 + 3·0.044715·u²)), with t the forward's tanh."""
    inner = u * u
    inner *= 3 * 0.044715 * GELU_C
    inner += GELU_C
    inner *= u
    inner *= 1.0 - t * t
    inner += 1.0 + t
    inner *= 0.5
    inner *= dy
    return inner


def linear_grads(x, dy):
    """dW, db of y = x @ W + b, summed over every leading axis."""
    x2, dy2 = x.reshape(-1, x.shape[-1]), dy.reshape(-1, dy.shape[-1])
    return x2.T @ dy2, dy2.sum(0)


def marks_array(marks, shape, dtype) -> np.ndarray:
    """The exact-match flags as an array of `shape` (zeros when None), refusing another shape."""
    out = np.zeros(shape, dtype) if marks is None else np.asarray(marks, dtype=dtype)
    if out.shape != tuple(shape):
        raise ValueError(f"marks must have the shape of ids {tuple(shape)}, not {out.shape}")
    return out


def length_groups(loss_mask, src_mask, groups: int) -> list[tuple[np.ndarray, int]]:
    """Rows (ascending length) in up to `groups` groups of equal size, each with the length of its longest row:
    a row's length ends at its last loss or source position. Padding after it is read by no earlier position
    (causal attention), copied from by none and has no loss, so cutting it changes no value."""
    used = loss_mask | src_mask  # (B, T)
    length = used.shape[1] - np.argmax(used[:, ::-1], axis=1)  # (B,): one past the last used position
    order = np.argsort(length, kind="stable")
    return [(rows, int(length[rows].max())) for rows in np.array_split(order, groups) if len(rows)]


def causal_bias(T: int, dtype) -> np.ndarray:
    """(T, T): 0 where query t may see key j (j <= t), −inf above the diagonal; every row keeps its diagonal."""
    return np.triu(np.full((T, T), -np.inf, dtype=dtype), 1)


def attention(x, w, b, n_heads, bias):
    """Causal multi-head self-attention before its output projection; x (B, T, d) -> (B, T, d). The cache's q
    is scaled by 1/√hd already: scaling (B, H, T, hd) costs a sixth of scaling the (B, H, T, T) scores."""
    B, T, d = x.shape
    hd = d // n_heads
    qkv = (x @ w + b).reshape(B, T, 3, n_heads, hd)  # (B, T, 3, H, hd): [q | k | v], each split into heads
    q, k, v = np.ascontiguousarray(qkv.transpose(2, 0, 3, 1, 4))  # 3 x (B, H, T, hd), contiguous for matmul
    q *= 1.0 / math.sqrt(hd)
    s = q @ k.transpose(0, 1, 3, 2)  # (B, H, T, T)
    s += bias
    s -= s.max(-1, keepdims=True)  # the softmax in place: the (B, H, T, T) arrays dominate the memory traffic
    p = np.exp(s, out=s)
    p /= p.sum(-1, keepdims=True)
    y = (p @ v).transpose(0, 2, 1, 3).reshape(B, T, d)  # (B, T, d)
    return y, (x, w, q, k, v, p)


def attention_back(dy, cache):
    x, w, q, k, v, p = cache  # q scaled by 1/√hd
    B, H, T, hd = q.shape
    dyh = np.ascontiguousarray(dy.reshape(B, T, H, hd).transpose(0, 2, 1, 3))  # (B, H, T, hd)
    dp = dyh @ v.transpose(0, 1, 3, 2)  # (B, H, T, T)
    dv = p.transpose(0, 1, 3, 2) @ dyh
    dp -= np.einsum("bhij,bhij->bhi", dp, p)[..., None]  # softmax backward, in place
    dp *= p  # the gradient of the scaled scores
    dq, dk = dp @ k, dp.transpose(0, 1, 3, 2) @ q  # (B, H, T, hd)
    dq *= 1.0 / math.sqrt(hd)
    dqkv = np.empty((B, T, 3, H, hd), dtype=dq.dtype)  # (B, T, 3d) as [dq | dk | dv]
    for i, t in enumerate((dq, dk, dv)):
        dqkv[:, :, i] = t.transpose(0, 2, 1, 3)
    dqkv = dqkv.reshape(B, T, 3 * H * hd)
    dw, db = linear_grads(x, dqkv)
    return dqkv @ w.T, dw, db
