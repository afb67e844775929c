"""MiniGPT: a small decoder-only transformer with a copy (pointer) head, forward and backward by hand on numpy.

It reads `prompt + answer` tokens and is trained with next-token loss on the answer positions (`loss_mask`).
The output at t is a pointer-generator mixture (See et al., 2017), because a tiny model trained for minutes
cannot emit rare tokens from its vocabulary softmax but can learn *where* in the prompt the answer is:

    p(w | t) = g_t · softmax(h_t W_eᵀ)[w] + (1 − g_t) · Σ_{j ∈ src, j ≤ t, x_j = w} a_{t,j}
    a_{t,·} = softmax_j((h_t W_q)·(h_j W_k) / √d + β_t·[x_{j−1} = x_t]) over source positions j ≤ t
    β_t = h_t·w_n + b_n;   g_t = sigmoid(h_t·w_g + b_g)
    loss = mean over loss positions of −log(p(target | t) + EPS)

β_t is a copy-continuation term: a multi-token answer continues right after an earlier occurrence of the
token just read ("writ" → "ten"); without it a 2-layer model copied an answer's first token, then strayed
("been" → "beenan"). `pointer=False` is the plain softmax LM; with no source j ≤ t, g_t = 1. Input:
x_t = W_e[x_t] + W_p[t] + m_t·w_m, m_t = 1 on a prompt token that occurs in the question (the caller's
`marks`): DrQA's exact-match feature (Chen et al., 2017), so the line holding the question's words is flagged.
Blocks are pre-LayerNorm: x += Attn(LN(x)) (causal, multi-head, fused q/k/v), x += MLP(LN(x)) (hidden 4·d,
GELU tanh approximation); learned positions; a final LayerNorm; the output embedding tied to the input one.
GPT-2 init: N(0, 0.02), residual projections scaled by 1/√(2·n_layers), biases 0, gains 1.

Left out: dropout, sampling and beam search, batched generation. Adam, the training loop and save/load
are in `train.py`; the layers with their backward passes in `ops.py`; the copy head's training
pass, at the loss positions only, in `copy_head.py`; the config and the parameters' shapes and init in `params.py`.
"""

from __future__ import annotations

import math

import numpy as np

from .copy_head import copy_backward, copy_forward
from .ops import (
    attention,
    attention_back,
    causal_bias,
    gelu,
    gelu_back,
    layer_norm,
    layer_norm_back,
    length_groups,
    linear_grads,
    marks_array,
    sigmoid,
    softmax,
)
from .params import MiniGPTConfig, init_params, param_spec

EPS = 1e-9  # inside −log(p + EPS): a target neither generated nor copied would otherwise give log(0)


class MiniGPT:
    """Parameters live in `params` (flat name -> array, see `param_spec`); `dtype` is what they compute in."""

    groups = 8  # a training batch runs as this many groups of rows of similar length (bench/README.md)

    def __init__(self, config: MiniGPTConfig, params: dict[str, np.ndarray] | None = None, dtype=np.float32):
        self.config, self.dtype = config, np.dtype(dtype)
        spec = param_spec(config)
        if params is None:
            params = init_params(config)
        wrong = sorted({n for n, _, _ in spec} ^ set(params))
        wrong += [f"{n} {np.shape(params[n])} != {s}" for n, s, _ in spec if n in params and np.shape(params[n]) != s]
        if wrong:
            raise ValueError(f"MiniGPT: parameters do not match the config {config}: {', '.join(wrong)}")
        self.params = {n: np.array(params[n], dtype=self.dtype) for n, _, _ in spec}  # a private copy

    # -- training path --
    def loss(self, ids, targets, loss_mask, src_mask, marks=None) -> float:
        return self._run(ids, targets, loss_mask, src_mask, marks, backward=False)[0]

    def loss_and_grads(self, ids, targets, loss_mask, src_mask, marks=None) -> tuple[float, dict[str, np.ndarray]]:
        return self._run(ids, targets, loss_mask, src_mask, marks, backward=True)

    def _run(self, ids, targets, loss_mask, src_mask, marks, backward):
        ids, targets = np.asarray(ids, dtype=np.int64), np.asarray(targets, dtype=np.int64)
        marks = marks_array(marks, ids.shape, self.dtype)
        loss_mask, src_mask = np.asarray(loss_mask, dtype=bool), np.asarray(src_mask, dtype=bool)
        if not (ids.ndim == 2 and ids.shape == targets.shape == loss_mask.shape == src_mask.shape):
            raise ValueError("ids, targets, loss_mask and src_mask must share one (B, T) shape")
        if ids.shape[1] > self.config.block_size or not loss_mask.any():
            raise ValueError(f"need T <= block_size={self.config.block_size} and at least one loss position")
        n, loss, grads = int(loss_mask.sum()), 0.0, {} if backward else None
        # rows grouped by length, each group cut to its longest row: the same sums with less padding
        for rows, T in length_groups(loss_mask, src_mask, self.groups):
            part = [a[rows, :T] for a in (ids, targets, loss_mask, src_mask, marks)]
            h, caches, lnf = self._trunk(part[0], part[4])
            g = {} if backward else None
            loss += self._head(h, *part[:4], n, g)
            if backward:
                self._trunk_back(part[0], part[4], g.pop("dh"), caches, lnf, g)
                for name, v in g.items():
                    grads[name] = grads[name] + v if name in grads else v
        return loss, grads

    def _trunk(self, ids, marks):
        """Final LayerNorm'd hidden states h (B, T, d), plus the caches backward needs."""
        P, T = self.params, ids.shape[1]
        x = P["wte"][ids] + P["wpe"][:T] + marks[..., None] * P["wme"]  # (B, T, d)
        bias = causal_bias(T, self.dtype)
        caches = []
        for i in range(self.config.n_layers):
            x, cache = self._block(i, x, bias)
            caches.append(cache)
        h, lnf = layer_norm(x, P["lnf.g"], P["lnf.b"])
        return h, caches, lnf

    def _block(self, i, x, bias):
        P, n = self.params, f"h{i}."
        a, ln1 = layer_norm(x, P[n + "ln1.g"], P[n + "ln1.b"])
        y, att = attention(a, P[n + "attn.w_qkv"], P[n + "attn.b_qkv"], self.config.n_heads, bias)  # (B, T, d)
        x = x + y @ P[n + "attn.w_o"] + P[n + "attn.b_o"]
        m, ln2 = layer_norm(x, P[n + "ln2.g"], P[n + "ln2.b"])
        u = m @ P[n + "mlp.w_in"] + P[n + "mlp.b_in"]  # (B, T, 4d)
        gu, t = gelu(u)
        x = x + gu @ P[n + "mlp.w_out"] + P[n + "mlp.b_out"]
        return x, (ln1, att, y, ln2, m, u, gu, t)

    def _block_back(self, i, dx, cache, grads):
        P, n = self.params, f"h{i}."
        ln1, att, y, ln2, m, u, gu, t = cache
        grads[n + "mlp.w_out"], grads[n + "mlp.b_out"] = linear_grads(gu, dx)
        du = gelu_back(dx @ P[n + "mlp.w_out"].T, u, t)  # (B, T, 4d)
        grads[n + "mlp.w_in"], grads[n + "mlp.b_in"] = linear_grads(m, du)
        dm, grads[n + "ln2.g"], grads[n + "ln2.b"] = layer_norm_back(du @ P[n + "mlp.w_in"].T, ln2)
        dx = dx + dm  # the residual carries dx past the MLP
        grads[n + "attn.w_o"], grads[n + "attn.b_o"] = linear_grads(y, dx)
        da, grads[n + "attn.w_qkv"], grads[n + "attn.b_qkv"] = attention_back(dx @ P[n + "attn.w_o"].T, att)
        dx1, grads[n + "ln1.g"], grads[n + "ln1.b"] = layer_norm_back(da, ln1)
        return dx + dx1

    def _trunk_back(self, ids, marks, dh, caches, lnf, grads):
        dx, grads["lnf.g"], grads["lnf.b"] = layer_norm_back(dh, lnf)
        for i in reversed(range(self.config.n_layers)):
            dx = self._block_back(i, dx, caches[i], grads)
        grads["wpe"] = np.pad(dx.sum(0), ((0, self.config.block_size - ids.shape[1]), (0, 0)))  # (block, d)
        grads["wme"] = (dx * marks[..., None]).sum((0, 1))
        np.add.at(grads["wte"], ids.ravel(), dx.reshape(-1, dx.shape[-1]))  # onto the output head's part

    def _head(self, h, ids, targets, loss_mask, src_mask, n_all, grads) -> float:
        """Sum of −log(p(target) + EPS) over these rows' loss positions / n_all (the batch's loss positions);
        with `grads`, fills the head's grads and grads["dh"]."""
        P, cfg = self.params, self.config
        bi, ti = np.nonzero(loss_mask)  # the N loss positions
        rows = np.arange(len(bi))
        hn, y = h[bi, ti], targets[bi, ti]  # (N, d), (N,)
        pv = softmax(hn @ P["wte"].T)  # (N, V): logits only where there is a loss
        pvy = pv[rows, y]
        g, c = np.ones_like(pvy), np.zeros_like(pvy)  # pointer off: p = softmax
        if cfg.pointer:  # the copy head, at the loss positions only (copy_head.py)
            c, has, copy = copy_forward(h, ids, y, loss_mask, src_mask, P, cfg.d)
            g = np.where(has, sigmoid(hn @ P["gate.w"] + P["gate.b"]), 1.0)
        p = g * pvy + (1 - g) * c
        loss = float(-np.log(p + EPS).sum() / n_all)
        if grads is None:
            return loss
        dp = -1.0 / (n_all * (p + EPS))  # (N,)
        dlogits = -(dp * g * pvy)[:, None] * pv  # (N, V): softmax backward of the one gathered entry
        dlogits[rows, y] += dp * g * pvy
        grads["wte"] = dlogits.T @ hn
        dhn = dlogits @ P["wte"]  # (N, d)
        if cfg.pointer:
            dz = dp * (pvy - c) * g * (1 - g) * has  # through the gate's sigmoid; 0 where g was forced to 1
            grads["gate.w"], grads["gate.b"] = hn.T @ dz, dz.sum(keepdims=True)
            dhn += dz[:, None] * P["gate.w"]
            dh = copy_backward(dp * (1 - g), copy, h, P, cfg.d, grads)
        else:
            dh = np.zeros_like(h)
        dh[bi, ti] += dhn  # loss positions are distinct, so fancy += is exact
        grads["dh"] = dh
        return loss

    # -- inference path --
    def _mixture(self, h, k_src, src_ids, nxt) -> np.ndarray:
        """(V,) distribution at one position: final hidden h (d,), copy keys k_src (S, d) of source ids (S,),
        nxt (S,): the source token before is the token at this position."""
        P = self.params
        pv = softmax(h @ P["wte"].T)  # (V,)
        if not self.config.pointer or len(src_ids) == 0:
            return pv
        beta = h @ P["copy.w_next"] + P["copy.b_next"][0]
        a = softmax(k_src @ (h @ P["copy.w_q"]) / math.sqrt(self.config.d) + beta * nxt)  # (S,)
        g = sigmoid(h @ P["gate.w"] + P["gate.b"][0])
        out = g * pv
        np.add.at(out, src_ids, (1 - g) * a)  # a token at several source positions gets their summed mass
        return out

    def next_distribution(self, ids, src_mask, marks=None) -> np.ndarray:
        """(V,) probability of the token after `ids` (1-D); sources are where `src_mask` is true. Full recompute."""
        ids, src = np.asarray(ids, dtype=np.int64), np.asarray(src_mask, dtype=bool)
        if ids.ndim != 1 or src.shape != ids.shape or not 1 <= len(ids) <= self.config.block_size:
            raise ValueError(f"need 1-D ids of length 1..{self.config.block_size} and a src_mask of the same shape")
        h = self._trunk(ids[None], marks_array(marks, ids.shape, self.dtype)[None])[0][0]  # (T, d)
        k_src = h[src] @ self.params["copy.w_k"] if self.config.pointer else None
        nxt = np.concatenate([[False], ids[:-1] == ids[-1]])[src]
        return self._mixture(h[-1], k_src, ids[src], nxt)

    def _check_prompt(self, ids, src_len):
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        if not 1 <= len(ids) <= self.config.block_size or not 0 <= src_len <= len(ids):
            raise ValueError(f"need a prompt of 1..{self.config.block_size} tokens and 0 <= src_len <= its length")
        return ids

    def _greedy(self, ids, max_new_tokens, stop_ids, next_dist) -> list[int]:
        """argmax decoding while the context fits the block; `next_dist(seq)` is the (V,) distribution after seq."""
        seq, new, stops = list(ids), [], set(stop_ids)
        while len(new) < max_new_tokens and len(seq) <= self.config.block_size:
            new.append(int(np.argmax(next_dist(seq))))
            seq.append(new[-1])
            if new[-1] in stops:
                break
        return new

    def generate_uncached(self, ids, src_len: int, max_new_tokens: int, stop_ids=(), marks=None) -> list[int]:
        """Greedy decoding that recomputes the whole sequence each step (the reference for `generate`)."""
        ids = self._check_prompt(ids, src_len)
        marks = marks_array(marks, ids.shape, self.dtype)
        return self._greedy(ids, max_new_tokens, stop_ids, lambda seq: self.next_distribution(
            seq, np.arange(len(seq)) < src_len, np.pad(marks, (0, len(seq) - len(ids)))))

    def generate(self, ids, src_len: int, max_new_tokens: int, stop_ids=(), marks=None) -> list[int]:
        """Greedy decoding with a KV cache. The first `src_len` tokens are copy sources, generated ones never are;
        `marks` (1 where a prompt token also occurs in the question) are 0 for generated tokens.
        Returns the new tokens: up to and including a stop id, at most `max_new_tokens`, while the context fits."""
        ids, cfg = self._check_prompt(ids, src_len), self.config
        h, caches, _ = self._trunk(ids[None], marks_array(marks, ids.shape, self.dtype)[None])  # prefill over the prompt
        shape = (cfg.n_heads, cfg.block_size, cfg.d // cfg.n_heads)
        K, V = [np.zeros(shape, self.dtype) for _ in caches], [np.zeros(shape, self.dtype) for _ in caches]
        for i, cache in enumerate(caches):
            _, _, q, k, v, _ = cache[1]  # the attention cache (x, w, q, k, v, p); k and v are (1, H, T, hd)
            K[i][:, :len(ids)], V[i][:, :len(ids)] = k[0], v[0]
        k_src = h[0, :src_len] @ self.params["copy.w_k"] if cfg.pointer else None  # (S, d), fixed from here on
        last = [h[0, -1]]  # final hidden state of the newest position

        def next_dist(seq):
            if len(seq) > len(ids):  # the token generated last is not in the cache yet
                last[0] = self._step(seq[-1], len(seq) - 1, K, V)
            nxt = np.concatenate([[False], ids[:src_len - 1] == seq[-1]])[:src_len]
            return self._mixture(last[0], k_src, ids[:src_len], nxt)
        return self._greedy(ids, max_new_tokens, stop_ids, next_dist)

    def _step(self, tok, pos, K, V):
        """Final hidden state (d,) of one token at `pos`; writes its keys/values into the caches K, V."""
        P, cfg = self.params, self.config
        H, hd = cfg.n_heads, cfg.d // cfg.n_heads
        x = P["wte"][tok] + P["wpe"][pos]  # (d,)
        for i in range(cfg.n_layers):
            n = f"h{i}."
            a, _ = layer_norm(x, P[n + "ln1.g"], P[n + "ln1.b"])
            q, K[i][:, pos], V[i][:, pos] = (a @ P[n + "attn.w_qkv"] + P[n + "attn.b_qkv"]).reshape(3, H, hd)
            p = softmax((K[i][:, :pos + 1] @ q[:, :, None])[..., 0] / math.sqrt(hd))  # (H, pos + 1)
            y = (p[:, None, :] @ V[i][:, :pos + 1])[:, 0].reshape(-1)  # (d,)
            x = x + y @ P[n + "attn.w_o"] + P[n + "attn.b_o"]
            m, _ = layer_norm(x, P[n + "ln2.g"], P[n + "ln2.b"])
            x = x + gelu(m @ P[n + "mlp.w_in"] + P[n + "mlp.b_in"])[0] @ P[n + "mlp.w_out"] + P[n + "mlp.b_out"]
        return layer_norm(x, P["lnf.g"], P["lnf.b"])[0]
