"""The embedding cache: vectors already computed, keyed by (model, sha256 of the indexed text).

An edited or added document changes a few chunks; with a fixed model (a pretrained encoder)
every other chunk's vector is the one the last build computed. The embed stage looks each
chunk up here, embeds only the misses, writes the vectors file, and then writes the cache
back: this build's rows first, then older rows not used now (another chunking, another
model), up to as many as this build has, so a change and its undo both find their vectors.

Only an embedder whose vector of a text is a function of that text alone may use it
(`EmbedderKind.per_text`: hashing, a pretrained encoder run one text at a time). For those,
the vectors file written from the cache is the one a cold build writes, byte for byte. The
model key is the sha256 of the sidecar's producer record (the embedder's settings and the
hashes of the files it loads, or a fitted embedder's parameters), so any change to the
model misses.

`results/<corpus>/cache/<embedder>.npz` (uncompressed, no pickles):

    models       (m,)   S64     the models' keys, hex
    model        (n,)   int32   each row's model, an index into `models`
    text_sha256  (n,)   S64     each row's indexed text (context + text), hex
    vectors      (n, d) float32

Its receipt, `receipts/embed_cache.<embedder>.json`, is written by the same embed job and
kept across jobs (the rule marks both files `update`); a cache that does not match its
receipt, or that is missing, is not used: the job embeds everything, as a cold build does.

What it leaves out: embedding (embedders.py), the vectors file (vectors.py), sharded
corpora (each shard is its own embed job; a fixed model re-embeds only the edited shard).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from ..artifacts import content
from ..artifacts.integrity import IntegrityError, verified, write_receipt
from ..artifacts.io import atomic_path, load_npz
from ..artifacts.missing import MissingArtifact

KEEP_OLD = 1.0  # rows kept that this build did not use, as a share of the rows it has


def model_key(producer: dict) -> str:
    """The sha256 of what the vectors' sidecar records of the embedder that made them."""
    return hashlib.sha256(json.dumps(producer, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


class EmbedCache:
    def __init__(self, models: np.ndarray, model: np.ndarray, text_sha256: np.ndarray, vectors: np.ndarray):
        self.models, self.model, self.text_sha256, self.vectors = models, model, text_sha256, vectors
        keys = self.models.tolist()  # bytes
        self.keys = [(keys[m], t) for m, t in zip(model.tolist(), text_sha256.tolist())]  # (model, text) per row
        self.row = {key: i for i, key in enumerate(self.keys)}

    @classmethod
    def empty(cls, d: int) -> "EmbedCache":
        return cls(np.zeros(0, "S64"), np.zeros(0, np.int32), np.zeros(0, "S64"), np.zeros((0, d), np.float32))

    @classmethod
    def load(cls, path: Path, d: int, log=lambda msg: None) -> "EmbedCache":
        """The cache at `path`, checked against its receipt; empty when missing, damaged or of another width."""
        try:
            arrays = load_npz(verified(path, "embedding cache"))
            content.embed_cache(arrays, path)
            cache = cls(arrays["models"], arrays["model"], arrays["text_sha256"], arrays["vectors"])
        except (IntegrityError, MissingArtifact, OSError, KeyError, ValueError, IndexError) as exc:
            if path.exists():
                log(f"embed: cache not used ({exc})")
            return cls.empty(d)
        if cache.vectors.ndim != 2 or cache.vectors.shape != (len(cache.keys), d) or cache.vectors.dtype != np.float32:
            log(f"embed: cache not used ({path} holds vectors of shape {cache.vectors.shape}, not ({len(cache.keys)}, {d}))")
            return cls.empty(d)
        return cache

    def lookup(self, key: str, text_sha256: list[str]) -> np.ndarray:
        """Each text's row in the cache, -1 where it has none: (N,) int64."""
        k = key.encode("ascii")
        return np.array([self.row.get((k, t.encode("ascii")), -1) for t in text_sha256], dtype=np.int64)

    def updated(self, key: str, text_sha256: list[str], vectors: np.ndarray) -> "EmbedCache":
        """This build's rows (`vectors` (N, d), memory-mapped or not), then the old rows it did not
        use, most recently written first, at most KEEP_OLD x N of them."""
        k = key.encode("ascii")
        first = {(k, t.encode("ascii")): i for i, t in reversed(list(enumerate(text_sha256)))}  # a text once
        now = sorted(first, key=first.get)
        old = [i for i, row in enumerate(self.keys) if row not in first][:int(KEEP_OLD * len(text_sha256))]
        keep = [self.keys[i] for i in old]
        models = list(dict.fromkeys([k] + [m for m, _ in keep]))  # this build's model first
        index = {m: j for j, m in enumerate(models)}
        rows = now + keep
        fresh = np.asarray(vectors, np.float32)[[first[r] for r in now]] if now else np.zeros((0, self.vectors.shape[1]),
                                                                                           np.float32)
        return EmbedCache(np.array(models, "S64"), np.array([index[m] for m, _ in rows], np.int32),
                          np.array([t for _, t in rows], "S64"), np.concatenate([fresh, self.vectors[old]]))  # (n, d)

    def save(self, path: Path, receipt: Path, name: str) -> None:
        """Write the cache atomically, then its receipt (what `load` checks it against)."""
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as fh:
                np.savez(fh, models=self.models, model=self.model, text_sha256=self.text_sha256, vectors=self.vectors)
        write_receipt(receipt, "embed_cache", name, {"rows": len(self.model), "models": len(self.models)}, [], [path])


BLOCK = 4096  # misses embedded at once, then copied into the vectors file's rows


def embed_reusing(cache: EmbedCache, key: str, text_sha256: list[str], texts: list[str], embed, out: np.ndarray) -> int:
    """Fill `out` (N, d) with each text's vector: the cache's where it has one for model `key`,
    else `embed(texts, block)` (a per-text embedder: its vectors do not depend on the block).
    Returns how many rows came from the cache."""
    at = cache.lookup(key, text_sha256)  # (N,)
    hit = at >= 0
    if hit.any():
        out[hit] = cache.vectors[at[hit]]
    miss = np.flatnonzero(~hit)
    for start in range(0, len(miss), BLOCK):
        rows = miss[start:start + BLOCK]
        block = np.zeros((len(rows), out.shape[1]), dtype=np.float32)  # (B, d)
        embed([texts[i] for i in rows], block)
        out[rows] = block
    return int(hit.sum())
