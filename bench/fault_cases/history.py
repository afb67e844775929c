"""The build history (results/history.jsonl) and `minirag history` / `diff`: a record cut short by a
full disk, a disk that fills while appending, the file replaced by a FIFO, a device or a sparse
gigabyte, a line nested 100,000 deep, a damaged record before the last, and unknown builds. A case
holds when reading is bounded in time and memory, every error names the file (and line), and a
damaged last record never blocks a build."""

from __future__ import annotations

import os
from pathlib import Path

from fault_harness import PY, Case, Edit, accepted, refused, run, snakemake
from fault_measure import measured

HISTORY = "results/history.jsonl"
APPEND = """\
import json, sys
from minirag.history import log
from minirag.history.blobs import HistoryError
record = {"report": "mini", "config": "mini.yaml", "config_sha256": "0", "corpora": {}, "pad": "x" * 8192,
          "key": "fault-case", "time": "2026-01-01T00:00:00Z", "git": None}
try:
    log.append("results", record)
except HistoryError as exc:
    print(f"error: {exc}", file=sys.stderr)
    sys.exit(1)
"""


def history_cmd(project: Path, *args: str, **kw):
    """`python -m minirag history|diff ...` over the project's results/ (they take no config)."""
    return run([PY, "-m", "minirag", *args], project, **kw)


def cut_last_record(project: Path) -> tuple[bool, str]:
    """The last record cut short (what a full disk mid-append left): `history` warns and lists the
    rest, and a report build appends after it."""
    with Edit(project / HISTORY) as path:
        data = path.read_bytes() * 2  # two records (the one build's, twice), the last then cut in half
        path.write_bytes(data[: len(data) - len(data.splitlines()[-1]) // 2 - 1])
        listed = history_cmd(project, "history")
        warned = "warning" in listed.stderr and f"{HISTORY}:" in listed.stderr and listed.returncode == 0
        build = snakemake(project, "--forcerun", "report", "results/mini.md", timeout=600)
        after = history_cmd(project, "history")
        held = warned and build.returncode == 0 and after.returncode == 0 and "warning" not in after.stderr
        return held, (listed.stderr.strip().splitlines() or ["no warning"])[0][:160] if held else \
            f"history exit {listed.returncode}, build exit {build.returncode}: {(build.stderr or '')[-120:]}"


def over_long_last_record(project: Path) -> tuple[bool, str]:
    """A complete last line of 100 MB (over the 4 MB a record may hold): `history` warns naming its line and
    size and lists the rest, read in bounded pieces; a report build appends after it, cutting it off."""
    with Edit(project / HISTORY) as path:
        good = path.read_bytes()
        with path.open("ab") as fh:
            fh.write(b'{"key": "' + b"x" * (100 << 20) + b'"}\n')
        listed = history_cmd(project, "history")
        n = good.count(b"\n") + 1
        warned = listed.returncode == 0 and f"{HISTORY}:{n}: damaged last history record (104857612 bytes" in listed.stderr
        build = snakemake(project, "--forcerun", "report", "results/mini.md", timeout=600)
        after = history_cmd(project, "history")
        cut = path.stat().st_size < (1 << 20)
        held = warned and build.returncode == 0 and after.returncode == 0 and "warning" not in after.stderr and cut
        return held, (listed.stderr.strip().splitlines() or ["no warning"])[0][:160] if held else \
            f"history exit {listed.returncode}: {listed.stderr.strip()[:100]}; build exit {build.returncode}"


def disk_full_append(project: Path) -> tuple[bool, str]:
    """The disk fills while a record is appended (a file-size limit at the history's size): one error
    line naming the file, and the history exactly as it was."""
    path = project / HISTORY
    before = path.read_bytes()
    blocks = (len(before) + 1023) // 1024
    proc = run(["bash", "-c", f"trap '' XFSZ; ulimit -f {blocks}; exec {PY} -c \"$0\"", APPEND], project)
    held, said = refused(proc, "history.jsonl", "could not append")
    same = path.read_bytes() == before
    listed = history_cmd(project, "history")
    return held and same and listed.returncode == 0 and "warning" not in listed.stderr, \
        said if same else "the history changed"


def replaced(make, *needles: str, limit_mb: int = 400):
    """history.jsonl replaced by `make(path)`: `history` and `diff` refused at once, naming the file, with
    a peak RSS under `limit_mb` (measured)."""
    def check(project: Path) -> tuple[bool, str]:
        with Edit(project / HISTORY) as path:
            path.unlink()
            make(path)
            results = [measured([PY, "-m", "minirag", cmd], project, timeout=60) for cmd in ("history", "diff")]
        said = ""
        for proc, rss, _ in results:
            held, said = refused(proc, "history.jsonl", *needles)
            if not held or rss > limit_mb:
                return False, f"{said} (peak RSS {rss:.0f} MB, limit {limit_mb})"
        return True, f"{said[:110]} (peak RSS {max(r for _, r, _ in results):.0f} MB)"
    return check


def sparse(path: Path) -> None:
    with open(path, "wb") as fh:
        fh.truncate(1 << 30)


def one_huge_line(path: Path) -> None:
    path.write_bytes(b"[" + b"0," * (8 << 20) + b"0]\n" + b"{}\n")


def edited(change, *needles: str, command=("history",)):
    def check(project: Path) -> tuple[bool, str]:
        with Edit(project / HISTORY) as path:
            path.write_bytes(change(path.read_bytes()))
            return refused(history_cmd(project, *command), *needles)
    return check


def nested_first(data: bytes) -> bytes:
    return b"[" * 100_000 + b"]" * 100_000 + b"\n" + data


def flipped_first(data: bytes) -> bytes:
    first, _, rest = data.partition(b"\n")
    return first.replace(b'"report"', b'"rep0rt"') + b"\n" + rest + data  # damaged, then good records after


def fifo_during_report(project: Path) -> tuple[bool, str]:
    """A FIFO history while a report is built: the job fails naming the file (its log), never hangs, and
    the last good report and its manifest stay in place, byte for byte."""
    kept = {name: (project / "results" / name).read_bytes() for name in ("mini.md", "mini.manifest.json")}
    try:
        with Edit(project / HISTORY) as path:
            path.unlink()
            os.mkfifo(path)
            proc = snakemake(project, "--forcerun", "report", "results/mini.md", timeout=300)
            held, said = refused(proc, "history.jsonl", log=project / "results/logs/mini.log")
            gone = [n for n, data in kept.items() if not (project / "results" / n).is_file()
                    or (project / "results" / n).read_bytes() != data]
            return held and not gone, said if not gone else f"the failed report job lost {', '.join(gone)}"
    finally:
        snakemake(project, "results/mini.md", timeout=1800)


def cases() -> list[Case]:
    g = "history"
    return [Case(name, g, check) for name, check in [
        ("the last record cut short: skipped, a build appends", cut_last_record),
        ("a complete 100 MB last record: skipped naming line and size, a build appends", over_long_last_record),
        ("disk full while appending: the history as it was", disk_full_append),
        ("history a FIFO", replaced(os.mkfifo, "not a regular file")),
        ("history a symlink to /dev/zero", replaced(lambda p: os.symlink("/dev/zero", p), "not a regular file")),
        ("history a sparse 1 GB file", replaced(sparse, "over")),
        ("history one 16 MB line", replaced(one_huge_line, "damaged")),
        ("a record nested 100,000 deep (before the last)", edited(nested_first, "history.jsonl:1", "nested")),
        ("a damaged record before the last", edited(flipped_first, "history.jsonl:1", "damaged")),
        ("invalid UTF-8 in a record before the last", edited(lambda d: b"\xff\xfe\n" + d, "history.jsonl:1")),
        ("history a FIFO during a report build: the last report kept", fifo_during_report),
        ("diff --build ../../etc", edited(lambda d: d, "--build", "minirag history",
                                          command=("diff", "bm25", "rrf", "--build", "../../etc"))),
        ("diff --build nope", edited(lambda d: d, "--build", "minirag history",
                                     command=("diff", "bm25", "rrf", "--build", "nope"))),
        ("diff 999", edited(lambda d: d, "999", "no such build", command=("diff", "999", "1"))),
        ("history --json lists the builds", lambda p: accepted(history_cmd(p, "history", "--json"))),
    ]]
