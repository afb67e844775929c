"""A report build's history record: when, from which commit and config, with which stage
settings, what each run and reader scored, and where its per-question snapshot is.

    {"report": "report", "config": "workflow/config.yaml", "config_sha256": "...",
     "time": "2025-06-01T12:00:00Z", "git": {"commit": "0860c9e...", "dirty": false},
     "corpora": {"kb": {"config_sha256": "...", "stages": {"chunk": "<sha256 of its settings>", ...},
                        "retrieval": {run: {"chunk": {metric: value}, "doc": {...}}},
                        "readers": {reader: {run: {metric: value}}},
                        "snapshot": "history/<sha256>.json"}},
     "key": "...", "sha256": "..."}

`stages` holds, per job of the corpus's graph, the hash of the settings its receipt records;
`key` hashes everything but `time` and `git`, so a build that measured the same things with
the same settings has the key of the one before it and is not recorded again (log.py). The
commit is `git rev-parse HEAD` and `dirty` whether `git status --porcelain` lists anything;
outside a git work tree (or without git) `git` is null.

What it leaves out: the code's own hashes (receipts and the manifest hold them) and timings.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from ..artifacts.integrity import load_json
from ..artifacts.io import read_json, sha256_bytes
from ..artifacts.layout import CorpusLayout
from .blobs import encode
from .log import append
from .snapshot import snapshot

READER_METRICS = ("contains_answer", "exact_match", "f1", "cites_relevant", "abstention_accuracy")


def git_state(cwd: str | Path = ".") -> dict | None:
    """{"commit", "dirty"} of the work tree at `cwd`, or None when it is not one."""
    def git(*args: str) -> str | None:
        try:
            proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return proc.stdout if proc.returncode == 0 else None
    commit = git("rev-parse", "HEAD")
    if commit is None:
        return None
    return {"commit": commit.strip(), "dirty": bool((git("status", "--porcelain") or "").strip())}


def settings_hash(value) -> str:
    return sha256_bytes(encode(value))[:16]


def stage_hashes(layout: CorpusLayout, jobs: list[tuple[str, str | None]]) -> dict[str, str]:
    """"<stage>[.<name>]" -> the hash of the settings its receipt records, for each job of the graph."""
    out = {}
    for stage, name in jobs:
        receipt = read_json(layout.receipt(stage, name))
        out[stage + (f".{name}" if name else "")] = settings_hash(receipt.get("settings"))
    return out


def corpus_entry(results: str | Path, cc: dict, layout: CorpusLayout, jobs: list) -> dict:
    metrics = load_json(layout.eval("metrics.json"), "metrics")
    retrieval = {run: {level: {k: round(v, 6) for k, v in m.items()} for level, m in by_level.items()}
                 for run, by_level in metrics["retrieval"].items()}
    readers = {reader: {run: {k: round(a[k], 6) for k in READER_METRICS} for run, a in by_run.items()}
               for reader, by_run in metrics.get("readers", {}).items()}
    return {"config_sha256": settings_hash(cc), "stages": stage_hashes(layout, jobs), "retrieval": retrieval,
            "readers": readers, "snapshot": snapshot(results, cc, layout, list(metrics["retrieval"]))}


def record_build(results: str | Path, report: str, config: str, corpora: dict[str, tuple[dict, CorpusLayout, list]],
                 cwd: str | Path = ".") -> bool:
    """Append this build's record to results/history.jsonl (`corpora`: name -> (settings, layout,
    jobs)); False when it measured nothing new since the report's last record."""
    record = {"report": report, "config": config,
              "config_sha256": settings_hash({name: cc for name, (cc, _, _) in corpora.items()}),
              "corpora": {name: corpus_entry(results, cc, layout, jobs) for name, (cc, layout, jobs) in corpora.items()}}
    record["key"] = sha256_bytes(encode(record))
    record["time"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    record["git"] = git_state(cwd)
    return append(results, record)
