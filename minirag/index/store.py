"""FlatVectorStore: brute-force cosine search over an in-memory (N, d) matrix.

Correct, simple and, at the scale of a grammar KB or SciFact (thousands of rows), as
fast as any index: one matrix product and an argpartition. Rows are unit vectors, so the
dot product is the cosine.

What it leaves out: approximate indexes (HNSW, IVF) and persistence; vectors come from
`vectors/<embedder>.npy`, checked against the chunks by index/vectors.py (load_aligned_vectors).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..text.chunks import Chunk


class Embedder(Protocol):
    """Maps texts to unit vectors: HashingEmbedder, BiEncoderEmbedder, or any object with these two."""
    d: int

    def embed(self, texts: list[str]) -> np.ndarray:  # (len(texts), d) float32
        ...


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest scores, best first; ties go to the lower index."""
    k = min(k, scores.shape[0])
    if k <= 0:
        return np.empty(0, dtype=np.int64)
    part = np.argpartition(-scores, k - 1)[:k] if k < scores.shape[0] else np.arange(scores.shape[0])
    return part[np.lexsort((part, -scores[part]))]


class FlatVectorStore:
    def __init__(self, embedder: Embedder):
        self.embedder = embedder
        self.vectors: np.ndarray = np.empty((0, embedder.d), dtype=np.float32)  # (N, d)
        self.chunks: list[Chunk] = []

    def add(self, chunks: list[Chunk], vectors: np.ndarray | None = None) -> None:
        """Add chunks; their vectors are computed unless given (rows aligned with chunks)."""
        if not chunks:
            return
        if vectors is None:
            vectors = self.embedder.embed([c.text for c in chunks])
        assert vectors.shape == (len(chunks), self.embedder.d), vectors.shape
        self.vectors = np.vstack([self.vectors, vectors.astype(np.float32)])
        self.chunks.extend(chunks)

    def search_vectors(self, queries: np.ndarray, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """For (Q, d) unit query vectors: per query (row indices, cosines), best first."""
        if not self.chunks:
            return [(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)) for _ in queries]
        sims = queries.astype(np.float32) @ self.vectors.T  # (Q, N)
        out = []
        for row in sims:
            idx = top_k(row, k)
            out.append((idx, row[idx]))
        return out

    def search(self, query_text: str, k: int = 5) -> list[tuple[Chunk, float]]:
        q = self.embedder.embed([query_text])  # (1, d)
        (idx, sims), = self.search_vectors(q, k)
        return [(self.chunks[i], float(s)) for i, s in zip(idx, sims)]
