"""SentenceEncoder: a sentence-transformers BERT model (e.g. all-MiniLM-L6-v2) run in numpy, without torch.

It reads the folder as sentence-transformers saves it: modules.json (Transformer, Pooling, optionally
Normalize), the Transformer's config.json, sentence_bert_config.json, tokenizer.json (`tokenizers`) and
model.safetensors (`safetensors.numpy`), and the Pooling config.json. Texts are tokenized (truncated to
max_seq_length), sorted by token count and batched, each batch padded to its own longest, and run in float32:

    x = LayerNorm(word[ids] + position[0..T-1] + token_type[0])     # (B, T, d)
    per layer:  a = softmax(Q K^T / sqrt(d_head) + padding mask) V   # (B, H, T, d_head)
                x = LayerNorm(x + a W_o + b_o)                       # (B, T, d)
                x = LayerNorm(x + act(x W_i + b_i) W_f + b_f)        # (B, T, d)

then pooled over the real tokens (mean, CLS and/or max, concatenated in sentence-transformers' order
cls, max, mean when several are on) and L2-normalised if and only if modules.json lists Normalize.
"gelu" is x Phi(x) = x/2 (1 + erf(x / sqrt 2)) with erf by Abramowitz & Stegun 7.1.26 (absolute
error <= 1.5e-7, about float32's resolution); "gelu_new" is x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).

Reading and checking the folder's config files and its hash: bert_folder.py.

What it leaves out: other architectures (RoBERTa's offset positions, relative positions, decoders), sentence
pairs and token types other than 0, other modules (Dense, ...), pooling modes other than mean/cls/max
(mean_sqrt_len, weightedmean, lasttoken), prompts, float16, downloading a model, choosing or registering one.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from .bert_folder import ACTIVATION_NAMES, BertConfig, ModelFolder, read_json, read_pooling

CHUNK_TOKENS = 512  # tokens per forward pass (sequences of one padded batch), so activations stay in cache
TOKENIZE_BLOCK = 4096  # texts tokenized at once; their ids then go into one flat int32 table
BLOCK = 1 << 16  # elements per block of the softmax and the activation, to stay in L2
NEG = np.float32(np.finfo(np.float32).min)  # additive mask on padded keys: exp(NEG - max) == 0


def layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    x = x - x.mean(axis=-1, keepdims=True)  # (N, d)
    x *= 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + np.float32(eps))  # (N, d) / (N, 1)
    return np.add(np.multiply(x, g, out=x), b, out=x)


def gelu_erf(x: np.ndarray) -> np.ndarray:
    """x Phi(x) = max(x, 0) - |x| erfc(|x| / sqrt 2) / 2, erfc by A&S 7.1.26; overwrites x (N, I)."""
    a = np.abs(x)  # (N, I)
    t = np.reciprocal(a * np.float32(0.3275911 / math.sqrt(2.0)) + np.float32(1))  # (N, I)
    p = t * np.float32(0.5 * 1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        p += np.float32(0.5 * c)
        p *= t  # Horner: p = t (c/2 + p), so at the end p = erfc(|x| / sqrt 2) exp(x^2 / 2) / 2
    p *= np.exp(a * a * np.float32(-0.5))
    p *= a
    np.maximum(x, np.float32(0), out=x)
    x -= p
    return x


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    """x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); overwrites x (N, I)."""
    u = np.tanh((x * x * np.float32(0.044715) + np.float32(1)) * x * np.float32(math.sqrt(2 / math.pi)))  # (N, I)
    x *= u * np.float32(0.5) + np.float32(0.5)
    return x


ACTIVATIONS = {"gelu": gelu_erf, "gelu_new": gelu_tanh}
assert tuple(ACTIVATIONS) == ACTIVATION_NAMES  # what bert_folder.py accepts in config.json


def bert_weights(tensors: dict[str, np.ndarray], cfg: BertConfig, where: Path) -> dict:
    """The encoder's weights in float32, laid out for numpy: (in, out) matrices, fused Q|K|V per layer."""
    prefix = "bert." if any(k.startswith("bert.") for k in tensors) else ""

    def get(name: str, *shape: int) -> np.ndarray:
        if prefix + name not in tensors:
            raise ValueError(f"{where}: weight {prefix + name!r} is missing")
        w = np.asarray(tensors[prefix + name], dtype=np.float32)
        if w.shape != shape:
            raise ValueError(f"{where}: weight {prefix + name!r} has shape {w.shape}, config.json implies {shape}")
        return w

    def lin(name: str, n_out: int, n_in: int) -> tuple[np.ndarray, np.ndarray]:  # torch stores (out, in)
        return np.ascontiguousarray(get(name + ".weight", n_out, n_in).T), get(name + ".bias", n_out)

    def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
        return get(name + ".weight", d), get(name + ".bias", d)

    d, inner, e = cfg.hidden_size, cfg.intermediate_size, "embeddings."
    scale = np.float32(1 / math.sqrt(d // cfg.num_attention_heads))  # folded into Q
    out = {"word": get(e + "word_embeddings.weight", cfg.vocab_size, d),  # (V, d)
           "pos_type": get(e + "position_embeddings.weight", cfg.max_position_embeddings, d)
           + get(e + "token_type_embeddings.weight", cfg.type_vocab_size, d)[0],  # (P, d), token type 0 everywhere
           "ln": norm(e + "LayerNorm"), "layers": []}
    for i in range(cfg.num_hidden_layers):
        pre = f"encoder.layer.{i}."
        (qw, qb), (kw, kb), (vw, vb) = (lin(pre + "attention.self." + n, d, d) for n in ("query", "key", "value"))
        a, f = pre + "attention.output.", pre + "output."
        out["layers"].append({"qkv": (np.hstack([qw * scale, kw, vw]), np.concatenate([qb * scale, kb, vb])),  # (d, 3d)
                              "o": lin(a + "dense", d, d), "ln1": norm(a + "LayerNorm"), "ln2": norm(f + "LayerNorm"),
                              "i": lin(pre + "intermediate.dense", inner, d), "f": lin(f + "dense", d, inner)})
    return out


class SentenceEncoder:
    """Embeds texts as a sentence-transformers model folder does: (N, d) float32 rows."""

    def __init__(self, cfg: BertConfig, weights: dict, tokenizer, max_seq_length: int, pooling: Sequence[str],
                 normalize: bool, lowercase: bool = False):
        self.cfg, self.w, self.tokenizer, self.max_seq_length = cfg, weights, tokenizer, max_seq_length
        self.pooling, self.normalize, self.lowercase = tuple(pooling), normalize, lowercase
        self.d = cfg.hidden_size * len(self.pooling)
        self.act = ACTIVATIONS[cfg.hidden_act]

    @classmethod
    def from_folder(cls, path: str | Path) -> "SentenceEncoder":
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = ModelFolder.read(path)
        t = folder.transformer
        cfg = BertConfig.from_file(t / "config.json")
        st = read_json(t / "sentence_bert_config.json") if (t / "sentence_bert_config.json").exists() else {}
        n = st.get("max_seq_length") or cfg.max_position_embeddings
        if type(n) is not int or not 2 <= n <= cfg.max_position_embeddings:
            raise ValueError(f"{t / 'sentence_bert_config.json'}: max_seq_length = {n!r} must be an integer in "
                             f"[2, max_position_embeddings = {cfg.max_position_embeddings}]")
        pooling = read_pooling(folder.pooling / "config.json", cfg.hidden_size)
        if missing := [p for p in folder.files() if not p.exists()]:  # e.g. a pytorch_model.bin-only folder
            raise ValueError(f"{missing[0]}: missing (the model folder needs it)")
        tok = Tokenizer.from_file(str(t / "tokenizer.json"))
        tok.no_padding()  # the file may ask for fixed-length padding: batches are padded here instead
        tok.enable_truncation(max_length=n)  # counts [CLS] and [SEP]
        if (size := tok.get_vocab_size(with_added_tokens=True)) > cfg.vocab_size:
            raise ValueError(f"{t / 'tokenizer.json'}: {size} tokens, more than config.json's vocab_size")
        weights = bert_weights(load_file(str(t / "model.safetensors")), cfg, t / "model.safetensors")
        return cls(cfg, weights, tok, n, pooling, folder.normalize is not None, bool(st.get("do_lower_case")))

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids per text, with [CLS] and [SEP], truncated to max_seq_length."""
        texts = [t.lower() for t in texts] if self.lowercase else list(texts)
        return [e.ids for e in self.tokenizer.encode_batch(texts)]

    def token_table(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Every text's token ids end to end (total,) int32 and where each starts (N + 1,) int64:
        4 bytes a token instead of a Python list per text, so a million texts fit in RAM."""
        ids, lengths = [], np.zeros(len(texts), dtype=np.int64)  # (N,)
        for start in range(0, len(texts), TOKENIZE_BLOCK):
            block = self.token_ids(texts[start:start + TOKENIZE_BLOCK])
            lengths[start:start + len(block)] = [len(t) for t in block]
            ids.append(np.fromiter((i for t in block for i in t), dtype=np.int32, count=sum(map(len, block))))
        offsets = np.zeros(len(texts) + 1, dtype=np.int64)  # (N + 1,)
        np.cumsum(lengths, out=offsets[1:])
        return (np.concatenate(ids) if ids else np.zeros(0, dtype=np.int32)), offsets

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Last hidden states (B, T, d) of token ids (B, T) with mask (B, T): 1 = real token, 0 = padding."""
        cfg, w, (B, T) = self.cfg, self.w, ids.shape
        d, H, eps = cfg.hidden_size, cfg.num_attention_heads, cfg.layer_norm_eps
        dh, rows, g = d // H, max(1, BLOCK // cfg.intermediate_size), max(1, BLOCK // (T * T))  # g heads per block
        x = layer_norm((w["word"][ids] + w["pos_type"][:T]).reshape(B * T, d), *w["ln"], eps)  # (B*T, d)
        bias = np.repeat(np.where(mask[:, None, :] > 0, np.float32(0), NEG), H, axis=0)  # (B*H, 1, T) on the keys
        for L in w["layers"]:
            qkv = (x @ L["qkv"][0] + L["qkv"][1]).reshape(B, T, 3, H, dh)  # (B, T, 3, H, dh)
            q, k, v = np.ascontiguousarray(qkv.transpose(2, 0, 3, 1, 4)).reshape(3, B * H, T, dh)  # (B*H, T, dh) each
            a = np.empty_like(q)  # (B*H, T, dh)
            for i in range(0, B * H, g):
                s = q[i:i + g] @ k[i:i + g].transpose(0, 2, 1)  # (g, T, T), Q already scaled by 1/sqrt(dh)
                s += bias[i:i + g]
                s -= s.max(axis=-1, keepdims=True)
                np.exp(s, out=s)
                np.matmul(s, v[i:i + g], out=a[i:i + g])  # (g, T, dh)
                a[i:i + g] /= s.sum(axis=-1, keepdims=True)  # softmax over the keys, normalised after the product
            a = a.reshape(B, H, T, dh).transpose(0, 2, 1, 3).reshape(B * T, d)  # (B*T, d), heads side by side
            x = layer_norm(a @ L["o"][0] + L["o"][1] + x, *L["ln1"], eps)  # (B*T, d)
            h = x @ L["i"][0]  # (B*T, I)
            for i in range(0, B * T, rows):  # in place, by blocks of rows that stay in cache
                h[i:i + rows] += L["i"][1]
                self.act(h[i:i + rows])
            x = layer_norm(h @ L["f"][0] + L["f"][1] + x, *L["ln2"], eps)  # (B*T, I) @ (I, d) -> (B*T, d)
        return x.reshape(B, T, d)

    def pool(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(B, T, d) hidden states -> (B, self.d) by the pooling modes, padding excluded."""
        m = mask[:, :, None].astype(np.float32)  # (B, T, 1)
        parts = {"cls_token": lambda: x[:, 0],  # (B, d)
                 "max_tokens": lambda: np.where(m > 0, x, np.float32(-1e9)).max(axis=1),  # (B, d)
                 "mean_tokens": lambda: (x * m).sum(axis=1) / np.maximum(m.sum(axis=1), np.float32(1e-9))}  # (B, d)
        out = np.concatenate([parts[mode]() for mode in self.pooling], axis=1)  # (B, self.d)
        if self.normalize:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), np.float32(1e-12))
        return out

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               progress: Callable[[int, int], object] | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """(N, d) float32 embeddings of texts, in their order; batches are formed by token count.

        `out`, if given, is filled and returned (an (N, d) memory map keeps a large corpus on disk).
        """
        if batch_size < 1:
            raise ValueError(f"batch_size = {batch_size} must be >= 1")
        ids, offsets = self.token_table(texts)  # (total,), (N + 1,)
        lengths = np.diff(offsets)  # (N,)
        if out is None:
            out = np.zeros((len(texts), self.d), dtype=np.float32)  # (N, d)
        elif out.shape != (len(texts), self.d):
            raise ValueError(f"out has shape {out.shape}, expected {(len(texts), self.d)}")
        order = np.argsort(lengths, kind="stable")  # (N,) shortest first; ties keep the texts' order
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]  # (B,)
            T = int(lengths[rows].max())
            batch, mask = np.zeros((len(rows), T), dtype=np.int64), np.zeros((len(rows), T), dtype=np.int64)  # (B, T)
            for r, i in enumerate(rows):
                n = lengths[i]
                batch[r, :n], mask[r, :n] = ids[offsets[i]:offsets[i] + n], 1  # padded with id 0, masked out
            step = max(1, CHUNK_TOKENS // T)  # sequences per forward pass
            for s in range(0, len(rows), step):
                out[rows[s:s + step]] = self.pool(self.forward(batch[s:s + step], mask[s:s + step]), mask[s:s + step])
            if progress is not None:
                progress(start + len(rows), len(order))
        return out
