"""Pretrained similarity as an answer-selection signal: how close, in a sentence encoder's space, the question
is to each candidate's sentence and to a table cell's column header ("How heavy is it?" ~ *Weight*).

    sim = Similarity.train(encoder, model_sha256, texts)     # train_reader: the corpus's sentences and headers
    sim.questions(queries)                                   # batch-encode the training questions ahead
    X = sim.features(query, generic_blocks)                  # (m, len(SIMILAR)) beside the generic features
    z = sim.null(X)                                          # (len(NULL_SIMILAR),) for "none of them"

The corpus's texts are encoded once, when the reader is trained, and kept with its weights (`arrays`, with
the texts and the model's hash in the sidecar: `record`); answering encodes only the question (one text per
forward pass, so a question's vector is a function of its text alone) and refuses line vectors that another
model wrote. A text the training did not see (a chunk added since) is encoded when first met.

Features: the cosine of the question and the candidate's sentence (row, for a cell), whether that sentence is
the closest of all the candidates', the cosine of the question and a cell's column header and whether it is
the closest header; for "none of them", the closest sentence's and header's cosines (an off-topic question is
far from every sentence). Cosines, not ranks alone: the scorer learns how close is close.

What it leaves out: the encoder (index/bert.py) and which model (SelectorSettings.similarity_model).
"""

from __future__ import annotations

import sys
import time
from typing import Any, Sequence

import numpy as np

SIMILAR = ("s_line", "s_line_best", "s_header", "s_header_best")
NULL_SIMILAR = ("sn_line_best", "sn_header_best")
FORMAT = "minirag-similarity/1"
BATCH = 32  # texts per forward pass when the corpus's texts are encoded at training time


class Similarity:
    """A sentence encoder with the corpus's texts' vectors, and the features it gives each candidate."""

    def __init__(self, encoder: Any, model_sha256: str, texts: Sequence[str], vectors: np.ndarray):
        self.encoder, self.model_sha256 = encoder, model_sha256
        self.texts = list(texts)
        self.index = {t: i for i, t in enumerate(self.texts)}
        self.vectors = np.asarray(vectors, dtype=np.float32).reshape(len(self.texts), -1)  # (T, d)
        self.asked: dict[str, np.ndarray] = {}  # question -> (d,) vector

    # ------------------------------------------------------------ building and files
    @classmethod
    def train(cls, encoder: Any, model_sha256: str, texts: Sequence[str]) -> "Similarity":
        distinct = list(dict.fromkeys(t for t in texts if t))
        return cls(encoder, model_sha256, distinct, encode(encoder, distinct, "the corpus's sentences and headers"))

    def arrays(self) -> dict[str, np.ndarray]:
        """What the reader's weights file keeps: the texts' vectors, in `record()["texts"]` order."""
        return {"similar_vectors": self.vectors}

    def record(self, model: str) -> dict:
        return {"format": FORMAT, "model": model, "model_sha256": self.model_sha256, "texts": self.texts}

    @classmethod
    def load(cls, record: dict, arrays: dict[str, np.ndarray], where: str) -> "Similarity":
        """The trained texts' vectors and the encoder they were made with, refused when the model folder
        is not the one the sidecar names by hash, or the vectors do not match the texts."""
        from ...index.bert import SentenceEncoder
        from ...index.bert_folder import folder_hash
        from ...index.embedders import resolve_model_path
        folder = resolve_model_path(record["model"])
        if folder_hash(folder) != record["model_sha256"]:
            raise ValueError(f"{folder}: not the model {where} was trained with (model_sha256 differs); "
                             "re-run train_reader")
        vectors = arrays.get("similar_vectors")
        if vectors is None or vectors.ndim != 2 or len(vectors) != len(record["texts"]):
            raise ValueError(f"{where}: similar_vectors do not hold one vector per text of the sidecar's similarity")
        return cls(SentenceEncoder.from_folder(folder), record["model_sha256"], record["texts"], vectors)

    # ------------------------------------------------------------ vectors
    def questions(self, queries: Sequence[str]) -> None:
        """Encode the questions ahead, in batches (training reads 1,500 of them)."""
        todo = list(dict.fromkeys(q for q in queries if q not in self.asked))
        for q, v in zip(todo, encode(self.encoder, todo, "the training questions")):
            self.asked[q] = v

    def question(self, query: str) -> np.ndarray:
        """The question's vector: encoded ahead (training), else now, alone (answering keeps none)."""
        v = self.asked.get(query)
        return v if v is not None else self.encoder.encode([query], batch_size=1)[0]

    def rows(self, texts: list[str]) -> np.ndarray:
        """Each text's row in `vectors`, encoding (and adding) those training never saw; "" -> -1."""
        new = [t for t in dict.fromkeys(texts) if t and t not in self.index]
        if new:
            self.vectors = np.concatenate([self.vectors, self.encoder.encode(new, batch_size=1)])
            for t in new:
                self.index[t] = len(self.texts)
                self.texts.append(t)
        return np.array([self.index[t] if t else -1 for t in texts], dtype=np.int64)

    # ------------------------------------------------------------ features
    def features(self, query: str, blocks: list) -> np.ndarray:
        """(m, len(SIMILAR)) for the candidates of `blocks` (generic blocks), in order."""
        n = sum(b.n for b in blocks)
        X = np.zeros((n, len(SIMILAR)), dtype=np.float32)
        if not n:
            return X
        rows = [self.block_rows(b) for b in blocks]
        lines = np.concatenate([r[0] for r in rows])                          # (m,)
        headers = np.concatenate([r[1] for r in rows])                        # (m,)
        cos = self.vectors @ self.question(query)                           # (T,)
        X[:, 0] = cos[lines]
        X[:, 1] = X[:, 0] >= X[:, 0].max() - 1e-6
        has = headers >= 0
        if has.any():
            X[has, 2] = cos[headers[has]]
            X[has, 3] = X[has, 2] >= X[has, 2].max() - 1e-6
        return X

    def block_rows(self, block) -> tuple[np.ndarray, np.ndarray]:
        """A generic block's rows of its candidates' sentences and headers (-1: prose has none), kept on it."""
        if block.similar_rows is None:
            block.similar_rows = (self.rows(block.line_texts), self.rows(block.header_texts))
        return block.similar_rows

    @staticmethod
    def null(X: np.ndarray) -> np.ndarray:
        if not len(X):
            return np.zeros(len(NULL_SIMILAR), dtype=np.float32)
        headers = X[:, 2][X[:, 2] != 0]
        return np.array([X[:, 0].max(), headers.max() if len(headers) else 0.0], dtype=np.float32)


def encode(encoder: Any, texts: list[str], what: str) -> np.ndarray:
    """(len(texts), d) vectors, `BATCH` texts a pass, with progress on stderr past a few seconds."""
    t0, shown = time.perf_counter(), [0.0]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter() - t0
        if now - shown[0] > 10 or (done == total and now > 10):
            shown[0] = now
            print(f"train_reader: similarity: {done}/{total} of {what} encoded, {now:.0f} s",
                  file=sys.stderr, flush=True)
    if not texts:
        return np.zeros((0, encoder.d), dtype=np.float32)
    return encoder.encode(texts, batch_size=BATCH, progress=progress)
