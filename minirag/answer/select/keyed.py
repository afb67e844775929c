"""A table cell found by its row and its column: "What should I do on W02?" reads the row the question names
(the one whose key is W02) in the column its cue asks for (*What to do*: an action), "Which grind setting for
a French press?" the *French press* row in the column whose header it names (*Setting*).

    keyed_cell(question, cells) -> Verdict("Restart the modem, wait 3 minutes, then restart the router.", row line)

A row scores, over its cells outside the asked columns, the number the question names whole (holds every
content word of: its key, and a state such as "Blinking orange" beside a key such as "Internet"), then the
shares of those it names at least half of. The best row must name a cell whole and score more than any other
row: a tie ("What does blinking mean?" over two lights that blink) is no answer, and the learned scorer
chooses.

What it leaves out: rows or columns the question names in other words (the scorer's similarity features read
those), and tables whose rows are the attributes (a spec table's *Weight* row: the scorer's g_attr_* features).
"""

from __future__ import annotations

from typing import Iterable

from .attributes import named
from .candidates import Candidate
from .generic import GenericQuestion, content_stems
from .polar import Verdict


def rows_of(cells: Iterable[Candidate]) -> dict[str, dict[str, str]]:
    """Each table row's whole cells (column -> text) by its line, in first-seen order; a cell's parts
    (cell_parts) come after the whole cell and are left out."""
    rows: dict[str, dict[str, str]] = {}
    for c in cells:
        if c.kind == "cell" and c.column:
            rows.setdefault(c.line, {}).setdefault(c.column, c.text)
    return rows


def row_score(row: dict[str, str], asked_columns: set[str], stems: set[str]) -> tuple[int, float]:
    """(the cells outside the asked columns whose every content stem the question holds, the sum of the
    shares it holds of those it holds at least half of)."""
    whole, shares = 0, 0.0
    for column, text in row.items():
        held = set(content_stems(text))
        if column not in asked_columns and held:
            share = len(held & stems) / len(held)
            whole += share == 1.0
            shares += share if share >= 0.5 else 0.0
    return whole, shares


def asked_columns(row: dict[str, str], attrs: frozenset[str], stems: set[str]) -> list[str]:
    """The row's columns named for an attribute the question's cue asks for; without one, those whose header
    the question names whole ("Which grind setting for a French press?": *Setting*) unless it names their
    cell too (the *Light* column's "Internet" is what the question says, not what it asks)."""
    by_cue = [column for column in row if named(column) & attrs]
    if by_cue:
        return by_cue
    return [column for column, text in row.items() if (header := set(content_stems(column))) and header <= stems
            and not set(content_stems(text)) <= stems]


def keyed_cell(question: GenericQuestion, cells: Iterable[Candidate]) -> Verdict | None:
    """The cell of the row the question names best, in the first column it asks for (asked_columns; module
    docstring); None when it asks for no column of a row or no row wins."""
    stems = set(question.stems)
    scored: list[tuple[tuple[int, float], str, str]] = []  # (score, line, answer)
    for line, row in rows_of(cells).items():
        asked = asked_columns(row, question.attrs, stems)
        if asked and row[asked[0]]:
            scored.append((row_score(row, set(asked), stems), line, row[asked[0]]))
    scored.sort(key=lambda s: s[0], reverse=True)
    if not scored or not scored[0][0][0] or (len(scored) > 1 and scored[1][0] >= scored[0][0]):
        return None
    return Verdict(scored[0][2], scored[0][1])
