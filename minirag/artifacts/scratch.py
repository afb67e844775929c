"""Whether the temporary folder Snakemake's job scheduler writes to has room: checked as the workflow
is read, so a full one is one line naming it rather than the scheduler's traceback.

What it leaves out: the room a job's own outputs need (a full disk there is the write's error,
naming its file: io.atomic_path).
"""

from __future__ import annotations

import os


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
