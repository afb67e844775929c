"""Shards of a corpus: which shard a document belongs to, putting shard outputs back together,
and the seeded sample of documents the trained stages learn from on a large corpus.

A corpus with `shards: N` (N > 1) is chunked, embedded and BM25-indexed as N jobs each, one
per shard, then merged (docs/scaling.md). A document's shard is a function of its id
alone, `shard_of(doc_id, N)`: the first 8 bytes of sha256(doc_id) modulo N. It never
depends on the other documents, the order of the files or the machine, so adding or
editing one document moves nothing else, and the graph can list each shard's source files
before any job runs (a markdown document's id is its path).

The merges restore the order the unsharded build has (documents in docs.jsonl order, each
document's chunks in their order), so every merged artifact, and every run file made from
it, is the unsharded one byte for byte.

The training sample (`train_cap: K`): the K documents with the smallest
sha256(f"{seed}:{doc_id}"), a bottom-K sample, kept in docs.jsonl order. Like a shard it
depends on each id alone: a document enters or leaves it only by its own hash, and the
tokenizer, the bi-encoder and the reader cost the same however large the corpus grows.

What it leaves out: BM25's merge (index/bm25/shards.py), the vectors' merge (index/vectors.py)
and the specs (each beside its stage in minirag/stages/).
"""

from __future__ import annotations

import hashlib
from typing import Iterable, Iterator, Sequence, TypeVar

T = TypeVar("T")


def shard_of(doc_id: str, shards: int) -> int:
    """The shard (0 .. shards-1) of a document: int(sha256(doc_id)[:8 bytes], big-endian) mod shards."""
    if shards < 1:
        raise ValueError(f"shards = {shards} must be >= 1")
    return int.from_bytes(hashlib.sha256(doc_id.encode("utf-8")).digest()[:8], "big") % shards


def in_shard(doc_ids: Iterable[str], shard: int, shards: int) -> list[int]:
    """Positions of the ids that belong to `shard`."""
    if not 0 <= shard < shards:
        raise ValueError(f"shard {shard} is not one of 0..{shards - 1}")
    return [i for i, d in enumerate(doc_ids) if shard_of(d, shards) == shard]


def merge_by_document(parts: Sequence[Iterable[T]], doc_order: Iterable[str], doc_of) -> Iterator[T]:
    """The shards' items (chunks, rows) in the unsharded order, streamed: by their document's
    position in `doc_order`, then in the order their shard listed them. Each shard lists its
    documents in `doc_order`'s order (curate_shard filters docs.jsonl's order), so one item
    per shard is held at a time. An item whose document is in two shards, or not in
    `doc_order` (or out of its order), raises ValueError naming it."""
    heads = [iter(p) for p in parts]
    current: list[T | None] = [next(h, None) for h in heads]
    for doc in doc_order:
        holders = [s for s, item in enumerate(current) if item is not None and doc_of(item) == doc]
        if len(holders) > 1:
            raise ValueError(f"document {doc!r} has items in shards {holders[0]} and {holders[1]}")
        for s in holders:
            while current[s] is not None and doc_of(current[s]) == doc:
                yield current[s]
                current[s] = next(heads[s], None)
    for s, item in enumerate(current):
        if item is not None:
            raise ValueError(f"shard {s}: item of document {doc_of(item)!r}, which docs.jsonl does not hold "
                             "(or not in its order)")


def sample_key(doc_id: str, seed: int) -> bytes:
    return hashlib.sha256(f"{seed}:{doc_id}".encode("utf-8")).digest()


def training_sample(doc_ids: Sequence[str], cap: int, seed: int = 0) -> list[int]:
    """Positions of the (at most) `cap` documents with the smallest sample keys, ascending;
    every position when cap is 0 or the corpus is no larger."""
    if cap <= 0 or len(doc_ids) <= cap:
        return list(range(len(doc_ids)))
    return sorted(sorted(range(len(doc_ids)), key=lambda i: sample_key(doc_ids[i], seed))[:cap])
