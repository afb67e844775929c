"""Content-addressed JSON files under results/history/: a file's name is the sha256 of its bytes.

A snapshot of a build is a few such files (each run's per-question scores, each reader's
answers, the questions, the corpus's settings, and a small file listing them), so a run whose
scores did not change since the last build is the same file, stored once: a build that changed
one run adds that run's file and a new listing, and a build that changed nothing adds nothing.

Reading checks the bytes against the name: a damaged file is refused with one line naming it,
never used.

What it leaves out: deleting files no record refers to (the history is append-only).
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from ..artifacts.io import atomic_write_bytes, parse_json, sha256_bytes
from ..artifacts.layout import HISTORY_FOLDER as FOLDER

MAX_BLOB = 1 << 30  # a snapshot part (a run's per-question scores): far below; /dev/zero is refused


class HistoryError(ValueError):
    """A damaged or missing history file; the message names it (and the line)."""


def encode(value: Any) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8; equal values give equal bytes."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def put(results: str | Path, value: Any) -> str:
    """Store `value` (if not already there); returns its path relative to `results`."""
    data = encode(value)
    rel = f"{FOLDER}/{sha256_bytes(data)}.json"
    path = Path(results) / rel
    if not path.exists() or path.read_bytes() != data:  # same name, same bytes: a damaged copy is replaced whole
        atomic_write_bytes(path, data)
    return rel


def get(results: str | Path, rel: str) -> Any:
    """The value stored at `rel` (relative to `results`), after checking its bytes hash to its name."""
    path = Path(results) / rel
    if not path.exists():
        raise HistoryError(f"{path}: missing (a history record refers to it)")
    if not stat.S_ISREG(path.stat().st_mode) or path.stat().st_size > MAX_BLOB:
        raise HistoryError(f"{path}: not a regular file of at most {MAX_BLOB >> 20} MB; the record that refers "
                           "to it cannot be read")
    data = path.read_bytes()
    if f"{sha256_bytes(data)}.json" != path.name:
        raise HistoryError(f"{path}: damaged (its sha256 is not its name); the record that refers to it cannot be read")
    try:
        return parse_json(data, str(path))
    except ValueError as exc:
        raise HistoryError(str(exc)) from None
