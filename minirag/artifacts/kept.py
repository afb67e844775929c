"""Files a job keeps in place between its runs: refused before Snakemake touches them when they are
not regular files.

The embed job reads and rewrites its embedding cache (`cache/<embedder>.npz`) and the cache's receipt,
and the report job its report and manifest, so their rules mark them `update()`: before the job runs,
Snakemake copies each to `.snakemake/backups/` to restore it if the job fails. That copy happens in
Snakemake's own process, before any stage code: a FIFO there blocks it (or ends in Snakemake's
traceback), a symlink to /dev/zero fills the disk, and so does a cache grown huge (a sparse 1 GB file
passes for a regular one). `special_kept(root)` names such files of a results folder: not regular, or a
cache over what its corpus could need (CACHE_PER_DOC_BYTE times its documents' size, at least
CACHE_FLOOR); the workflow refuses them while it reads the config, before planning a job.

Snakemake's job scheduler, also in its own process, writes its problem file to TMPDIR: a full one
ends the build in its traceback, so `scheduler_scratch_problem` names it first.

What it leaves out: the files jobs replace whole (Snakemake deletes those before the job; it never reads
them).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

KEPT = ("cache/*", "receipts/embed_cache.*")  # what the rules mark update(), below results/<corpus>/
# A cache holds a vector of each chunk of this build and of as many older ones: ~2 x (4 d + 70) bytes a chunk,
# far under 64 bytes per byte of the documents the chunks are cut from (SciFact: 15 MB of cache, 7 MB of text)
CACHE_PER_DOC_BYTE, CACHE_FLOOR = 64, 64 << 20


def cache_bound(root: Path) -> int:
    """The most bytes a cache of the corpus in `root` may hold, from the size of its documents."""
    docs = root / "docs.jsonl"
    size = os.stat(docs).st_size if docs.is_file() else 0
    return max(CACHE_FLOOR, CACHE_PER_DOC_BYTE * size)


def special_kept(root: str | Path, patterns: tuple[str, ...] = KEPT) -> list[str]:
    """A line for each kept file of results folder `root` that is not a regular file (after symlinks), or
    is a cache bigger than its corpus could need."""
    out = []
    for pattern in patterns:
        for path in sorted(Path(root).glob(pattern)):
            try:
                st = os.stat(path)
            except OSError:  # a dangling symlink: nothing to copy
                continue
            mode = st.st_mode
            if not stat.S_ISREG(mode):
                what = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) \
                    else "a folder" if stat.S_ISDIR(mode) else "not a regular file"
                out.append(f"{path}: {what}, where a job keeps a file it rewrites (Snakemake would copy it "
                           f"before the job); remove it: rm -rf '{path}'")
            elif path.parent.name == "cache" and st.st_size > (bound := cache_bound(Path(root))):
                out.append(f"{path}: {st.st_size} bytes, over the {bound} an embedding cache of this "
                           f"corpus can hold ({CACHE_PER_DOC_BYTE} x its documents; Snakemake would copy it "
                           f"before the job); remove it: rm -f '{path}'")
    return out


def scheduler_scratch_problem(room: int = 1 << 20) -> str | None:
    """Why the folder Snakemake's job scheduler writes its problem file to cannot hold `room` bytes, or
    None. The scheduler (pulp) takes $TMP, else $TMPDIR, else /tmp, and the working folder when that is
    no folder it may write to, but a full one ends the build in its traceback."""
    var = next((v for v in ("TMP", "TMPDIR") if os.environ.get(v)), None)
    folder = os.environ[var] if var else "/tmp"
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        return None  # then it writes into the working folder, which every job writes to anyway
    import tempfile
    try:
        with tempfile.TemporaryFile(dir=folder) as fh:
            fh.write(bytes(room))
            fh.flush()
    except OSError as exc:
        return (f"{var or 'the temporary folder'} ({folder}) cannot hold a temporary file ({exc.strerror}), and "
                f"Snakemake's job scheduler writes one there: free space in it, or point {var or 'TMPDIR'} at a "
                "folder with room, e.g. TMPDIR=$PWD/.tmp (mkdir it first)")
    return None
