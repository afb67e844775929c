"""A TREC run file's lines, parsed: `qid Q0 id rank score run_name`, six fields a line.

Beneath both the content check of a run (content.py: finite scores, ranks in order, known ids)
and the run reader (evaluation/trec.py), which each parse a run the same way.

What it leaves out: whether the lines make a run (content.run_rows), and writing runs (trec.py).
"""

from __future__ import annotations

from pathlib import Path

from .io import read_text


def parse_run(path: str | Path) -> list[tuple[int, str, str, int, float, str]]:
    """(line number, qid, id, rank, score, run name) of every line; a line that is not six fields
    with an integer rank and a number score raises ValueError naming the file and line."""
    rows = []
    text = read_text(path)
    if text and not text.endswith("\n"):
        raise ValueError(f"{path}: the last line has no newline: the file was cut short")
    for lineno, line in enumerate(text.split("\n"), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 6:
            raise ValueError(f"{path}:{lineno}: expected 6 fields 'qid Q0 id rank score run', got {len(parts)}")
        qid, _, doc, rank, score, name = parts
        try:
            rows.append((lineno, qid, doc, int(rank), float(score), name))
        except ValueError:
            raise ValueError(f"{path}:{lineno}: rank must be an integer and score a number") from None
    return rows
