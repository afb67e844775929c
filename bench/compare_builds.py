"""Compare two builds' results folders file by file: byte-identical, or what differs.

    python bench/compare_builds.py OLD_RESULTS NEW_RESULTS [--json]

Every file under each corpus folder is compared by sha256, except logs and Snakemake
benchmark files (timings). Answer files and metrics.json are compared again with their
measured latencies removed, since those differ between any two runs; JSON sidecars that
differ are compared key by key so a reader sees which keys moved. Prints a table per
corpus: identical, identical without latency, differing (with the keys), only in one build.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

SKIP_DIRS = {"logs", "benchmarks"}
LATENCY_KEYS = {"latency_ms", "latency_ms_p50", "latency_ms_p95"}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*"))
            if p.is_file() and not SKIP_DIRS & set(p.relative_to(root).parts) and not p.name.startswith(".")}


def strip_latency(value):
    if isinstance(value, dict):
        return {k: strip_latency(v) for k, v in value.items() if k not in LATENCY_KEYS}
    if isinstance(value, list):
        return [strip_latency(v) for v in value]
    return value


def load_json_or_lines(path: Path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def differing_keys(a, b, prefix="") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in list(dict.fromkeys([*a, *b])):
            if k not in a or k not in b:
                out.append(f"{prefix}{k} (only in {'new' if k not in a else 'old'})")
            elif a[k] != b[k]:
                out += differing_keys(a[k], b[k], f"{prefix}{k}.")
        return out
    return [prefix.rstrip(".") or "(value)"] if a != b else []


def record_changes(old: list, new: list) -> list[str]:
    """For two lists of records: the keys added or dropped, and whether the shared keys agree."""
    if len(old) != len(new) or not all(isinstance(r, dict) for r in old + new):
        return [f"(records differ: {len(old)} vs {len(new)})"]
    added = sorted({k for r in new for k in r} - {k for r in old for k in r})
    dropped = sorted({k for r in old for k in r} - {k for r in new for k in r})
    differ = sum({k: v for k, v in b.items() if k in a} != {k: v for k, v in a.items() if k in b}
                 for a, b in zip(old, new))
    return ([f"keys added: {', '.join(added)}"] * bool(added) + [f"keys dropped: {', '.join(dropped)}"] * bool(dropped)
            + [f"shared keys differ in {differ} of {len(old)} records" if differ
               else f"shared keys identical in all {len(old)} records"])


def compare(old: Path, new: Path) -> dict:
    a, b = files(old), files(new)
    out = {"identical": [], "identical_without_latency": [], "different": {}, "only_old": [], "only_new": []}
    for rel in sorted(set(a) | set(b)):
        if rel not in b:
            out["only_old"].append(rel)
        elif rel not in a:
            out["only_new"].append(rel)
        elif sha(a[rel]) == sha(b[rel]):
            out["identical"].append(rel)
        elif rel.endswith((".json", ".jsonl")):
            x, y = load_json_or_lines(a[rel]), load_json_or_lines(b[rel])
            if strip_latency(x) == strip_latency(y):
                out["identical_without_latency"].append(rel)
            elif isinstance(x, dict):
                keys = differing_keys(x, y)
                kept = all(k.endswith("(only in new)") for k in keys)
                out["different"][rel] = ([f"only keys added ({len(keys)}), every old key and value kept: "
                                          + ", ".join(k.split(" (")[0] for k in keys[:6])] if kept else keys[:8])
            else:
                out["different"][rel] = record_changes(x, y)
        else:
            out["different"][rel] = ["(bytes differ)"]
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old", type=Path)
    p.add_argument("new", type=Path)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    corpora = sorted(d.name for d in args.old.iterdir() if d.is_dir() and d.name not in SKIP_DIRS)
    report = {c: compare(args.old / c, args.new / c) for c in corpora}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    for c, r in report.items():
        print(f"{c}: {len(r['identical'])} identical, {len(r['identical_without_latency'])} identical but for "
              f"latency, {len(r['different'])} different, {len(r['only_old'])} only in old, "
              f"{len(r['only_new'])} only in new")
        for rel, keys in r["different"].items():
            print(f"  differs  {rel}: {', '.join(keys)}")
        for rel in r["only_old"]:
            print(f"  only old {rel}")
        for rel in r["only_new"]:
            print(f"  only new {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
