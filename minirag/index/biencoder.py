"""MiniBiEncoder: a small dense retriever trained in numpy, gradients written by hand.

One encoder embeds queries and passages alike (a siamese bi-encoder):

    p = masked mean of the token embeddings of the sequence   # (B, token_dim)
    h = gelu(p @ W1 + b1)                                      # (B, hidden)
    z = h @ W2 + b2                                            # (B, d)
    y = z / ||z||                                              # (B, d), cosine = dot product

It is trained on (a, b) text pairs with the symmetric InfoNCE loss over in-batch
negatives and Adam (biencoder_train.py holds the loss, the optimiser and the loop). Sequences are packed without
padding (a flat token array plus lengths) and pooled by one matrix product over the
batch's distinct tokens, whatever the mix of lengths in a batch.

Two choices beyond the textbook recipe, each measured in bench/README.md:
texts are normalized before tokenizing (lowercase, punctuation spaced out, so a word
gives the same BPE tokens in a table cell, in quotes or at a sentence start), and token
vectors start with norms that grow with the token's idf over the training texts, so
the untrained encoder is already an idf-weighted random projection of the bag of tokens.

What it leaves out: word order (a bag of tokens, no attention or positions), the
tokenizer (any object with `encode_batch` and `vocab_size`), mining the pairs
(index/pairs.py), nearest-neighbour search, and any GPU or autograd library.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal, Sequence

import numpy as np

from ..artifacts import content
from ..artifacts.io import load_npz, read_json, save_npz, sha256_bytes, write_json
from ..settings import setting, settings_from_dict


@dataclass(frozen=True)
class BiEncoderConfig:
    """The MiniBiEncoder's shape and its training."""
    d: int = setting(64, minimum=1)            # output dimension of the embeddings
    hidden: int = setting(128, minimum=1)      # width of the MLP's hidden layer
    token_dim: int = setting(128, minimum=1)   # width of the token embeddings that are pooled
    max_tokens: int = setting(128, minimum=1)  # token sequences are truncated to this length
    epochs: int = setting(8, minimum=1)        # passes over the training pairs
    batch_size: int = setting(64, minimum=2)   # pairs per step; the other pairs of a batch are the negatives
    lr: float = setting(3e-3, exclusive_minimum=0)  # Adam learning rate (constant)
    temperature: float = setting(0.05, exclusive_minimum=0)  # InfoNCE temperature: logits are cosine / temperature
    seed: int = 0                              # initialisation and batch order
    idf_init: float = setting(2.0, minimum=0)  # token vectors start with norm ~ idf^idf_init over the training texts (0 = plain)
    normalize: bool = True                     # lowercase and space out punctuation before tokenizing (see normalize_text)
    sources: tuple[Literal["title", "ict", "crops", "table_rows"], ...] = ("title", "ict", "crops", "table_rows")  # pair sources (pairs.py)
    ict_per_chunk: int = setting(8, minimum=0)     # inverse-cloze pairs mined per chunk (pairs.mine_pairs)
    crops_per_chunk: int = setting(4, minimum=0)   # crop pairs mined per chunk (pairs.mine_pairs)
    qrels_repeat: int = setting(5, minimum=1)      # BEIR train-split pairs, when used, are added this many times (few, in-domain)
    members: int = setting(1, minimum=1)  # encoders trained alike with seeds seed, seed+1, ...; a text's vector is
                                          # theirs side by side / sqrt(members): the cosine is the mean of theirs

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

    @property
    def dim(self) -> int:
        """Width of the vectors `encode_ids` returns."""
        return self.config.d

    def encode_ids(self, batch: list[list[int]], block: int = 1024) -> np.ndarray:
        """(B, d) float32 unit vectors; sequences are encoded `block` at a time to bound memory."""
        out = np.zeros((len(batch), self.config.d), dtype=np.float32)
        for i in range(0, len(batch), block):
            y, _ = self.forward(*pack(batch[i:i + block], self.config.max_tokens))
            out[i:i + block] = y
        return out

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights by name, as saved."""
        return {name: self.params[name] for name in PARAM_NAMES}

    def fingerprint(self) -> str:
        """sha256 of the weights (names, shapes, dtypes and bytes), independent of file format."""
        return weights_sha256(self.arrays())

    def save(self, path_npz, sidecar: dict) -> None:
        """Weights as .npz, and next to it (same name, .json) the config plus `sidecar`."""
        save_weights(path_npz, self.arrays(), self.config, self.vocab_size, sidecar)

    @classmethod
    def load(cls, path_npz) -> "MiniBiEncoder":
        path = Path(path_npz)
        meta = read_json(path.with_suffix(".json"))
        missing = [k for k in ("config", "vocab_size", "weights_sha256") if not isinstance(meta, dict) or k not in meta]
        if missing:
            raise ValueError(f"{path.with_suffix('.json')}: no {', '.join(missing)}; re-run train_biencoder")
        model = cls.__new__(cls)
        model.config = BiEncoderConfig.from_dict(meta["config"])
        model.vocab_size = meta["vocab_size"]
        arrays = load_npz(path)
        absent = [name for name in PARAM_NAMES if name not in arrays]
        if absent:
            raise ValueError(f"{path}: no weights {', '.join(absent)}; re-run train_biencoder")
        content.weights(arrays, path)
        model.params = {name: arrays[name] for name in PARAM_NAMES}
        if model.fingerprint() != meta["weights_sha256"]:
            raise ValueError(f"{path}: weights do not match the sha256 in {path.with_suffix('.json').name}")
        return model


def weights_sha256(arrays: dict[str, np.ndarray]) -> str:
    """sha256 of named weights (names, shapes, dtypes and bytes, in the mapping's order), independent of
    file format: an encoder's, or an ensemble's members' side by side (biencoder_ensemble.py)."""
    parts = []
    for name, arr in arrays.items():
        arr = np.ascontiguousarray(arr)
        parts.append(f"{name}:{arr.dtype.str}:{arr.shape}".encode() + arr.tobytes())
    return sha256_bytes(b"\n".join(parts))


def save_weights(path_npz, arrays: dict[str, np.ndarray], config: BiEncoderConfig, vocab_size: int,
                 sidecar: dict) -> None:
    """`arrays` as .npz, and next to it (same name, .json) the config, the vocabulary size, their sha256
    and `sidecar`."""
    path = Path(path_npz)
    save_npz(path, **arrays)
    write_json(path.with_suffix(".json"), {"config": asdict(config), "vocab_size": vocab_size,
                                           "weights_sha256": weights_sha256(arrays), **sidecar})


class BiEncoderEmbedder:
    """The `Embedder` interface over a trained MiniBiEncoder (or an ensemble of them): `d` and `embed(texts)`."""

    def __init__(self, model, tokenizer):
        self.model = model
        self.tokenizer = tokenizer
        self.d = model.dim

    def embed(self, texts: list[str]) -> np.ndarray:
        """(N, d) float32, L2-normalised."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.d), dtype=np.float32)
        return self.model.encode_ids(encode_texts(self.tokenizer, texts, self.model.config))


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


