"""Receipts: what each job read and wrote, by sha256, and the check every artifact loader makes.

Every stage job writes, after its outputs, one receipt `results/<corpus>/receipts/<stage>[.<name>].json`:

    {"stage": "retrieve", "name": "bm25", "settings": {...},
     "inputs":  {"results/kb/chunks.jsonl": "<sha256>", ...},
     "outputs": {"runs/bm25.trec": {"sha256": "...", "bytes": 81234, "lines": 12200}}}

Outputs are named relative to the corpus's results folder, so a receipt still vouches for
its files when the folder is moved or read through another path.

`verified(path)` is what each artifact kind's loader calls before it parses a file: the
file must exist, be a regular file, its producer's receipt must list it, and its bytes must
hash to what the receipt recorded. A file cut short, bit-flipped, edited or replaced since
its job wrote it is refused with one line naming the file, the receipt and the command that
rebuilds it; it is never used. Receipts are Snakemake outputs of their rules, so deleting one
reruns its job, and the report depends on every receipt. `verify_corpus` checks a whole
results folder: every receipt's outputs, hash and content (content.py), and every recorded
input against its producer's receipt; `incomplete` checks that every file the config's jobs
must write (the graph's list) is there, since a deleted receipt lists nothing.

What it leaves out: files the user supplies (documents, questions, configs: their hashes
are recorded as inputs, not checked), and authenticity: a receipt rewritten to match a
forged file passes the hash check (these are checksums against damage and staleness, not
signatures); only the content checks stand between a forgery and its use, and a forgery
with well-formed, finite content passes them too.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterable, Iterator

from .content import check_file
from .io import iter_jsonl, link_out_of, read_json, read_jsonl, sha256_file, write_json
from .layout import CorpusLayout
from .missing import require
from .registry import producer_of


class IntegrityError(RuntimeError):
    """An artifact that does not match its receipt; the message says how to rebuild it."""


def rebuild_hint(path: Path) -> str:
    return f"rebuild it: rm -f '{path}' && snakemake -c1 '{path}' (with the --configfile it was built with)"


def describe(path: Path) -> dict:
    data = {"sha256": sha256_file(path), "bytes": path.stat().st_size}
    if path.suffix in (".jsonl", ".trec", ".csv", ".txt", ".md"):
        with open(path, "rb") as fh:
            data["lines"] = sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b""))
    return data


def files_under(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    return [path] if path.is_file() else []


def write_receipt(receipt: str | Path, stage: str, name: str | None, settings, inputs: list[Path],
                  outputs: list[Path], fitted: dict | None = None) -> None:
    """Record the sha256 of every input file (folders: each file inside) and every output, and what
    the job fitted, when it fitted anything (a fusion's weights)."""
    root = Path(receipt).parent.parent
    write_json(receipt, {
        "stage": stage, "name": name, "settings": settings,
        "inputs": {os.path.normpath(p): sha256_file(p) for given in inputs for p in files_under(Path(given))},
        "outputs": {Path(os.path.relpath(p, root)).as_posix(): describe(Path(p)) for p in outputs},
        **({"fitted": fitted} if fitted is not None else {}),
    })


def receipt_of(path: Path) -> tuple[Path, str]:
    """(the receipt that vouches for `path`, the name it lists `path` under)."""
    root, artifact, wildcards = producer_of(path)
    receipt = CorpusLayout(root).receipt(artifact.job, artifact.job_name(wildcards))
    return receipt, Path(os.path.relpath(path, root)).as_posix()


def read_receipt(receipt: Path, path: Path) -> dict:
    if not receipt.exists():
        raise IntegrityError(f"{path}: its receipt {receipt} is missing, so nothing vouches for it; "
                             + rebuild_hint(path))
    data = read_json(receipt, unique_keys=True)
    if not isinstance(data, dict) or not isinstance(data.get("outputs"), dict):
        raise IntegrityError(f"{receipt}: not a receipt (no 'outputs'); {rebuild_hint(path)}")
    return data


def read_by_job(artifact: Path, source: Path) -> bool:
    """Whether the job that wrote `artifact` read `source` as it is now (its receipt's sha256 of it)."""
    receipt, _ = receipt_of(artifact)
    recorded = read_receipt(receipt, artifact).get("inputs", {}).get(os.path.normpath(source))
    return recorded is not None and Path(source).is_file() and recorded == sha256_file(source)


def verified(path: str | Path, what: str = "") -> Path:
    """`path`, after checking it is the file its job wrote; raises otherwise."""
    path = Path(path)
    require(path, what or path.name)
    receipt, key = receipt_of(path)
    recorded = read_receipt(receipt, path)["outputs"].get(key)
    if recorded is None:
        raise IntegrityError(f"{path}: not among the outputs its receipt {receipt} lists; {rebuild_hint(path)}")
    st = path.stat()
    if not stat.S_ISREG(st.st_mode):  # a FIFO or a device (/dev/zero) would never end: never read
        raise IntegrityError(f"{path}: not a regular file (a FIFO, a device?); " + rebuild_hint(path))
    if st.st_size != recorded.get("bytes") or sha256_file(path) != recorded["sha256"]:
        raise IntegrityError(f"{path}: changed since its job wrote it ({st.st_size} bytes now, "
                             f"{recorded.get('bytes')} then; sha256 differs from {receipt}); " + rebuild_hint(path))
    return path


def leftovers(root: str | Path, current: Iterable[str | Path]) -> list[Path]:
    """The receipts under root/receipts that no job of the current config writes (`current`: its receipts),
    with the outputs each lists that no current job writes too: what an earlier config built and this
    one does not (a retriever or reader since removed)."""
    root, keep = Path(root), {os.path.realpath(p) for p in current}
    out: list[Path] = []
    for receipt in sorted((root / "receipts").glob("*.json")):
        if os.path.realpath(receipt) in keep:
            continue
        out.append(receipt)
        try:
            outputs = read_json(receipt, unique_keys=True).get("outputs", {})
        except ValueError:
            continue
        out += [root / o for o in outputs if (root / o).exists() and os.path.realpath(root / o) not in keep]
    return out


def verify_corpus(root: str | Path, current: Iterable[str | Path] | None = None) -> list[str]:
    """Every problem of a corpus's results: outputs that differ from their receipts, and inputs
    a receipt recorded that are no longer what their own producer wrote. [] when all hold. With
    `current` (the config's receipts), only those receipts are checked: the others are leftovers."""
    root = Path(root)
    problems = []
    written: dict[str, str] = {}
    loaded: dict[Path, dict] = {}
    keep = None if current is None else {os.path.realpath(p) for p in current}
    for receipt in sorted((root / "receipts").glob("*.json")):
        if keep is not None and os.path.realpath(receipt) not in keep:
            continue
        try:
            loaded[receipt] = read_json(receipt, unique_keys=True)
        except ValueError as exc:  # not JSON, or a key twice
            problems.append(str(exc))
            continue
        for out, rec in loaded[receipt].get("outputs", {}).items():
            p = root / out
            written[os.path.realpath(p)] = rec["sha256"]
            if link_out_of(p):
                problems.append(link_out_of(p))
            elif not p.exists():
                problems.append(f"{p}: missing (listed by {receipt})")
            elif not stat.S_ISREG(p.stat().st_mode):
                problems.append(f"{p}: not a regular file (a FIFO, a device?)")
            elif p.stat().st_size != rec.get("bytes") or sha256_file(p) != rec["sha256"]:
                problems.append(f"{p}: differs from what {receipt} recorded")
            else:
                problems += content_problems(p)
    for receipt, data in loaded.items():
        for inp, sha in data.get("inputs", {}).items():
            if written.get(os.path.realpath(inp), sha) != sha:
                problems.append(f"{receipt}: read {inp} before it was last rewritten (stale: rerun its job)")
    return problems


def incomplete(required: list[str | Path], problems: list[str] = ()) -> list[str]:
    """A line per file of `required` (what the config's jobs must have written, receipts included)
    that is not there, unless `problems` already names it: a job that failed, or an artifact deleted
    with its receipt, leaves no receipt to list what is missing."""
    said = {line.split(": ", 1)[0] for line in problems}
    return [f"{p}: missing (the config's jobs write it; build it with: snakemake -c1 '{p}')"
            for p in map(Path, required) if not p.exists() and not p.is_symlink() and str(p) not in said]


def content_problems(path: Path) -> list[str]:
    """[] when the file's content is what its kind promises (content.py), else the one problem."""
    try:
        check_file(path)
    except (ValueError, OSError, KeyError, TypeError) as exc:
        return [str(exc)]
    return []


def load_records(path: str | Path, what: str = "") -> list[dict]:
    """A JSON Lines artifact (docs, questions, prompts, answers), checked against its receipt."""
    return read_jsonl(verified(path, what))


def iter_records(path: str | Path, what: str = "") -> Iterator[dict]:
    """`load_records` one record at a time; the receipt is checked before the first."""
    return iter_jsonl(verified(path, what))


def load_json(path: str | Path, what: str = "") -> object:
    """A JSON artifact (metrics, assertion results, sidecars), checked against its receipt."""
    return read_json(verified(path, what))
