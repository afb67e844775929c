"""FlatVectorStore: brute-force cosine search over an in-memory (N, d) matrix.

Correct, simple and, at the scale of a grammar KB or SciFact (thousands of rows), as
fast as any index: one pass of inner products and an argpartition. Rows are unit vectors,
so the dot product is the cosine.

Two functions are shared with the IVF index (index/ivf.py), so that an IVF search that
probes every list returns exactly this store's ranking, bit for bit:
- `inner_products(rows, q)`: a row's score depends on that row and the query only, not on
  which other rows are scored with it. A BLAS matrix-vector product does not promise that
  (its kernels sum a row differently by its position in the block: about 0.3% of scores of
  a 384-d float32 product differed in the last bit between a whole matrix and its blocks);
  numpy's einsum sums each row with the same loop, and is as fast on one core.
- `top_k(scores, k, ids)`: best first, equal scores by ascending id, also for a tie at the
  k-th place (the k kept are the lowest ids among the tied).

What it leaves out: approximate search (index/ivf.py) and persistence; vectors come from
`vectors/<embedder>.npy`, checked against the chunks by index/vectors.py (load_aligned_vectors).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..text.chunks import Chunk
from ..text.query import nfc


class Embedder(Protocol):
    """Maps texts to unit vectors: HashingEmbedder, BiEncoderEmbedder, or any object with these two."""
    d: int

    def embed(self, texts: list[str]) -> np.ndarray:  # (len(texts), d) float32
        ...


def inner_products(rows: np.ndarray, q: np.ndarray) -> np.ndarray:
    """(n,) float32 scores of (n, d) rows against one (d,) query, each row summed alike wherever it
    sits (see the module docstring); rows may be a memory-mapped slice."""
    return np.einsum("ij,j->i", rows, q.astype(np.float32, copy=False))  # (n,)


def top_k(scores: np.ndarray, k: int, ids: np.ndarray | None = None) -> np.ndarray:
    """Positions of the k largest scores, best first; equal scores go to the lower id (`ids`, default
    the position), at the k-th place too: every score tied with the k-th is a candidate."""
    n = scores.shape[0]
    k = min(k, n)
    if k <= 0:
        return np.empty(0, dtype=np.int64)
    keys = np.arange(n) if ids is None else ids
    if k < n:
        kth = np.partition(scores, n - k)[n - k]  # the k-th largest score
        cand = np.flatnonzero(scores >= kth)      # (>= k,) ascending positions
    else:
        cand = np.arange(n)
    return cand[np.lexsort((keys[cand], -scores[cand]))][:k]


BLOCK_ROWS = 16384  # rows scored together by a batch of queries: 16 MB of 256-d float32


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
        # the first rows are kept as given (a memory map stays one): no copy of a large matrix
        self.vectors = (np.asarray(vectors, dtype=np.float32) if not self.chunks
                        else np.vstack([self.vectors, vectors.astype(np.float32)]))
        self.chunks.extend(chunks)

    def search_vectors(self, queries: np.ndarray, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """For (Q, d) unit query vectors: per query (row indices, cosines), best first."""
        if not self.chunks:
            return [(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)) for _ in queries]
        n = self.vectors.shape[0]
        if len(queries) == 1 or n <= BLOCK_ROWS:
            out = []
            for q in queries:  # (d,)
                row = inner_products(self.vectors, q)  # (N,)
                idx = top_k(row, k)
                out.append((idx, row[idx]))
            return out
        # Many queries over many rows: a block of rows is read once for every query (from cache,
        # not memory, 1,000 times), each query keeping its block's top k. The k best of those
        # candidates, ties to the lower position, are the k best of all rows (a row among the
        # best k overall is among the best k of its block), with the same scores bit for bit.
        positions: list[list[np.ndarray]] = [[] for _ in queries]
        scores: list[list[np.ndarray]] = [[] for _ in queries]
        for start in range(0, n, BLOCK_ROWS):
            block = np.asarray(self.vectors[start:start + BLOCK_ROWS])  # (B, d)
            for qi, q in enumerate(queries):
                row = inner_products(block, q)  # (B,)
                idx = top_k(row, k)
                positions[qi].append(idx + start)
                scores[qi].append(row[idx])
        out = []
        for pos, sc in zip(positions, scores):
            pos, sc = np.concatenate(pos), np.concatenate(sc)  # (<= blocks * k,)
            best = top_k(sc, k, ids=pos)
            out.append((pos[best], sc[best]))
        return out

    def search(self, query_text: str, k: int = 5) -> list[tuple[Chunk, float]]:
        q = self.embedder.embed([nfc(query_text)])  # (1, d); NFC, as the documents are
        (idx, sims), = self.search_vectors(q, k)
        return [(self.chunks[i], float(s)) for i, s in zip(idx, sims)]
