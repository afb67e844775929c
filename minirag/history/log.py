"""results/history.jsonl: one record per report build, appended and never rewritten.

Each line is a JSON object whose `sha256` is the hash of the rest of it (canonical JSON), so a
line cut short, edited or bit-flipped is found: reading stops at it with one line naming the
file and the line, as every damaged artifact is refused, and appending refuses too (a log
that cannot be read is not appended to; move it aside to start a new one). The one exception
is the last line: a damaged last record is what an append cut short (a full disk, a kill)
leaves, so it is skipped with a warning, and the next append cuts it off; so is a last line over
MAX_LINE, read in bounded pieces and named with its size. The file is read as artifacts are: a
regular file only (a FIFO or a device is refused, never read), at most MAX_BYTES, a record at most
MAX_LINE; nothing else ever rewrites or truncates it.

A record carries `key`, the hash of what it records apart from when and from which commit;
`append` skips a record whose key equals the last record's of the same report, so a build that
changed nothing (the report rerun, its code committed) adds no line.

Appends hold an exclusive lock on the file (two reports built by one Snakemake run append one
after the other), write the line, fsync, and on a failed write cut the file back to its old
end, so a full disk leaves the history as it was.

What it leaves out: pruning old records, and merging histories of two results folders.
"""

from __future__ import annotations

import fcntl
import os
import stat
import sys
from pathlib import Path

from ..artifacts.io import parse_json, sha256_bytes
from .blobs import HistoryError, encode

NAME = "history.jsonl"
FIELDS = ("key", "time", "report", "corpora", "sha256")


def path_of(results: str | Path) -> Path:
    return Path(results) / NAME


def sealed(record: dict) -> dict:
    """The record with its `sha256`: the hash of its canonical JSON without that field."""
    body = {k: v for k, v in record.items() if k != "sha256"}
    return {**body, "sha256": sha256_bytes(encode(body))}


MAX_BYTES = 256 << 20  # a history of ~100,000 builds; a bigger file (or /dev/zero) is not read
MAX_LINE = 4 << 20     # one record (its snapshot lives in history/): a longer line is damaged


class DamagedRecord(HistoryError):
    def __init__(self, where: str, why: str):
        super().__init__(f"{where}: damaged history record ({why}); the history is never rewritten: "
                         "move the file aside to start a new one")
        self.where, self.why = where, why


def damaged(where: str, why: str) -> DamagedRecord:
    return DamagedRecord(where, why)


def parse(line: bytes, where: str) -> dict:
    if not line.endswith(b"\n"):
        raise damaged(where, "the line is cut short")
    try:
        record = parse_json(line.decode("utf-8"), where)
    except UnicodeDecodeError as exc:
        raise damaged(where, f"not valid UTF-8 at byte {exc.start}") from None
    except ValueError as exc:  # not JSON, or nested past Python's limit
        raise damaged(where, str(exc).removeprefix(f"{where}: ")) from None
    if not isinstance(record, dict) or any(f not in record for f in FIELDS):
        raise damaged(where, "not a record")
    if sealed(record)["sha256"] != record["sha256"]:
        raise damaged(where, "its sha256 does not match its content")
    return record


def open_log(path: Path, mode: int) -> int:
    """A descriptor of the history, refused unless it is a regular file of at most MAX_BYTES: a
    FIFO would block, /dev/zero never end (opened without blocking, then checked)."""
    try:
        fd = os.open(path, mode | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        raise HistoryError(f"{path}: cannot open the history ({exc.strerror})") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
        os.close(fd)
        why = "not a regular file (a FIFO, a device?)" if not stat.S_ISREG(st.st_mode) else \
            f"{st.st_size} bytes, over the {MAX_BYTES >> 20} MB a history may hold"
        raise HistoryError(f"{path}: {why}; move it aside to start a new history")
    os.set_blocking(fd, True)
    return fd


def read_lines(fd: int, path: Path) -> tuple[list[dict], int]:
    """(the records, the offset where a damaged last record starts, else the file's end). A damaged
    last record (an append cut short by a full disk or a kill) is skipped with a warning; a damaged
    record before it is refused."""
    records, offset, torn = [], 0, None
    with os.fdopen(os.dup(fd), "rb") as fh:
        fh.seek(0)
        for n, line in enumerate(iter(lambda: fh.readline(MAX_LINE + 1), b""), start=1):
            if torn is not None:
                raise torn
            if len(line) > MAX_LINE and not line.endswith(b"\n"):  # over-long: the rest of it, read and counted
                size = len(line) + rest_of_line(fh)
                torn, start = damaged(f"{path}:{n}", f"{size} bytes, over the {MAX_LINE >> 20} MB a record may hold"), offset
                offset += size
                continue
            if line.strip():
                try:
                    records.append(parse(line, f"{path}:{n}"))
                except DamagedRecord as exc:
                    torn, start = exc, offset
            offset += len(line)
    if torn is not None:
        print(f"warning: {torn.where}: damaged last history record ({torn.why}), what an interrupted append "
              "leaves: skipped (the next report build cuts it off)", file=sys.stderr)
        return records, start
    return records, offset


def rest_of_line(fh) -> int:
    """Read to the end of the current line (its newline included) in bounded pieces; how many bytes."""
    size = 0
    while (piece := fh.readline(MAX_LINE)):
        size += len(piece)
        if piece.endswith(b"\n"):
            break
    return size


def read(results: str | Path) -> list[dict]:
    """Every record, oldest first ([] when there is no history yet); a damaged line is refused, but for
    the last one, skipped with a warning."""
    path = path_of(results)
    if not path.exists() and not path.is_symlink():
        return []
    fd = open_log(path, os.O_RDONLY)
    try:
        return read_lines(fd, path)[0]
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def append(results: str | Path, record: dict) -> bool:
    """Append `record` (sealed here) unless the last record of its report has the same key. The
    append is length-checked: a write that fails (a full disk) is cut back to the file's old end, and
    a damaged last record an earlier append left is cut off first (after its warning)."""
    path = path_of(results)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = open_log(path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        records, end = read_lines(fd, path)
        if end < os.fstat(fd).st_size:
            os.ftruncate(fd, end)  # the damaged last record, warned about: cut off
        last = next((r for r in reversed(records) if r["report"] == record["report"]), None)
        if last is not None and last["key"] == record["key"]:
            return False
        try:
            os.lseek(fd, end, os.SEEK_SET)
            write_all(fd, encode(sealed(record)))
            os.fsync(fd)
        except OSError as exc:
            os.ftruncate(fd, end)
            raise HistoryError(f"{path}: could not append this build's record ({exc.strerror}); the history "
                               "is as it was before") from None
    finally:
        os.close(fd)
    return True
