"""`minirag diff` and `minirag history` as text for a terminal or as markdown.

The same sections in both: the two sides, the settings that changed, the metrics with their
deltas and significance, the runs only one side has, and the flipped questions (at most
`limit` per run and change; `--json` has every one).

What it leaves out: computing anything (diff.py).
"""

from __future__ import annotations

from collections import defaultdict


def side(s: dict) -> str:
    commit = (s.get("commit") or "")[:10] or "no commit"
    where = f"build #{s['build']} ({s['time']}, {commit}{' dirty' if s.get('dirty') else ''})"
    return f"run {s['run']} of {where}" if s.get("run") else where


def value(v) -> str:
    return "(absent)" if v is None else str(v)


def sections(d: dict, limit: int) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) per section, in order; a section with no rows is left out."""
    out = [(f"Settings that changed ({d['corpus']})", ["setting", "A", "B"],
            [[c["key"], value(c["a"]), value(c["b"])] for c in d["settings"]]),
           ("Jobs whose settings changed (receipts)", ["job", "A", "B"],
            [[s["job"], value(s["a"]), value(s["b"])] for s in d["stages"]]),
           ("Metrics (chunk level, test split; Δ = B − A, 95 % bootstrap interval, randomization p; "
            "* significant at 0.05 after Holm over this table)", ["run", "metric", "n", "A", "B", "Δ"],
            [[r["run"], r["metric"], str(r["questions"]), f"{r['a']:.3f}", f"{r['b']:.3f}", r["text"]]
             for r in d["metrics"]])]
    only = [[r, "A"] for r in d["runs_only_in_a"]] + [[r, "B"] for r in d["runs_only_in_b"]]
    out.append(("Runs only one side has", ["run", "side"], only))
    out.append(("Flipped questions: chunk hit@5", ["run", "question", "change", "query", "gold", "A said", "B said"],
                capped([[f["run"], f["qid"], f["change"], f["query"], f["gold"], f["a"], f["b"]] for f in d["flips"]],
                       limit)))
    out.append(("Flipped answers", ["reader", "run", "question", "now", "query", "gold", "A said", "B said"],
                capped([[f["reader"], f["run"], f["qid"], f["change"], f["query"], f["gold"], f["a"], f["b"]]
                        for f in d["answer_flips"]], limit, key=2)))
    return [s for s in out if s[2]]


def capped(rows: list[list[str]], limit: int, key: int = 1) -> list[list[str]]:
    """At most `limit` rows per run and change (the leading columns before the question), then a count."""
    groups: dict[tuple, list] = defaultdict(list)
    for row in rows:
        groups[tuple(row[:key]) + (row[key + 1],)].append(row)
    out = []
    for group, members in groups.items():
        out += members[:limit]
        if len(members) > limit:
            out.append(list(group[:key]) + [f"… {len(members) - limit} more", group[-1]] + [""] * (len(rows[0]) - key - 2))
    return out


def text(d: dict, limit: int = 10) -> str:
    lines = [f"A: {side(d['a'])}", f"B: {side(d['b'])}"]
    parts = sections(d, limit)
    if not parts:
        lines.append("\nNo setting, metric or question differs.")
    for title, header, rows in parts:
        widths = [min(48, max(len(h), *(len(r[i]) for r in rows))) for i, h in enumerate(header)]
        lines += ["", title, "  ".join(h.ljust(w) for h, w in zip(header, widths))]
        lines += ["  ".join(clip(c, w).ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines) + "\n"


def markdown(d: dict, limit: int = 10) -> str:
    lines = [f"# minirag diff: `{d['corpus']}`", "", f"- A: {side(d['a'])}", f"- B: {side(d['b'])}"]
    for title, header, rows in sections(d, limit):
        lines += ["", f"## {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def clip(s: str, width: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= width else s[:width - 1] + "…"


def history_table(records: list[dict]) -> str:
    """`minirag history`: one line per build, oldest first."""
    rows = [["#", "time", "report", "commit", "corpora", "changed jobs"]]
    previous: dict[str, dict] = {}
    for n, r in enumerate(records, start=1):
        git = r.get("git") or {}
        commit = (git.get("commit") or "–")[:10] + ("+" if git.get("dirty") else "")
        moved = []
        for corpus, entry in r["corpora"].items():
            before = previous.get(f"{r['report']}/{corpus}")
            if before is not None:
                moved += [j for j in entry["stages"] if entry["stages"][j] != before["stages"].get(j)]
            previous[f"{r['report']}/{corpus}"] = entry
        rows.append([str(n), r["time"], r["report"], commit, ", ".join(r["corpora"]),
                     clip(", ".join(moved), 60) if moved else "–"])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows) + "\n"
