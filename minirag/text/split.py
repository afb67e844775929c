"""Fix a dev/test split of a questions file: choices are made on dev, figures reported on test.

    python -m minirag.text.split kb/eval/questions.jsonl [--dev-share 0.333]

gives every question that has no `split` field one, and leaves the others as they are, so a
split once fixed never moves when questions are added. Within each stratum (language ×
difficulty × answerable) the new questions are ordered by the sha256 of their qid and the
first `dev_share` of them (rounded) go to dev: the split is stratified, deterministic and
independent of the order of the file. The file is rewritten atomically, lines in place.

What it leaves out: validating the questions (the questions stage does) and BEIR corpora,
whose splits are their qrels files.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from ..artifacts.io import atomic_write_text, read_jsonl, sha256_text


def assign_splits(questions: list[dict], dev_share: float = 1 / 3) -> list[dict]:
    """The questions with a split each; those that had one keep it."""
    strata: dict[tuple, list[int]] = defaultdict(list)
    for i, q in enumerate(questions):
        if "split" not in q:
            strata[(q.get("lang"), q.get("difficulty"), q.get("answerable"))].append(i)
    out = [dict(q) for q in questions]
    for members in strata.values():
        members.sort(key=lambda i: sha256_text(str(questions[i]["qid"])))
        n_dev = round(len(members) * dev_share)
        for rank, i in enumerate(members):
            out[i]["split"] = "dev" if rank < n_dev else "test"
    return out


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m minirag.text.split", description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path)
    ap.add_argument("--dev-share", type=float, default=1 / 3)
    a = ap.parse_args()
    questions = read_jsonl(a.path)
    assigned = assign_splits(questions, a.dev_share)
    atomic_write_text(a.path, "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in assigned))
    counts = defaultdict(int)
    for q in assigned:
        counts[q["split"]] += 1
    print(f"{a.path}: {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    main()
