"""A built corpus's retrieval figures on one split: the view choices are made from.

    python bench/split_figures.py --corpus kb --split dev        # table; --json for JSON

Reads `results/<corpus>/eval/metrics.json` and `slices.csv` (as the report does) and
prints, per retriever, chunk-level hit@5, MRR and recall@5 overall, and hit@5 on the
cross-language, paraphrase and verb-conjugation questions of the split. Tuning looks at
`--split dev` only; the report headlines test.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path


def figures(results: Path, corpus: str, split: str) -> list[dict]:
    root = results / corpus / "eval"
    metrics = json.loads((root / "metrics.json").read_text())
    block = metrics if split == metrics.get("split", "test") else metrics.get("splits", {}).get(split)
    if block is None:
        raise SystemExit(f"{root / 'metrics.json'}: no {split!r} split")
    with open(root / "slices.csv", encoding="utf-8") as fh:
        slices = [r for r in csv.DictReader(fh) if r["split"] == split and r["level"] == "chunk"]
    cell = {(r["retriever"], r["lang"], r["difficulty"]): float(r["hit@5"]) for r in slices}
    rows = []
    for name, by_level in block["retrieval"].items():
        m = by_level["chunk"]
        rows.append({"retriever": name, "hit@5": m["hit@5"], "mrr": m["mrr"], "recall@5": m["recall@5"],
                     "cross": cell.get((name, "cross", "all")), "paraphrase": cell.get((name, "all", "paraphrase")),
                     "conjugation": block["tags"].get(name, {}).get("conjugation", {}).get("chunk", {}).get("hit@5")})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--split", default="dev")
    ap.add_argument("--results", type=Path, default=Path("results"))
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = figures(a.results, a.corpus, a.split)
    if a.json:
        print(json.dumps(rows, indent=2))
        return 0
    cols = ["hit@5", "mrr", "recall@5", "cross", "paraphrase", "conjugation"]
    print(f"{a.corpus}, {a.split} split, chunk level")
    print(f"{'retriever':<28}" + "".join(f"{c:>12}" for c in cols))
    for r in sorted(rows, key=lambda r: -r["hit@5"]):
        print(f"{r['retriever']:<28}" + "".join(f"{r[c]:>12.3f}" if r[c] is not None else f"{'–':>12}" for c in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main())
