"""A command's peak memory and bytes written, measured, for the fault cases that bound them.

`measured(cmd, cwd)` runs `cmd` under a small wrapper that starts it in its own process group under
an address-space limit (so a blow-up fails the case instead of the machine), kills the group past
`timeout`, and reads the child's resource usage from wait4: its peak RSS (it and the children it
waited for) and the blocks it wrote. The wrapper's one measurement line is taken off stderr.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from fault_harness import PY, Hung, run

WRAP = """\
import os, resource, subprocess, sys, threading
limit_mb, timeout = int(sys.argv[1]), float(sys.argv[2])
def limit():
    resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))
p = subprocess.Popen(sys.argv[3:], start_new_session=True, preexec_fn=limit)
hung = []
def kill():
    hung.append(1)
    os.killpg(p.pid, 9)
timer = threading.Timer(timeout, kill)
timer.start()
_, status, ru = os.wait4(p.pid, 0)
timer.cancel()
try:
    os.killpg(p.pid, 9)  # what it left running
except OSError:
    pass
sys.stderr.write(f"\\nMEASURED {ru.ru_maxrss} {ru.ru_oublock * 512} {int(bool(hung))}\\n")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def measured(cmd: list[str], cwd: Path, limit_mb: int = 3072, timeout: float = 120, env: dict | None = None
             ) -> tuple[subprocess.CompletedProcess, float, float]:
    """(the command's result, its peak RSS in MB, the MB it wrote); a hang is a Hung result."""
    proc = run([PY, "-c", WRAP, str(limit_mb), str(timeout), *cmd], cwd, env=env, timeout=timeout + 60)
    head, _, tail = proc.stderr.rpartition("\nMEASURED ")
    if not tail:
        return proc, float("inf"), float("inf")
    rss_kb, written, hung = (int(x) for x in tail.split())
    proc.stderr = head
    if hung:
        proc = Hung(proc.args, -9, proc.stdout, f"hung: still running after {timeout:g} s (killed)\n{head}")
    return proc, rss_kb / 1024, written / (1 << 20)


def folder_bytes(folder: Path) -> int:
    """Bytes of the regular files below `folder` (0 when it is not there)."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) \
        if folder.is_dir() else 0
