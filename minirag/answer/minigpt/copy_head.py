"""MiniGPT's copy (pointer) head during training, computed only at the loss positions, forward and backward.

The pointer attention a_{t,·} (model.py's module docstring) matters only where there is a loss: the
answer positions, ~1/10 of a reading task's T. Each batch row's loss positions are packed into L slots
(L = the most loss positions of any row; `live` marks the slots in use), so the scores are (B, L, T)
rather than (B, T, T): the same values at the loss positions, a fraction of the work. Keys k_j = h_j W_k
are still needed at every source position j.

    a_{t,·} = softmax_j((h_t W_q)·(h_j W_k) / √d + β_t·[x_{j−1} = x_t]) over source positions j ≤ t
    c_t = Σ_{j: x_j = target_t} a_{t,j}        (the copy probability of the target)

Left out: the gate and the mixture with the vocabulary softmax (model.py `_head`), and inference, which
scores one position at a time with cached keys (model.py `_mixture`).
"""

from __future__ import annotations

import math

import numpy as np

from .ops import linear_grads, masked_softmax


def slots(loss_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For the N loss positions (bi, ti) in row-major order: their slot l in their row (N,), the position
    of every slot (B, L) (0 where unused) and which slots are used (B, L)."""
    bi, ti = np.nonzero(loss_mask)
    counts = loss_mask.sum(1)  # (B,)
    li = np.arange(len(bi)) - np.repeat(np.cumsum(counts) - counts, counts)  # (N,)
    B, L = loss_mask.shape[0], int(counts.max())
    t_slot, live = np.zeros((B, L), dtype=np.int64), np.zeros((B, L), dtype=bool)
    t_slot[bi, li], live[bi, li] = ti, True
    return li, t_slot, live, bi


def copy_forward(h, ids, y, loss_mask, src_mask, P, d):
    """(c (N,): copy mass on each loss position's target, has (N,): whether it has any source, cache)."""
    li, t_slot, live, bi = slots(loss_mask)
    B, T = ids.shape
    rows = np.arange(B)[:, None]
    hl = h[rows, t_slot]  # (B, L, d): the hidden states at the loss positions
    q, k = hl @ P["copy.w_q"], h @ P["copy.w_k"]  # (B, L, d), (B, T, d)
    valid = (np.arange(T) <= t_slot[..., None]) & src_mask[:, None, :] & live[..., None]  # (B, L, T)
    nxt = np.zeros(valid.shape, dtype=bool)  # (B, L, T): x_{j-1} == x_t
    nxt[:, :, 1:] = ids[rows, t_slot][..., None] == ids[:, None, :-1]
    beta = hl @ P["copy.w_next"] + P["copy.b_next"]  # (B, L)
    s = q @ k.transpose(0, 2, 1)  # (B, L, T)
    s *= 1.0 / math.sqrt(d)
    s += beta[..., None] * nxt
    a = masked_softmax(s, valid)  # (B, L, T)
    an, has = a[bi, li], valid[bi, li].any(-1)  # (N, T), (N,)
    match = ids[bi] == y[:, None]  # (N, T): copying j gives the target; repeated ids all count
    c = (an * match).sum(-1)
    return c, has, (bi, li, t_slot, hl, q, k, nxt, a, an, match)


def copy_backward(dc, cache, h, P, d, grads) -> np.ndarray:
    """Fills the copy projections' grads from dloss/dc (N,); returns dloss/dh (B, T, d)."""
    bi, li, t_slot, hl, q, k, nxt, a, an, match = cache
    dan = dc[:, None] * match  # (N, T)
    ds = np.zeros_like(a)  # (B, L, T): gradient of the pointer logits
    ds[bi, li] = an * (dan - (dan * an).sum(-1, keepdims=True))
    dbeta = np.einsum("blt,blt->bl", ds, nxt)  # (B, L)
    grads["copy.w_next"], grads["copy.b_next"] = (hl * dbeta[..., None]).sum((0, 1)), dbeta.sum().reshape(1)
    ds *= 1.0 / math.sqrt(d)
    dq, dk = ds @ k, ds.transpose(0, 2, 1) @ q  # (B, L, d), (B, T, d)
    grads["copy.w_q"], _ = linear_grads(hl, dq)
    grads["copy.w_k"], _ = linear_grads(h, dk)
    dh = dk @ P["copy.w_k"].T  # (B, T, d)
    dhl = dq @ P["copy.w_q"].T + dbeta[..., None] * P["copy.w_next"]  # (B, L, d); 0 in unused slots
    dh[bi, t_slot[bi, li]] += dhl[bi, li]  # loss positions are distinct, so fancy += is exact
    return dh
