"""`python -m minirag history` and `python -m minirag diff [A] [B]`, like `dvc exp show` and
`dvc metrics diff`, over results/history.jsonl.

    history                 the builds, oldest first, numbered
    diff                    the last two builds of the last report built
    diff 3 5                build #5 against build #3 (negative numbers count from the end: -1 is the last)
    diff a1b2c3             the build whose commit or key starts so, against the last build
    diff bm25 rrf           two runs of the last build (or of --build N)

A and B are build references when they are numbers or prefixes of a build's commit or key,
and runs of the corpus otherwise. `--corpus` picks the corpus (default: the build's only or
first one); `--json` and `--md` print the diff as JSON or markdown.

What it leaves out: the comparisons (diff.py) and their layout (render.py).
"""

from __future__ import annotations

import json
import re

from ..artifacts.io import shown
from . import log, render
from .blobs import HistoryError


def resolve(ref: str, records: list[dict]) -> int | None:
    """The 1-based build number `ref` names, or None when it names no build."""
    if re.fullmatch(r"-?\d+", ref):
        n = int(ref)
        n = len(records) + 1 + n if n < 0 else n
        if not 1 <= n <= len(records):
            raise HistoryError(f"{shown(ref)}: no such build (the history has {len(records)})")
        return n
    found = [i for i, r in enumerate(records, start=1)
             if r["key"].startswith(ref) or ((r.get("git") or {}).get("commit") or "").startswith(ref)]
    return found[-1] if len(ref) >= 4 and found else None


def choose(a, records: list[dict]) -> dict:
    """Which comparison the arguments ask for: {"builds": (na, nb)} or {"runs": (n, ra, rb)}."""
    refs = [x for x in (a.a, a.b) if x is not None]
    last = len(records)
    if not refs:
        same = [i for i, r in enumerate(records, start=1) if r["report"] == records[-1]["report"]]
        if len(same) < 2:
            raise HistoryError(f"{log.path_of(a.results)}: fewer than two builds of report "
                               f"{records[-1]['report']!r} to compare")
        return {"builds": (same[-2], same[-1])}
    numbers = [resolve(x, records) for x in refs]
    if all(n is not None for n in numbers):
        return {"builds": (numbers[0], numbers[1] if len(numbers) > 1 else last)}
    if len(refs) == 2 and not any(numbers):
        build = resolve(a.build, records) if a.build else last
        if build is None:
            raise HistoryError(f"--build {shown(a.build)}: no such build (a number, -1 = the last, or a commit or "
                               "key prefix of 4 or more characters); list the builds with: python -m minirag history")
        return {"runs": (build, refs[0], refs[1])}
    raise HistoryError(f"diff {' '.join(refs)}: give two build references (numbers, commit or key prefixes) "
                       "or two run names")


def cmd_history(a) -> int:
    records = log.read(a.results)
    if not records:
        raise HistoryError(f"{log.path_of(a.results)}: no builds recorded yet (build a report: snakemake -c1 results/report.md)")
    print(json.dumps(records, ensure_ascii=False, indent=2) if a.json else render.history_table(records), end="\n" * a.json)
    return 0


def cmd_diff(a) -> int:
    from .diff import diff_builds, diff_runs  # here: the significance tests load only for a diff
    records = log.read(a.results)
    if not records:
        raise HistoryError(f"{log.path_of(a.results)}: no builds recorded yet")
    what = choose(a, records)
    if "builds" in what:
        na, nb = what["builds"]
        corpus = a.corpus or next(iter(records[nb - 1]["corpora"]))
        d = diff_builds(a.results, records, na, nb, corpus)
    else:
        n, ra, rb = what["runs"]
        corpus = a.corpus or next(iter(records[n - 1]["corpora"]))
        d = diff_runs(a.results, records, n, ra, rb, corpus)
    if a.json:
        print(json.dumps(d, ensure_ascii=False, indent=2))
    else:
        print(render.markdown(d, a.limit, a.all) if a.md else render.text(d, a.limit, a.all), end="")
    return 0


def add_commands(sub, positive_int) -> None:
    """The `history` and `diff` subcommands of `python -m minirag`."""
    def common(sp):
        sp.add_argument("--results", default="results", help="the results folder holding history.jsonl")
        sp.add_argument("--json", action="store_true")
        sp.add_argument("--debug", action="store_true", help="show the traceback of a failure")

    sp = sub.add_parser("history", help="list the report builds recorded in results/history.jsonl")
    common(sp)
    sp.set_defaults(fn=cmd_history)
    sp = sub.add_parser("diff", help="compare two builds (default: the last two) or two runs of one build")
    sp.add_argument("a", nargs="?", help="a build (number, -1 = last, commit or key prefix) or a run")
    sp.add_argument("b", nargs="?", help="a build or a run (default with one build: the last build)")
    sp.add_argument("--corpus", default=None, help="the corpus to compare (default: the build's first)")
    sp.add_argument("--build", default=None, help="with two runs: the build they are of (default: the last)")
    sp.add_argument("--limit", type=positive_int, default=10, help="flipped questions shown per run and change")
    sp.add_argument("--all", action="store_true", help="every metric, unchanged ones too, and every flipped question")
    sp.add_argument("--md", action="store_true", help="markdown instead of text")
    common(sp)
    sp.set_defaults(fn=cmd_diff)
