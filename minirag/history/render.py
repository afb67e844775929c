"""`minirag diff` and `minirag history` as text for a terminal or as markdown.

A diff opens with a summary (settings changed, metrics that moved significantly, questions
flipped, by count), then the sections: the settings that changed, the jobs they reran, the
metrics that changed (unchanged ones only with `all_rows`), the runs only one side has, and
the flipped questions (at most `limit` per run and change; `--json` has every one). A flipped
retrieval shows the first gold chunk's rank on each side; a flipped answer, both answers. Text
fits `WIDTH` columns: the widest columns are clipped first.

What it leaves out: computing anything (diff.py).
"""

from __future__ import annotations

from collections import defaultdict

WIDTH = 100


def side(s: dict) -> str:
    commit = (s.get("commit") or "")[:10] or "no commit"
    where = f"build #{s['build']} ({s['time']}, {commit}{' dirty' if s.get('dirty') else ''})"
    return f"run {s['run']} of {where}" if s.get("run") else where


def value(v) -> str:
    return "(absent)" if v is None else str(v)


def rank(r) -> str:
    return "–" if r is None else str(r)


def summary(d: dict) -> list[str]:
    """Three lines: what changed, which metrics moved significantly, how many questions flipped."""
    settings = "; ".join(f"{c['key']}: {value(c['a'])} → {value(c['b'])}" for c in d["settings"])
    jobs = f"; {len(d['stages'])} job(s) with new settings" if d["stages"] else ""
    moved = [r for r in d["metrics"] if r["delta"]["significant"]]
    named = ", ".join(f"{r['run']} {r['metric']} {r['text'].split(' [')[0]}" for r in moved)
    flips, answers = d["flips"], d["answer_flips"]
    gained = sum(f["change"] == "gained" for f in flips)
    right = sum(f["change"] == "right" for f in answers)
    return [clip(f"Settings changed: {len(d['settings'])}" + (f" ({settings})" if settings else "") + jobs, WIDTH),
            clip(f"Metrics moved significantly: {len(moved)} of {len(d['metrics'])}" + (f" ({named})" if named else ""),
                 WIDTH),
            f"Questions flipped (chunk hit@5): {gained} gained, {len(flips) - gained} lost over "
            f"{len({f['run'] for f in flips})} run(s); answers: {right} now right, {len(answers) - right} now wrong"]


def sections(d: dict, limit: int, all_rows: bool = False) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) per section, in order; a section with no rows is left out."""
    metrics = [r for r in d["metrics"] if all_rows or r["a"] != r["b"]]
    hidden = "" if all_rows else f"; {len(d['metrics']) - len(metrics)} unchanged hidden (--all)"
    out = [(f"Settings that changed ({d['corpus']})", ["setting", "A", "B"],
            [[c["key"], value(c["a"]), value(c["b"])] for c in d["settings"]]),
           ("Jobs whose settings changed (receipts)", ["job", "A", "B"],
            [[s["job"], value(s["a"])[:12], value(s["b"])[:12]] for s in d["stages"]]),
           (f"Metrics, test split (Δ = B − A [95 %], p; * significant after Holm){hidden}",
            ["run", "metric", "n", "A", "B", "Δ"],
            [[r["run"], r["metric"], str(r["questions"]), f"{r['a']:.3f}", f"{r['b']:.3f}", r["text"]]
             for r in metrics])]
    only = [[r, "A"] for r in d["runs_only_in_a"]] + [[r, "B"] for r in d["runs_only_in_b"]]
    out.append(("Runs only one side has", ["run", "side"], only))
    flips = [[f["run"], f["qid"], f["change"], f"{rank(f.get('rank_a'))} → {rank(f.get('rank_b'))}", f["query"],
              f["gold"]] for f in d["flips"]]
    out.append(("Flipped questions: chunk hit@5 (rank: the first gold chunk's, A → B)",
                ["run", "question", "change", "rank", "query", "gold"], flips if all_rows else capped(flips, limit)))
    answers = [[f["reader"], f["run"], f["qid"], f["change"], f["query"], f["gold"], f["a"], f["b"]]
               for f in d["answer_flips"]]
    out.append(("Flipped answers", ["reader", "run", "question", "now", "query", "gold", "A said", "B said"],
                answers if all_rows else capped(answers, limit, key=2)))
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


def fitted(header: list[str], rows: list[list[str]], width: int = WIDTH) -> list[int]:
    """Column widths (each at most 48) narrowed, widest first, until a line fits `width`."""
    widths = [min(48, max(len(h), *(len(" ".join(r[i].split())) for r in rows))) for i, h in enumerate(header)]
    while sum(widths) + 2 * (len(widths) - 1) > width and max(widths) > 6:
        widths[widths.index(max(widths))] -= 1
    return widths


def text(d: dict, limit: int = 10, all_rows: bool = False) -> str:
    lines = [f"A: {side(d['a'])}", f"B: {side(d['b'])}", "", *summary(d)]
    parts = sections(d, limit, all_rows)
    if not parts:
        lines.append("\nNo setting, metric or question differs.")
    for title, header, rows in parts:
        widths = fitted(header, rows)
        lines += ["", clip(title, WIDTH), "  ".join(clip(h, w).ljust(w) for h, w in zip(header, widths)).rstrip()]
        lines += ["  ".join(clip(c, w).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines) + "\n"


def markdown(d: dict, limit: int = 10, all_rows: bool = False) -> str:
    lines = [f"# minirag diff: `{d['corpus']}`", "", f"- A: {side(d['a'])}", f"- B: {side(d['b'])}", "",
             *(f"- {line}" for line in summary(d))]
    for title, header, rows in sections(d, limit, all_rows):
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
