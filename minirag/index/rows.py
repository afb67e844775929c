"""Row records: which item each row of a vectors file or a BM25 index was computed from.

A row is `[item id, sha256 of the text the stage embedded or indexed]`, plus the parent chunk
of a unit. Vectors' sidecars and BM25's items.json store one per row; a loader rebuilds them
from the chunks it was given and compares, so a stale index or vectors file is refused,
never used with the wrong texts. The one check of that alignment lives here: whole files row
by row (`check_rows`), and a shard's rows placed in the corpus's order (`place_rows`).

What it leaves out: the files themselves (vectors.py, bm25/), and hashing the file bytes
(artifacts/integrity.py).
"""

from __future__ import annotations

from typing import Iterable, Mapping

import numpy as np

from ..artifacts.io import sha256_text
from ..text.chunks import Chunk, index_text


class AlignmentError(RuntimeError):
    """An index or vectors file and the chunks do not describe the same texts; the message
    names the file, the first bad row and the stage to re-run."""


def item_row(item: Chunk, with_context: bool = True, parent: bool = False) -> list[str]:
    """The row of one item: its id, the sha256 of its index_text (and a unit's chunk)."""
    return [item.id, sha256_text(index_text(item, with_context=with_context))] + (
        [item.metadata["parent"]] if parent else [])


def item_rows(items: Iterable[Chunk], with_context: bool = True, parent: bool = False) -> list[list[str]]:
    return [item_row(c, with_context, parent) for c in items]


def check_rows(where, recorded: list, expected: list[list[str]], n_stored: int, rerun: str) -> None:
    """`recorded` (a file's rows) must be `expected`, row by row, and the file hold one stored
    row (`n_stored`: vectors, index items) per expected row."""
    for i, (row, want) in enumerate(zip(recorded, expected)):
        if list(row) != want:
            what = f"is chunk {row[0] if row else '?'} but the chunks have {want[0]} there" if row[:1] != want[:1] \
                else f"(chunk {want[0]}) was computed from a different text"
            raise AlignmentError(f"{where}: row {i} {what}; re-run {rerun}")
    if len(recorded) != len(expected) or n_stored != len(expected):
        raise AlignmentError(f"{where}: {n_stored} rows for {len(expected)} chunks "
                             f"(first unmatched row {min(len(recorded), len(expected))}); re-run {rerun}")


def place_rows(where, recorded: list, expected: list[list[str]], position: Mapping[str, int],
               rerun: str) -> np.ndarray:
    """Where each of a shard's `recorded` rows goes among the corpus's `expected` rows
    (`position`: item id -> its index there): (n,) int64; a row whose item is not there as the
    shard computed it is refused."""
    at = np.empty(len(recorded), dtype=np.int64)  # (n,)
    for i, row in enumerate(recorded):
        j = position.get(row[0]) if row else None
        if j is None or expected[j] != list(row):
            raise AlignmentError(f"{where}: row {i} (chunk {row[0] if row else '?'}) is not in chunks.jsonl as "
                                 f"this shard computed it; re-run {rerun}")
        at[i] = j
    return at
