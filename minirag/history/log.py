"""results/history.jsonl: one record per report build, appended and never rewritten.

Each line is a JSON object whose `sha256` is the hash of the rest of it (canonical JSON), so a
line cut short, edited or bit-flipped is found: reading stops at it with one line naming the
file and the line, as every damaged artifact is refused, and appending refuses too (a log
that cannot be read is not appended to; move it aside to start a new one). Nothing here ever
rewrites or truncates the file.

A record carries `key`, the hash of what it records apart from when and from which commit;
`append` skips a record whose key equals the last record's of the same report, so a build that
changed nothing (the report rerun, its code committed) adds no line.

Appends hold an exclusive lock on the file (two reports built by one Snakemake run append one
after the other) and write the line with one write, then fsync.

What it leaves out: pruning old records, and merging histories of two results folders.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

from ..artifacts.io import sha256_bytes
from .blobs import HistoryError, encode

NAME = "history.jsonl"
FIELDS = ("key", "time", "report", "corpora", "sha256")


def path_of(results: str | Path) -> Path:
    return Path(results) / NAME


def sealed(record: dict) -> dict:
    """The record with its `sha256`: the hash of its canonical JSON without that field."""
    body = {k: v for k, v in record.items() if k != "sha256"}
    return {**body, "sha256": sha256_bytes(encode(body))}


def parse(line: bytes, where: str) -> dict:
    if not line.endswith(b"\n"):
        raise HistoryError(f"{where}: damaged history record (the line is cut short); the history is never "
                           "rewritten: move the file aside to start a new one")
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        record = None
    if not isinstance(record, dict) or any(f not in record for f in FIELDS):
        raise HistoryError(f"{where}: damaged history record (not a record); the history is never rewritten: "
                           "move the file aside to start a new one")
    if sealed(record)["sha256"] != record["sha256"]:
        raise HistoryError(f"{where}: damaged history record (its sha256 does not match its content); the "
                           "history is never rewritten: move the file aside to start a new one")
    return record


def read_lines(fh, path: Path) -> list[dict]:
    fh.seek(0)
    return [parse(line, f"{path}:{n}") for n, line in enumerate(fh, start=1) if line.strip()]


def read(results: str | Path) -> list[dict]:
    """Every record, oldest first ([] when there is no history yet); a damaged line is refused."""
    path = path_of(results)
    if not path.exists():
        return []
    with open(path, "rb") as fh:
        return read_lines(fh, path)


def append(results: str | Path, record: dict) -> bool:
    """Append `record` (sealed here) unless the last record of its report has the same key."""
    path = path_of(results)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        records = read_lines(fh, path)
        last = next((r for r in reversed(records) if r["report"] == record["report"]), None)
        if last is not None and last["key"] == record["key"]:
            return False
        fh.seek(0, os.SEEK_END)
        fh.write(encode(sealed(record)))
        fh.flush()
        os.fsync(fh.fileno())
    return True
