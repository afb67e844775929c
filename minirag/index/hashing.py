"""Embedders: map a list of strings to an (N, d) float32 matrix of unit vectors.

`HashingEmbedder` is the untrained control (the seed's): TF-IDF weights of the words an
analyzer yields (by default lowercased `\\w+`; CJK character bigrams for Chinese), folded
into `dim` buckets by a signed feature hash. The hash is blake2b of the word's UTF-8 bytes,
never Python's `hash()`, so a word lands in the same bucket in every process and on every
machine. IDF is fitted on the corpus the embedder indexes and travels with the vectors
(in their sidecar), so queries are weighted like the chunks.

    weight(w, text) = (1 + log tf(w, text)) * idf(w),   idf(w) = log((1 + N) / (1 + df(w))) + 1
    v[bucket(w)]   += sign(w) * weight(w, text);         v /= ||v||

(sublinear tf and smoothed idf as in scikit-learn's TfidfTransformer defaults; the
hashing trick of Weinberger et al., ICML 2009, with a sign bit to cancel collisions.)

What it leaves out: anything learned beyond document frequencies; the trained
MiniBiEncoder lives in biencoder.py.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from ..settings import setting
from ..text.analyze import Analyzer, AnalyzerConfig


@dataclass(frozen=True)
class HashingSettings:
    dim: int = setting(256, minimum=1)             # buckets of the feature hash = vector width
    analyzer: AnalyzerConfig = AnalyzerConfig()    # which words are hashed (CJK bigrams for Chinese)


def smoothed_idf(n_docs: int, df: int) -> float:
    """idf = log((1 + N) / (1 + df)) + 1 (never zero, so words in every text still count a little)."""
    return math.log((1 + n_docs) / (1 + df)) + 1.0


class HashingEmbedder:
    def __init__(self, dim: int = HashingSettings.dim, idf: dict[str, float] | None = None, default_idf: float = 1.0,
                 analyzer: AnalyzerConfig = HashingSettings.analyzer):
        self.d = dim
        self.idf = idf or {}
        self.default_idf = default_idf  # weight of a word the fitted corpus never saw
        self.analyzer_config = analyzer
        self.words = Analyzer(analyzer)
        self._slots: dict[str, tuple[int, float]] = {}

    @classmethod
    def fit(cls, texts: list[str], dim: int = HashingSettings.dim,
            analyzer: AnalyzerConfig = HashingSettings.analyzer) -> "HashingEmbedder":
        words = Analyzer(analyzer)
        df: Counter[str] = Counter()
        for t in texts:
            df.update(set(words(t)))
        n = len(texts)
        idf = {w: smoothed_idf(n, c) for w, c in sorted(df.items())}
        return cls(dim=dim, idf=idf, default_idf=smoothed_idf(n, 0), analyzer=analyzer)

    def slot(self, word: str) -> tuple[int, float]:
        """(bucket, sign) of a word: bytes 0-7 of blake2b pick the bucket, bit 64 the sign."""
        hit = self._slots.get(word)
        if hit is None:
            h = int.from_bytes(hashlib.blake2b(word.encode("utf-8", "surrogatepass"), digest_size=9).digest(), "little")
            hit = (h % (1 << 64)) % self.d, (1.0 if (h >> 64) & 1 else -1.0)
            self._slots[word] = hit
        return hit

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.d), dtype=np.float64)  # (N, d)
        for i, text in enumerate(texts):
            for w, tf in Counter(self.words(text)).items():
                bucket, sign = self.slot(w)
                out[i, bucket] += sign * (1.0 + math.log(tf)) * self.idf.get(w, self.default_idf)
        norms = np.linalg.norm(out, axis=1, keepdims=True)  # (N, 1)
        out /= np.where(norms > 0, norms, 1.0)
        return out.astype(np.float32)

    def params(self) -> dict:
        return {"type": "hashing", "dim": self.d, "analyzer": self.analyzer_config.to_dict(),
                "default_idf": self.default_idf, "idf": self.idf}

    @classmethod
    def from_params(cls, params: dict) -> "HashingEmbedder":
        return cls(dim=params["dim"], idf=params["idf"], default_idf=params["default_idf"],
                   analyzer=AnalyzerConfig.from_dict(params.get("analyzer", {})))
