"""Training the MiniBiEncoder: the InfoNCE loss, Adam, and the loop over batches of pairs.

    L = (CE(rows of S, diagonal) + CE(columns of S, diagonal)) / 2,   S = Yq Yp^T / tau

Gradients flow back through MiniBiEncoder.backward (biencoder.py); every step is a
seeded batch of (a, b) pairs whose other pairs are the negatives. With `members` > 1, that
many encoders are trained one after another on the same pairs (biencoder_ensemble.py).

What it leaves out: the model itself (biencoder.py), mining the pairs (pairs.py), and
learning-rate schedules (the rate is constant).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .biencoder import BiEncoderConfig, MiniBiEncoder, encode_texts, pack
from .biencoder_ensemble import BiEncoderEnsemble, member_config


def info_nce(yq: np.ndarray, yp: np.ndarray, same: np.ndarray, temperature: float,
             yn: np.ndarray | None = None, same_n: np.ndarray | None = None,
             ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray | None]:
    """Symmetric InfoNCE with in-batch negatives; returns (loss, dL/dyq, dL/dyp, dL/dyn).

    S = yq yp^T / tau; L = (CE(rows of S, diagonal) + CE(columns of S, diagonal)) / 2
    (van den Oord et al. 2018, "CPC"; the symmetric form is CLIP's, Radford et al. 2021).
    `same[i, j]` (i != j) marks pair j as another positive of pair i (an identical query
    or passage text): that off-diagonal logit is masked out of both softmaxes rather than
    being pushed down as a false negative. Hard negatives `yn` (M, d) join every query's
    softmax over passages (DPR's "gold + BM25 negative", Karpukhin et al. 2020) but not the
    passages' softmax over queries; `same_n[i, m]` masks a negative that is query i's passage.
    """
    B = len(yq)
    eye = np.eye(B, dtype=bool)
    S = (yq @ yp.T) / temperature  # (B, B)
    S = np.where(same & ~eye, -np.inf, S)
    Sn = np.zeros((B, 0), dtype=S.dtype) if yn is None else np.where(same_n, -np.inf, (yq @ yn.T) / temperature)  # (B, M)
    R = np.concatenate([S, Sn], axis=1)  # (B, B + M)
    R_row = R - R.max(axis=1, keepdims=True)
    S_col = S - S.max(axis=0, keepdims=True)
    logp_row = R_row - np.log(np.exp(R_row).sum(axis=1, keepdims=True))  # (B, B + M) log softmax over passages
    logp_col = S_col - np.log(np.exp(S_col).sum(axis=0, keepdims=True))  # (B, B) log softmax over queries
    loss = -0.5 * (np.trace(logp_row[:, :B]) + np.trace(logp_col)) / B
    dS = (np.exp(logp_row[:, :B]) + np.exp(logp_col) - 2.0 * eye) / (2.0 * B)  # (B, B); masked entries get 0
    dyq = dS @ yp / temperature  # (B, d)
    dyp = dS.T @ yq / temperature  # (B, d)
    if yn is None:
        return float(loss), dyq, dyp, None
    dSn = np.exp(logp_row[:, B:]) / (2.0 * B)  # (B, M)
    return float(loss), dyq + dSn @ yn / temperature, dyp, dSn.T @ yq / temperature


def loss_and_grads(model: MiniBiEncoder, a: Sequence[Sequence[int]], b: Sequence[Sequence[int]],
                   same: np.ndarray, n: Sequence[Sequence[int]] = (), same_n: np.ndarray | None = None,
                   ) -> tuple[float, dict[str, np.ndarray]]:
    """InfoNCE loss of a batch of pairs (and hard negatives `n`) and its gradients; one pass encodes all."""
    flat, lens = pack(list(a) + list(b) + list(n), model.config.max_tokens)
    y, cache = model.forward(flat, lens)  # (2B + M, d)
    B = len(a)
    yn = y[2 * B:] if len(n) else None
    loss, dyq, dyp, dyn = info_nce(y[:B], y[B:2 * B], same, model.config.temperature, yn, same_n)
    return loss, model.backward(np.concatenate([dyq, dyp] + ([dyn] if dyn is not None else [])), cache)


class Adam:
    """Adam (Kingma & Ba 2015, Algorithm 1), with bias correction:
    m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
    theta -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)."""

    def __init__(self, params: dict[str, np.ndarray], lr: float,
                 beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8):
        self.params, self.lr, self.beta1, self.beta2, self.eps = params, lr, beta1, beta2, eps
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, grads: dict[str, np.ndarray]) -> None:
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        # fold both bias corrections into the step size (same update, fewer array passes)
        step = self.lr * np.sqrt(1 - b2**self.t) / (1 - b1**self.t)
        eps = self.eps * np.sqrt(1 - b2**self.t)
        for k, g in grads.items():
            m, v = self.m[k], self.v[k]
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * (g * g)
            self.params[k] -= step * m / (np.sqrt(v) + eps)


def token_idf(tokens: Sequence[Sequence[int]], vocab_size: int) -> np.ndarray:
    """(V,) smoothed idf of every token id over the texts: log((1 + N) / (1 + df)) + 1
    (scikit-learn's smooth_idf, the formula embed.py uses); unseen tokens get the maximum."""
    lens = np.array([len(t) for t in tokens], dtype=np.int64)
    flat = np.fromiter((i for t in tokens for i in t), dtype=np.int64, count=int(lens.sum()))
    pairs = np.unique(np.repeat(np.arange(len(tokens)), lens) * vocab_size + flat)  # distinct (text, token)
    df = np.bincount(pairs % vocab_size, minlength=vocab_size)  # (V,)
    return np.log((1.0 + len(tokens)) / (1.0 + df)) + 1.0


def same_matrix(a_ids: np.ndarray, b_ids: np.ndarray) -> np.ndarray:
    """(B, B) bool: pairs i and j share their query text or their passage text."""
    return (a_ids[:, None] == a_ids[None, :]) | (b_ids[:, None] == b_ids[None, :])


def train_biencoder(pairs: list[tuple[str, str]], tokenizer, config: BiEncoderConfig,
                    progress: Callable[[int, int, int, float], None] | None = None,
                    negatives: Sequence[str | None] | None = None,
                    ) -> tuple[MiniBiEncoder | BiEncoderEnsemble, list[float]]:
    """Train a MiniBiEncoder on (a, b) pairs; returns the model and the mean loss of each epoch.

    Each distinct text is tokenized once; token vectors start with idf-scaled norms
    (`idf_init`) computed on the training texts. Batches come from a seeded permutation
    per epoch; the last, smaller batch of an epoch is kept (it still has negatives if B > 1).
    `negatives[i]`, when given, is a hard negative passage of pair i (None: none): each batch's
    hard negatives join every query's softmax (info_nce).
    With `members` > 1 the members are trained one after another, member i with seed + i, and
    an ensemble is returned (biencoder_ensemble.py) with the members' mean loss of each epoch.
    `progress(epoch, step, n_steps, loss)` is called after every step (epochs count from 1,
    and on through the members: member i's first epoch is i * epochs + 1).
    Same config, seed, pairs and tokenizer give byte-identical weights on one BLAS thread
    count; OpenBLAS sums a product differently with 1 and 2 threads, so pin it
    (OPENBLAS_NUM_THREADS=1, also the faster setting at these sizes).
    """
    if not pairs:
        raise ValueError("train_biencoder: no training pairs")
    index: dict[str, int] = {}
    a_ids = np.array([index.setdefault(a, len(index)) for a, _ in pairs], dtype=np.int64)  # (n,)
    b_ids = np.array([index.setdefault(b, len(index)) for _, b in pairs], dtype=np.int64)  # (n,)
    n_ids = np.array([-1 if x is None else index.setdefault(x, len(index)) for x in negatives or [None] * len(pairs)],
                     dtype=np.int64)  # (n,); -1: no hard negative
    tokens = [ids[:config.max_tokens] for ids in encode_texts(tokenizer, list(index), config)]
    if config.members == 1:
        return train_member(tokens, (a_ids, b_ids, n_ids), tokenizer.vocab_size, config, progress)
    members, curves = [], []
    for i in range(config.members):
        def shifted(epoch, step, n_steps, loss, i=i):
            progress(i * config.epochs + epoch, step, n_steps, loss)
        model, losses = train_member(tokens, (a_ids, b_ids, n_ids), tokenizer.vocab_size, member_config(config, i),
                                     shifted if progress is not None else None)
        members.append(model)
        curves.append(losses)
    return BiEncoderEnsemble(members, config), [float(x) for x in np.mean(curves, axis=0)]


def train_member(tokens: list[list[int]], ids: tuple[np.ndarray, np.ndarray, np.ndarray], vocab_size: int,
                 config: BiEncoderConfig, progress: Callable[[int, int, int, float], None] | None,
                 ) -> tuple[MiniBiEncoder, list[float]]:
    """One seeded encoder trained on the pairs `ids` = (query, passage, hard negative or -1) text indices."""
    a_ids, b_ids, n_ids = ids
    model = initial_model(tokens, vocab_size, config)
    opt = Adam(model.params, config.lr)
    rng = np.random.default_rng([config.seed, 1])  # batch order; init used stream [seed]
    n, bs = len(a_ids), config.batch_size
    n_steps = (n + bs - 1) // bs
    losses = []
    for epoch in range(1, config.epochs + 1):
        order = rng.permutation(n)
        total = 0.0
        for step in range(n_steps):
            idx = order[step * bs:(step + 1) * bs]
            qa, pb = a_ids[idx], b_ids[idx]
            neg = np.unique(n_ids[idx][n_ids[idx] >= 0])  # (M,) the batch's distinct hard negatives
            loss, grads = loss_and_grads(model, [tokens[i] for i in qa], [tokens[i] for i in pb],
                                         same_matrix(qa, pb), [tokens[i] for i in neg],
                                         (pb[:, None] == neg[None, :]) | (qa[:, None] == neg[None, :]))
            opt.step(grads)
            total += loss * len(idx)
            if progress is not None:
                progress(epoch, step + 1, n_steps, loss)
        losses.append(total / n)
    return model, losses


def initial_model(tokens: list[list[int]], vocab_size: int, config: BiEncoderConfig) -> MiniBiEncoder:
    """A seeded MiniBiEncoder whose token vectors start with idf-scaled norms over the training texts."""
    model = MiniBiEncoder(vocab_size, config)
    # Mean pooling weighs every token alike; starting rare tokens with longer vectors makes
    # the untrained encoder a random projection of an idf-weighted bag of tokens (a TF-IDF
    # control), which training then refines. Normalised by the mean so the scale stays ~1.
    idf = token_idf(tokens, vocab_size)  # (V,)
    scale = (idf / idf.mean()) ** config.idf_init  # (V,)
    model.params["tok_emb"] *= scale[:, None].astype(model.params["tok_emb"].dtype)
    return model
