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
from typing import Iterable

import numpy as np

from ..settings import setting
from ..text.analyze import Analyzer, AnalyzerConfig


@dataclass(frozen=True)
class HashingSettings:
    """The hashing embedder: vector width and the analyzer whose words it hashes."""
    dim: int = setting(256, minimum=1)             # buckets of the feature hash = vector width
    analyzer: AnalyzerConfig = AnalyzerConfig()    # which words are hashed (CJK bigrams for Chinese)


SUBLINEAR_TF = [0.0] + [1.0 + math.log(tf) for tf in range(1, 64)]  # 1 + log tf, looked up for small tf


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
        self._weighted: dict[str, tuple[int, float]] = {}  # word -> (bucket, sign * idf)

    @classmethod
    def fit(cls, texts: Iterable[str], dim: int = HashingSettings.dim,
            analyzer: AnalyzerConfig = HashingSettings.analyzer) -> "HashingEmbedder":
        """IDF fitted on the texts, read once, one at a time (a generator is fine)."""
        words = Analyzer(analyzer)
        df: Counter[str] = Counter()
        n = 0
        for t in texts:
            df.update(set(words(t)))
            n += 1
        idf = {w: smoothed_idf(n, c) for w, c in sorted(df.items())}
        return cls(dim=dim, idf=idf, default_idf=smoothed_idf(n, 0), analyzer=analyzer)

    def weighted_slot(self, word: str) -> tuple[int, float]:
        """(bucket, sign * idf) of a word, cached: embed looks every word up here."""
        hit = self._weighted.get(word)
        if hit is None:
            bucket, sign = self.slot(word)
            hit = self._weighted[word] = (bucket, sign * self.idf.get(word, self.default_idf))
        return hit

    def slot(self, word: str) -> tuple[int, float]:
        """(bucket, sign) of a word: bytes 0-7 of blake2b pick the bucket, bit 64 the sign."""
        h = int.from_bytes(hashlib.blake2b(word.encode("utf-8", "surrogatepass"), digest_size=9).digest(), "little")
        return (h % (1 << 64)) % self.d, (1.0 if (h >> 64) & 1 else -1.0)

    def embed(self, texts: list[str]) -> np.ndarray:
        # Each word's (cell, weight) is listed in text order and summed by one bincount, which
        # adds in that order: the sums a loop of out[i, bucket] += weight makes, without a numpy
        # scalar operation per word (astype: a bincount of nothing at all is integers).
        cells, weights = [], []
        cached, slot, words = self._weighted, self.weighted_slot, self.words
        for i, text in enumerate(texts):
            row = i * self.d
            for w, tf in Counter(words(text)).items():
                bucket, signed_idf = cached.get(w) or slot(w)
                cells.append(row + bucket)
                # = sign * (1 + log tf) * idf exactly: a sign of +-1 only flips the product's sign
                sublinear = SUBLINEAR_TF[tf] if tf < len(SUBLINEAR_TF) else 1.0 + math.log(tf)
                weights.append(sublinear * signed_idf)
        out = np.bincount(np.array(cells, dtype=np.int64), weights=np.array(weights, dtype=np.float64),
                          minlength=len(texts) * self.d).astype(np.float64, copy=False)
        out = out.reshape(len(texts), self.d)  # (N, d)
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
