"""A plain-text file -> its text, as UTF-8 with its line breaks normalised; and the decoding every converter shares.

A table set in columns under a rule of dashes, one run per column, becomes a Markdown table, so its rows
are read cell by cell as a Markdown file's are:

    Code  Meaning                 What to do               | Code | Meaning | What to do |
    ----  ----------------------  ----------------    ->   |---|---|---|
    W01   No cable in the port    Plug the cable in.       | W01 | No cable in the port | Plug the cable in. |
                                  Then restart.            (a row whose first column is blank continues the one above)

What it leaves out: other guessing of structure (a line in capitals is not made a heading), tables without
a rule or whose cells hold a "|" (left as written), and encodings other than UTF-8 (a Latin-1 file is
refused, naming the byte).
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import ConversionError
from .pipe import pipe_table


def decoded(path: Path) -> str:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConversionError(f"{path}:{line}: not valid UTF-8 (byte {exc.start}); save it as UTF-8") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


COLUMN_RULE_RE = re.compile(r"^ *-{2,}(?: +-{2,})+ *$")  # a run of dashes under each column


def column_cells(line: str, starts: list[int]) -> list[str] | None:
    """The line cut at the columns' first characters, or None when a cut would split a word."""
    if any(0 < s < len(line) and line[s - 1] != " " for s in starts[1:]):
        return None
    bounds = starts + [len(line)]
    return [line[bounds[k]:max(bounds[k], bounds[k + 1])].strip() for k in range(len(starts))]


def column_table(lines: list[str], i: int) -> tuple[list[str], int] | None:
    """The Markdown table of a column table whose header is lines[i] (its rule below it) and the index of
    the first line after it (a blank line ends it), or None when a line does not fit its columns."""
    starts = [m.start() for m in re.finditer(r"-+", lines[i + 1])]
    rows: list[list[str]] = []
    j = i + 2
    while j < len(lines) and lines[j].strip():
        row = column_cells(lines[j], starts)
        if row is None:
            return None
        if not row[0] and rows:  # a cell wrapped onto the next line: it continues the row above
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], row)]
        else:
            rows.append(row)
        j += 1
    header = column_cells(lines[i], starts)
    if header is None or not rows or any("|" in c for r in [header, *rows] for c in r):
        return None
    return pipe_table([header, *rows]), j


def to_markdown(path: Path) -> str:
    lines = [line.rstrip() for line in decoded(path).split("\n")]
    out: list[str] = []
    i = 0
    while i < len(lines):
        found = (column_table(lines, i) if i + 1 < len(lines) and lines[i].strip() and COLUMN_RULE_RE.match(lines[i + 1])
                 else None)
        if found is None:
            out.append(lines[i])
            i += 1
        else:
            out += found[0]
            i = found[1]
    return "\n".join(out).strip("\n")
