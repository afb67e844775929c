"""MiniBiEncoder: a small dense retriever trained in numpy, gradients written by hand.

One encoder embeds queries and passages alike (a siamese bi-encoder):

    p = masked mean of the token embeddings of the sequence   # (B, token_dim)
    h = gelu(p @ W1 + b1)                                      # (B, hidden)
    z = h @ W2 + b2                                            # (B, d)
    y = z / ||z||                                              # (B, d), cosine = dot product

It is trained on (a, b) text pairs with the symmetric InfoNCE loss over in-batch
negatives and Adam; `train_biencoder` is the whole loop. Sequences are packed without
padding (a flat token array plus lengths) and pooled by one matrix product over the
batch's distinct tokens, whatever the mix of lengths in a batch.

Two choices beyond the textbook recipe, each measured in bench/README.md:
texts are normalized before tokenizing (lowercase, punctuation spaced out, so a word
gives the same BPE tokens in a table cell, in quotes or at a sentence start), and token
vectors start with norms that grow with the token's idf over the training texts, so
the untrained encoder is already an idf-weighted random projection of the bag of tokens.

What it leaves out: word order (a bag of tokens, no attention or positions), the
tokenizer (any object with `encode_batch` and `vocab_size`), mining the pairs
(`minirag/pairs.py`), nearest-neighbour search, and any GPU or autograd library.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from .io import save_npz, sha256_bytes, write_json
from .settings import settings_from_dict


@dataclass
class BiEncoderConfig:
    d: int = 64                    # output dimension of the embeddings
    hidden: int = 128              # width of the MLP's hidden layer
    token_dim: int = 128           # width of the token embeddings that are pooled
    max_tokens: int = 128          # token sequences are truncated to this length
    epochs: int = 8                # passes over the training pairs
    batch_size: int = 64           # pairs per step; the other pairs of a batch are the negatives
    lr: float = 3e-3               # Adam learning rate (constant)
    temperature: float = 0.05      # InfoNCE temperature: logits are cosine / temperature
    seed: int = 0                  # initialisation and batch order
    idf_init: float = 2.0          # token vectors start with norm ~ idf^idf_init over the training texts (0 = plain)
    normalize: bool = True         # lowercase and space out punctuation before tokenizing (see normalize_text)
    sources: tuple[str, ...] = ("title", "ict", "crops", "table_rows")  # pair sources (pairs.py)
    ict_per_chunk: int = 8         # inverse-cloze pairs mined per chunk (pairs.mine_pairs)
    crops_per_chunk: int = 4       # crop pairs mined per chunk (pairs.mine_pairs)
    qrels_repeat: int = 5          # BEIR train-split pairs, when used, are added this many times (few, in-domain)

    @classmethod
    def from_dict(cls, values: dict) -> "BiEncoderConfig":
        """Build from JSON-ish values; unknown keys are an error so a typo cannot pass silently."""
        return settings_from_dict(cls, values, "biencoder")


PARAM_NAMES = ("tok_emb", "W1", "b1", "W2", "b2")
GELU_C = np.sqrt(2.0 / np.pi)


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU, tanh approximation (Hendrycks & Gimpel 2016, eq. in sec. 2):
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return 0.5 * x * (1.0 + np.tanh(GELU_C * (x + 0.044715 * x**3)))


def gelu_grad(x: np.ndarray) -> np.ndarray:
    """d gelu / dx of the tanh approximation: 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2)."""
    t = np.tanh(GELU_C * (x + 0.044715 * x**3))
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * GELU_C * (1.0 + 3 * 0.044715 * x * x)


def pack(batch: Sequence[Sequence[int]], max_tokens: int) -> tuple[np.ndarray, np.ndarray]:
    """Flatten token sequences, each truncated to max_tokens: (flat ids (N_tok,), lengths (B,))."""
    lens = np.fromiter((min(len(s), max_tokens) for s in batch), dtype=np.int64, count=len(batch))
    flat = np.fromiter((t for s in batch for t in s[:max_tokens]), dtype=np.int64, count=int(lens.sum()))
    return flat, lens


def bag_of_tokens(flat: np.ndarray, lens: np.ndarray, dtype) -> tuple[np.ndarray, np.ndarray]:
    """The batch's distinct token ids `uniq` (U,) and the pooling matrix M (B, U) with
    M[i, u] = count of uniq[u] in sequence i / len(sequence i), so that the masked mean of
    the token embeddings is M @ table[uniq]. An empty sequence is a zero row.

    Pooling as a matrix product makes its gradient one too (table[uniq] += M^T @ dpooled),
    which is far faster than scattering every token's gradient with np.add.at.
    """
    B = len(lens)
    uniq, inv = np.unique(flat, return_inverse=True)  # (U,), (N_tok,)
    rows = np.repeat(np.arange(B), lens)  # (N_tok,)
    weights = np.repeat(1.0 / np.maximum(lens, 1), lens)  # (N_tok,)
    M = np.bincount(rows * len(uniq) + inv, weights=weights, minlength=B * len(uniq))
    return uniq, M.reshape(B, len(uniq)).astype(dtype)  # (U,), (B, U)


def info_nce(yq: np.ndarray, yp: np.ndarray, same: np.ndarray, temperature: float
             ) -> tuple[float, np.ndarray, np.ndarray]:
    """Symmetric InfoNCE with in-batch negatives; returns (loss, dL/dyq, dL/dyp).

    S = yq yp^T / tau; L = (CE(rows of S, diagonal) + CE(columns of S, diagonal)) / 2
    (van den Oord et al. 2018, "CPC"; the symmetric form is CLIP's, Radford et al. 2021).
    `same[i, j]` (i != j) marks pair j as another positive of pair i (an identical query
    or passage text): that off-diagonal logit is masked out of both softmaxes rather than
    being pushed down as a false negative.
    """
    B = len(yq)
    eye = np.eye(B, dtype=bool)
    S = (yq @ yp.T) / temperature  # (B, B)
    S = np.where(same & ~eye, -np.inf, S)
    S_row = S - S.max(axis=1, keepdims=True)
    S_col = S - S.max(axis=0, keepdims=True)
    logp_row = S_row - np.log(np.exp(S_row).sum(axis=1, keepdims=True))  # (B, B) log softmax over passages
    logp_col = S_col - np.log(np.exp(S_col).sum(axis=0, keepdims=True))  # (B, B) log softmax over queries
    loss = -0.5 * (np.trace(logp_row) + np.trace(logp_col)) / B
    dS = (np.exp(logp_row) + np.exp(logp_col) - 2.0 * eye) / (2.0 * B)  # (B, B); masked entries get 0
    dyq = dS @ yp / temperature  # (B, d)
    dyp = dS.T @ yq / temperature  # (B, d)
    return float(loss), dyq, dyp


class MiniBiEncoder:
    """The encoder's weights and its forward/backward passes; dtype follows the weights."""

    def __init__(self, vocab_size: int, config: BiEncoderConfig):
        self.vocab_size = vocab_size
        self.config = config
        rng = np.random.default_rng(config.seed)
        e, h, d = config.token_dim, config.hidden, config.d

        def normal(shape, std):
            return (rng.standard_normal(shape) * std).astype(np.float32)

        # Unit-variance token vectors make the untrained encoder a random projection of
        # the bag of tokens (texts sharing tokens start close); the linear layers use
        # LeCun-normal scaling so activations keep their scale.
        self.params: dict[str, np.ndarray] = {
            "tok_emb": normal((vocab_size, e), 1.0),  # (V, e)
            "W1": normal((e, h), 1.0 / np.sqrt(e)),   # (e, H)
            "b1": np.zeros(h, dtype=np.float32),      # (H,)
            "W2": normal((h, d), 1.0 / np.sqrt(h)),   # (H, d)
            "b2": np.zeros(d, dtype=np.float32),      # (d,)
        }

    def forward(self, flat: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, tuple]:
        """Embed packed sequences: returns y (B, d) and the cache `backward` needs."""
        P = self.params
        uniq, M = bag_of_tokens(flat, lens, P["tok_emb"].dtype)  # (U,), (B, U)
        pooled = M @ P["tok_emb"][uniq]  # (B, e)
        pre = pooled @ P["W1"] + P["b1"]  # (B, H)
        act = gelu(pre)  # (B, H)
        z = act @ P["W2"] + P["b2"]  # (B, d)
        norm = np.sqrt((z * z).sum(axis=1, keepdims=True)) + 1e-12  # (B, 1)
        y = z / norm  # (B, d)
        return y, (uniq, M, pooled, pre, act, y, norm)

    def backward(self, dy: np.ndarray, cache: tuple) -> dict[str, np.ndarray]:
        """Gradients of every parameter given dL/dy (B, d)."""
        uniq, M, pooled, pre, act, y, norm = cache
        P = self.params
        # y = z/|z|  =>  dz = (dy - y (y . dy)) / |z|
        dz = (dy - y * (y * dy).sum(axis=1, keepdims=True)) / norm  # (B, d)
        grads = {"W2": act.T @ dz, "b2": dz.sum(axis=0)}
        dpre = (dz @ P["W2"].T) * gelu_grad(pre)  # (B, H)
        grads["W1"] = pooled.T @ dpre
        grads["b1"] = dpre.sum(axis=0)
        dpooled = dpre @ P["W1"].T  # (B, e)
        d_tok = np.zeros_like(P["tok_emb"])  # (V, e); rows of tokens not in the batch stay 0
        d_tok[uniq] = M.T @ dpooled  # (U, e)
        grads["tok_emb"] = d_tok
        return grads

    def loss_and_grads(self, a: Sequence[Sequence[int]], b: Sequence[Sequence[int]],
                       same: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        """InfoNCE loss of a batch of pairs and its gradients; one pass encodes a and b together."""
        flat, lens = pack(list(a) + list(b), self.config.max_tokens)
        y, cache = self.forward(flat, lens)  # (2B, d)
        B = len(a)
        loss, dyq, dyp = info_nce(y[:B], y[B:], same, self.config.temperature)
        return loss, self.backward(np.concatenate([dyq, dyp]), cache)

    def encode_ids(self, batch: list[list[int]], block: int = 1024) -> np.ndarray:
        """(B, d) float32 unit vectors; sequences are encoded `block` at a time to bound memory."""
        out = np.zeros((len(batch), self.config.d), dtype=np.float32)
        for i in range(0, len(batch), block):
            y, _ = self.forward(*pack(batch[i:i + block], self.config.max_tokens))
            out[i:i + block] = y
        return out

    def fingerprint(self) -> str:
        """sha256 of the weights (names, shapes, dtypes and bytes), independent of file format."""
        parts = []
        for name in PARAM_NAMES:
            arr = np.ascontiguousarray(self.params[name])
            parts.append(f"{name}:{arr.dtype.str}:{arr.shape}".encode() + arr.tobytes())
        return sha256_bytes(b"\n".join(parts))

    def save(self, path_npz, sidecar: dict) -> None:
        """Weights as .npz, and next to it (same name, .json) the config plus `sidecar`."""
        path = Path(path_npz)
        save_npz(path, **{name: self.params[name] for name in PARAM_NAMES})
        meta = {"config": asdict(self.config), "vocab_size": self.vocab_size,
                "weights_sha256": self.fingerprint(), **sidecar}
        write_json(path.with_suffix(".json"), meta)

    @classmethod
    def load(cls, path_npz) -> "MiniBiEncoder":
        path = Path(path_npz)
        meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        model = cls.__new__(cls)
        model.config = BiEncoderConfig.from_dict(meta["config"])
        model.vocab_size = meta["vocab_size"]
        with np.load(path, allow_pickle=False) as npz:
            model.params = {name: npz[name] for name in PARAM_NAMES}
        if model.fingerprint() != meta["weights_sha256"]:
            raise ValueError(f"{path}: weights do not match the sha256 in {path.with_suffix('.json').name}")
        return model


class BiEncoderEmbedder:
    """The `Embedder` interface over a trained MiniBiEncoder: `d` and `embed(texts)`."""

    def __init__(self, model: MiniBiEncoder, tokenizer):
        self.model = model
        self.tokenizer = tokenizer
        self.d = model.config.d

    def embed(self, texts: list[str]) -> np.ndarray:
        """(N, d) float32, L2-normalised."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.d), dtype=np.float32)
        return self.model.encode_ids(encode_texts(self.tokenizer, texts, self.model.config))


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


PUNCT_RE = re.compile(r"([^\w\s])")


def normalize_text(text: str) -> str:
    """Lowercase, put a space on both sides of every punctuation mark, collapse whitespace.

    The BPE pre-tokenizer glues a leading space or punctuation mark to a word, so "| go |",
    "'go'", "(go)" and "Go" would give different tokens for one word; after this every
    word reaches the tokenizer as " word" and matches itself wherever it occurs.
    """
    return " ".join(PUNCT_RE.sub(r" \1 ", text.lower()).split())


def encode_texts(tokenizer, texts: list[str], config: BiEncoderConfig) -> list[list[int]]:
    """Token ids as training and embedding both see them (normalized if the config says so)."""
    return tokenizer.encode_batch([normalize_text(t) for t in texts] if config.normalize else list(texts))


def same_matrix(a_ids: np.ndarray, b_ids: np.ndarray) -> np.ndarray:
    """(B, B) bool: pairs i and j share their query text or their passage text."""
    return (a_ids[:, None] == a_ids[None, :]) | (b_ids[:, None] == b_ids[None, :])


def train_biencoder(pairs: list[tuple[str, str]], tokenizer, config: BiEncoderConfig,
                    progress: Callable[[int, int, int, float], None] | None = None,
                    ) -> tuple[MiniBiEncoder, list[float]]:
    """Train a MiniBiEncoder on (a, b) pairs; returns the model and the mean loss of each epoch.

    Each distinct text is tokenized once; token vectors start with idf-scaled norms
    (`idf_init`) computed on the training texts. Batches come from a seeded permutation
    per epoch; the last, smaller batch of an epoch is kept (it still has negatives if B > 1).
    `progress(epoch, step, n_steps, loss)` is called after every step (epochs count from 1).
    Same config, seed, pairs and tokenizer give byte-identical weights on one BLAS thread
    count; OpenBLAS sums a product differently with 1 and 2 threads, so pin it
    (OPENBLAS_NUM_THREADS=1, also the faster setting at these sizes).
    """
    if not pairs:
        raise ValueError("train_biencoder: no training pairs")
    index: dict[str, int] = {}
    a_ids = np.array([index.setdefault(a, len(index)) for a, _ in pairs], dtype=np.int64)  # (n,)
    b_ids = np.array([index.setdefault(b, len(index)) for _, b in pairs], dtype=np.int64)  # (n,)
    tokens = [ids[:config.max_tokens] for ids in encode_texts(tokenizer, list(index), config)]

    model = MiniBiEncoder(tokenizer.vocab_size, config)
    # Mean pooling weighs every token alike; starting rare tokens with longer vectors makes
    # the untrained encoder a random projection of an idf-weighted bag of tokens (a TF-IDF
    # control), which training then refines. Normalised by the mean so the scale stays ~1.
    idf = token_idf(tokens, tokenizer.vocab_size)  # (V,)
    scale = (idf / idf.mean()) ** config.idf_init  # (V,)
    model.params["tok_emb"] *= scale[:, None].astype(model.params["tok_emb"].dtype)
    opt = Adam(model.params, config.lr)
    rng = np.random.default_rng([config.seed, 1])  # batch order; init used stream [seed]
    n, bs = len(pairs), config.batch_size
    n_steps = (n + bs - 1) // bs
    losses = []
    for epoch in range(1, config.epochs + 1):
        order = rng.permutation(n)
        total = 0.0
        for step in range(n_steps):
            idx = order[step * bs:(step + 1) * bs]
            qa, pb = a_ids[idx], b_ids[idx]
            loss, grads = model.loss_and_grads([tokens[i] for i in qa], [tokens[i] for i in pb],
                                               same_matrix(qa, pb))
            opt.step(grads)
            total += loss * len(idx)
            if progress is not None:
                progress(epoch, step + 1, n_steps, loss)
        losses.append(total / n)
    return model, losses
