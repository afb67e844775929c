"""Files a job keeps in place between its runs: refused before Snakemake touches them when they are
not regular files.

The embed job reads and rewrites its embedding cache (`cache/<embedder>.npz`) and the cache's receipt,
so its rule marks them `update()`: before the job runs, Snakemake copies each to
`.snakemake/backups/` to restore it if the job fails. That copy happens in Snakemake's own process,
before any stage code: a FIFO there blocks it (or ends in Snakemake's traceback), a symlink to
/dev/zero fills the disk. `special_kept(root)` names such files of a corpus's results folder; the
workflow refuses them while it reads the config, before planning a job.

Snakemake's job scheduler, also in its own process, writes its problem file to TMPDIR: a full one
ends the build in its traceback, so `scheduler_scratch_problem` names it first.

What it leaves out: regular files (a cache is as big as the vectors it keeps) and the files jobs
replace whole (Snakemake deletes those before the job; it never reads them).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

KEPT = ("cache/*", "receipts/embed_cache.*")  # what the rules mark update(), below results/<corpus>/


def special_kept(root: str | Path) -> list[str]:
    """A line for each kept file of results folder `root` that is not a regular file (after symlinks)."""
    out = []
    for pattern in KEPT:
        for path in sorted(Path(root).glob(pattern)):
            try:
                mode = os.stat(path).st_mode
            except OSError:  # a dangling symlink: nothing to copy
                continue
            if not stat.S_ISREG(mode):
                what = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) \
                    else "a folder" if stat.S_ISDIR(mode) else "not a regular file"
                out.append(f"{path}: {what}, where a job keeps a file it rewrites (Snakemake would copy it "
                           f"before the job); remove it: rm -rf '{path}'")
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
