"""Small file helpers every stage shares: atomic writes, JSON Lines, content hashes.

Atomic means: write to a temporary file in the destination folder, fsync, then
`os.replace` it over the target, so a killed job never leaves a half-written artifact
that looks complete; the file gets the mode the umask gives a new file (mkstemp's 0600
would not). Readers name the file (and line) of anything they cannot parse. Nothing here
knows about chunks or vectors.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import stat
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

if TYPE_CHECKING:
    import numpy as np


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


FILE_MODE = 0o666 & ~_umask()  # what open() would give a new file in this process


def link_out_of(path: str | os.PathLike) -> str | None:
    """Why a write to `path` would leave its top folder (`results`, the first folder of `path` below the
    working directory) through a symlinked folder on the way, or None. The top folder itself may be a
    link (the whole results folder kept elsewhere); a link inside it must stay inside it."""
    path = Path(os.path.abspath(path))
    try:
        rel = path.relative_to(Path.cwd())
    except ValueError:
        return None  # a path outside the project: the caller chose it whole
    if len(rel.parts) < 3:
        return None
    top = Path.cwd() / rel.parts[0]
    base = os.path.realpath(top)
    folder = top
    for part in rel.parts[1:-1]:
        folder = folder / part
        if folder.is_symlink():
            target = os.path.realpath(folder)
            if os.path.commonpath([base, target]) != base:
                return (f"{os.path.relpath(folder)}: a symlink to {target}, outside {rel.parts[0]}/; writes never "
                        f"follow a link out of {rel.parts[0]}/ (replace the link with a folder)")
    return None


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside `path`; rename it over `path` on success. A path reached through a
    symlinked folder that leads out of its top folder is refused (`link_out_of`)."""
    path = Path(path)
    problem = link_out_of(path)
    if problem:
        raise ValueError(problem)
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # here: a command that only reads never loads it (nor the random module it imports)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with open(tmp_path, "rb") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp_path, FILE_MODE)
        os.replace(tmp_path, path)
    except OSError as exc:
        # a write's error (a full disk: "[Errno 28] No space left on device") names no file, or the
        # temporary one, which is gone by the time it is read: name the file being written
        if exc.filename in (None, tmp, str(tmp_path)):
            if exc.errno is None:  # not the OS's own error: its message, the file before it
                raise OSError(f"{path}: {exc}") from None
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        raise
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def dumps_json(obj: Any) -> str:
    """JSON as every artifact writes it: UTF-8 kept readable, keys in insertion order."""
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


def write_json(path: str | os.PathLike, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


def regular(path: str | os.PathLike) -> Path:
    """`path`, if it is a regular file (after symlinks); a FIFO or a device (/dev/zero, /dev/stdin)
    raises ValueError: reading one could block or never end."""
    path = Path(path)
    if path.exists() and not stat.S_ISREG(path.stat().st_mode):
        raise ValueError(f"{path}: not a regular file (a folder, a FIFO, a device?)")
    return path


def read_text(path: str | os.PathLike) -> str:
    """A UTF-8 text file; bytes that are not UTF-8 raise ValueError naming the file and line."""
    data = regular(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ValueError(f"{path}:{line}: not valid UTF-8 (byte {exc.start})") from None


def parse_json(text: str | bytes, where: str, position: bool = False) -> Any:
    """json.loads(text); broken JSON, or JSON nested past Python's recursion limit (100,000 `[`),
    raises ValueError starting with `where` (a file, or file:line; `position`: then :line:column)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        at = f":{exc.lineno}:{exc.colno}" if position else ""
        raise ValueError(f"{where}{at}: not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise ValueError(f"{where}: JSON nested too deeply to read") from None


def read_json(path: str | os.PathLike, unique_keys: bool = False) -> Any:
    """A JSON file; broken JSON raises ValueError naming the file, line and column; `unique_keys`: a key
    twice in one object too (json keeps the last silently), naming the key and both lines."""
    text = read_text(path)
    value = parse_json(text, str(path), position=True)
    if unique_keys:
        def pairs(items):
            seen = set()
            for k, _ in items:
                if k in seen:
                    needle = json.dumps(k, ensure_ascii=False) + ":"
                    first = text.find(needle)
                    lines = [text[:i].count("\n") + 1 for i in (first, text.find(needle, first + 1)) if i >= 0]
                    raise ValueError(f"{path}:{lines[-1] if lines else '?'}: duplicate key {shown(k)} (first on "
                                     f"line {lines[0] if lines else '?'}); a receipt names each file once")
                seen.add(k)
            return dict(items)
        json.loads(text, object_pairs_hook=pairs)
    return value


def write_jsonl(path: str | os.PathLike, records: Iterable[dict]) -> int:
    """Write records one line each, streamed (a generator is never held whole); returns how many."""
    n = 0
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as fh:
        for r in records:
            fh.write(dumps_json(r) + "\n")
            n += 1
    return n


def numbered_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of a JSON Lines file, one at a time (memory:
    one line; lines end at \n only, so U+2028 inside a string is not a line end); a bad line,
    or bytes that are not UTF-8, raise ValueError naming the file and line."""
    with open(regular(path), "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid UTF-8 (byte {exc.start} of the line)") from None
            if line.strip():
                yield lineno, parse_json(line, f"{path}:{lineno}")


def iter_jsonl(path: str | os.PathLike) -> Iterator[dict]:
    """JSON Lines one record at a time (numbered_jsonl without the numbers)."""
    return (value for _, value in numbered_jsonl(path))


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    """Read JSON Lines into a list; a bad line raises ValueError naming the file and line."""
    return list(iter_jsonl(path))


# numpy is imported by the functions that need it: a stage that reads and writes JSON Lines only
# (curate, questions, chunk, prompt, ...) starts without it, ~80 ms of CPU less per job


def save_npy(path: str | os.PathLike, array: np.ndarray) -> None:
    import numpy as np
    # straight into the temporary file: no second copy of a large array in memory
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.save(fh, array, allow_pickle=False)


def npy_map(tmp: str | os.PathLike, shape: tuple[int, ...]) -> np.memmap:
    """A new float32 .npy of `shape` at `tmp` (an atomic_path's), memory-mapped to fill in place, its
    blocks reserved first: a sparse file mapped on a full disk dies of SIGBUS at the first page the
    disk cannot hold (leaving its temporary file behind), where a reservation is an OSError."""
    import numpy as np
    out = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float32, shape=shape)
    if hasattr(os, "posix_fallocate"):  # Linux and most Unixes; elsewhere (macOS) the map is filled unreserved
        with open(tmp, "r+b") as fh:
            os.posix_fallocate(fh.fileno(), 0, os.fstat(fh.fileno()).st_size)
    return out


def load_npy(path: str | os.PathLike, mmap: bool = False) -> np.ndarray:
    """An .npy array (no pickles; `mmap`: read-only memory map); a damaged file raises ValueError naming it."""
    import numpy as np
    try:
        return np.load(path, allow_pickle=False, mmap_mode="r" if mmap else None)
    except (ValueError, OSError, EOFError) as exc:
        raise ValueError(f"{path}: not a readable .npy array ({exc})") from None


def load_npz(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Every array of an .npz (no pickles); a damaged file raises ValueError naming it."""
    import numpy as np
    try:
        with np.load(path, allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise ValueError(f"{path}: not a readable .npz archive ({type(exc).__name__}: {exc})") from None


def save_npz(path: str | os.PathLike, **arrays: np.ndarray) -> None:
    """Uncompressed .npz written atomically (array by array into the file); loading needs no pickle."""
    import numpy as np
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **arrays)


def shown(value: Any, limit: int = 80) -> str:
    """repr(value) for a message, cut short (reprlib): a message quoting a user's value never grows
    with it (a 100 MB string, a list of a million items, an alias bomb's nesting)."""
    import reprlib
    r = reprlib.Repr()
    r.maxstring = r.maxother = limit
    r.maxlist = r.maxtuple = r.maxdict = r.maxset = 10
    r.maxlevel = 3
    return r.repr(value)


def as_input(path: str | Path) -> str:
    """A rule input's path relative to the working directory when it lies below it: the same
    project copied or moved elsewhere then names the same inputs, and Snakemake finds it up to
    date (an absolute path is a new input to it)."""
    return relative_input(os.fspath(path), os.getcwd())


@functools.lru_cache(maxsize=8192)  # the Snakefile asks ~1,800 times for ~200 code files
def relative_input(path: str, cwd: str) -> str:
    p = Path(path)
    return os.path.relpath(p, cwd) if p.is_absolute() and p.is_relative_to(cwd) else str(p)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_HASHED: dict[tuple[str, int, int], str] = {}  # (path, size, mtime_ns) -> sha256, for this process


def sha256_file(path: str | os.PathLike) -> str:
    """sha256 of a file's bytes (a regular file only), computed once per process for the same
    path, size and modification time: a job's loaders, verification and receipt all ask."""
    st = os.stat(path)
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _HASHED:
        h = hashlib.sha256()
        with open(regular(path), "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        _HASHED[key] = h.hexdigest()
    return _HASHED[key]


def note_sha256(path: str | os.PathLike, sha256: str) -> None:
    """Remember the sha256 of a file this process just wrote (and hashed as it wrote it)."""
    st = os.stat(path)
    _HASHED[(str(path), st.st_size, st.st_mtime_ns)] = sha256
