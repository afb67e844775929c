"""A DataFrame as a markdown table: floats to 3 decimals, missing values as –, lists joined.

What it leaves out: which tables there are (tables.py) and the prose around them (markdown.py).
"""

from __future__ import annotations

import pandas as pd


def cell(value) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list):
        shown = ", ".join(map(str, value[:8]))
        return shown + (" …" if len(value) > 8 else "")
    return str(value).replace("|", "\\|")


def md_table(df: pd.DataFrame, code: tuple[str, ...] = ()) -> str:
    """A markdown table; values of the columns in `code` are shown as `code`."""
    lines = ["| " + " | ".join(map(str, df.columns)) + " |", "|" + "|".join("---" for _ in df.columns) + "|"]
    for row in df.itertuples(index=False):
        cells = [f"`{v}`" if col in code else cell(v) for col, v in zip(df.columns, row)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
