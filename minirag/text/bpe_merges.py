"""Learning BPE merges from pre-token counts, and the byte-level steps the tokenizer shares with it.

`learn_merges` is bpe.py's training: the most frequent adjacent pair of ids is merged, ties to
the lowest pair, with pair counts updated incrementally (only the words holding the merged
pair are recounted) and a lazily-deleted max-heap of counts; bpe.py's docstring has the rules.

What it leaves out: pre-tokenizing, encoding and decoding text, and saving (bpe.py).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from typing import Callable

PROGRESS_EVERY = 500  # merges between two progress lines


def to_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _merge(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace every non-overlapping occurrence of `pair`, left to right, by `new_id`."""
    a, b = pair
    out = []
    i, n = 0, len(ids)
    while i < n:
        if ids[i] == a and i + 1 < n and ids[i + 1] == b:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def _render(token: bytes) -> str:
    """A token as readable text: valid UTF-8 as is, stray bytes as \\xNN."""
    return token.decode("utf-8", "backslashreplace")


def learn_merges(counts: dict[str, int], n_merges: int,
                 progress: Callable[[str], None] | None = None) -> list[tuple[int, int]]:
    """Up to `n_merges` merges from pre-token frequencies, most frequent pair first."""
    words = [list(to_bytes(w)) for w in counts]  # unique pre-tokens as id lists
    freqs = list(counts.values())
    pair_counts: dict[tuple[int, int], int] = defaultdict(int)  # pair -> weighted count
    where: dict[tuple[int, int], set[int]] = defaultdict(set)  # pair -> words holding it (a superset)
    for i, (w, f) in enumerate(zip(words, freqs)):
        for pair in zip(w, w[1:]):
            pair_counts[pair] += f
            where[pair].add(i)
    # Max-heap by (count, lowest pair) with lazy deletion: an entry is live only while
    # its count equals the pair's current count; every change pushes a new entry.
    heap = [(-c, pair) for pair, c in pair_counts.items()]
    heapq.heapify(heap)

    merges: list[tuple[int, int]] = []
    vocab = [bytes([i]) for i in range(256)]
    while len(merges) < n_merges and heap:
        neg_count, pair = heapq.heappop(heap)
        if pair_counts.get(pair) != -neg_count:
            continue
        new_id = len(vocab)
        merges.append(pair)
        vocab.append(vocab[pair[0]] + vocab[pair[1]])
        delta: dict[tuple[int, int], int] = defaultdict(int)
        for i in where.pop(pair):
            old = words[i]
            new = _merge(old, pair, new_id)
            if len(new) == len(old):
                continue  # a stale entry of `where`: the pair left this word earlier
            f = freqs[i]
            for p in zip(old, old[1:]):
                delta[p] -= f
            for p in zip(new, new[1:]):
                delta[p] += f
                where[p].add(i)
            words[i] = new
        for p, d in delta.items():
            if d:
                c = pair_counts[p] + d
                if c:
                    pair_counts[p] = c
                    heapq.heappush(heap, (-c, p))
                else:
                    del pair_counts[p]
        if len(heap) > 2 * len(pair_counts) + 100_000:  # drop dead entries
            heap = [(-c, p) for p, c in pair_counts.items()]
            heapq.heapify(heap)
        if progress is not None and len(merges) % PROGRESS_EVERY == 0:
            progress(f"bpe: merge {len(merges)}/{n_merges}: {pair[0]} + {pair[1]} -> {new_id} "
                     f"{_render(vocab[new_id])!r} ({-neg_count} occurrences)")
    return merges
