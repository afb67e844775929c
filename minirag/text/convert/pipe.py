"""What every converter writes a table as: a Markdown pipe table, its first row the header.

    pipe_table([["Part", "Price"], ["Lid", "6.90"]]) -> ["| Part | Price |", "|---|---|", "| Lid | 6.90 |"]

What it leaves out: reading the table (each converter's own) and escaping a "|" in a cell (the converters
that read cells do it before).
"""

from __future__ import annotations


def pipe_table(rows: list[list[str]]) -> list[str]:
    """The rows as the lines of a pipe table, the first the header, each padded with empty cells to the
    widest; no lines for no rows."""
    if not rows:
        return []
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    return (["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
            + ["| " + " | ".join(r) + " |" for r in rows[1:]])
