"""A config file's YAML as the report read it, kept as JSON by the file's sha256: `search` and `answer`
read a config without PyYAML (~10 ms of a cold answer: its import compiles regexes of all Unicode).

The report stage writes `results/configs/<sha256>.json`, {"sha256": ..., "config": ...}, for the config
file it was built with: the value `read_yaml` gave (alias bombs, deep nesting and duplicate keys refused
first), written only when JSON holds it exactly (same types, same key order; not a date, a non-string
key, NaN). `read_parsed(path, results)` hashes the file's bytes and returns that value when a file of
that name holds it for those very bytes, else None, and the caller reads the YAML: an edited config, a
config of another build, a missing or damaged copy all read the YAML, so a copy can never be stale.

What it leaves out: checking the config (corpus.py: the copy is the YAML's value, checked as it would be)
and Snakemake's merging of several files (load.py: one file is one config).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from ..artifacts.layout import CONFIGS_FOLDER as FOLDER  # under the results folder


def copy_path(results: str | Path, sha256: str) -> Path:
    return Path(results) / FOLDER / f"{sha256}.json"


def same_json(a: Any, b: Any) -> bool:
    """Whether `a` and `b` are equal with every type and key order the same (1 is not 1.0 nor True)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return a == b


def write_parsed(path: str | Path, results: str | Path) -> Path | None:
    """Keep the config file's YAML value as JSON under `results` (the report stage); None when it cannot
    be read, or JSON would not hold it exactly."""
    import yaml

    from ..artifacts.io import atomic_write_text, sha256_bytes
    from ..artifacts.safe_yaml import load_yaml
    try:
        data = Path(path).read_bytes()
        config = load_yaml(data.decode("utf-8"), str(path))
        text = json.dumps({"sha256": sha256_bytes(data), "config": config}, ensure_ascii=False, allow_nan=False)
    except (OSError, ValueError, TypeError, RecursionError, yaml.YAMLError):  # a date, NaN: the CLI reads the YAML
        return None
    if not same_json(json.loads(text)["config"], config):
        return None
    out = copy_path(results, sha256_bytes(data))
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, text + "\n")
    return out


def read_parsed(path: str | Path, results: str | Path) -> dict | None:
    """The config file's YAML value from its JSON copy under `results`, or None (no copy for these bytes,
    a damaged copy, or not a regular file: the YAML is read, and refused, as it would be)."""
    from ..artifacts.io import sha256_bytes
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        data = Path(path).read_bytes()
        sha = sha256_bytes(data)
        copy = json.loads(copy_path(results, sha).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(copy, dict) or copy.get("sha256") != sha or not isinstance(copy.get("config"), dict):
        return None
    return copy["config"]
