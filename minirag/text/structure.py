"""The structure of a markdown document: its heading path, its tables, its lines and sentences.

`DocumentStructure(text)` answers, for a character position, which headings are in force
(`heading_path`: "Irregular verbs › Table of common irregular verbs") and, inside a table,
its header row. `context(title, start, end)` is what situates a chunk cut from the middle
of a document: the document title, the heading path at its first character, and the header
row of a table whose rows it holds without that header. `units(start, end)` cuts a span
into the small units a retriever can score on their own: table rows (each with its
header), list items and sentences.

    | Base form | Past simple | Past participle |      <- header, carried to every row
    |---|---|---|
    | begin | began | begun |                        <- a unit; its context names the columns

What it leaves out: cutting chunks (chunk.py) and anything about tokens.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

HEADING_RE = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
SEPARATOR_RE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
SENTENCE_RE = re.compile(r"[^.!?\u3002\uff01\uff1f]+(?:[.!?\u3002\uff01\uff1f]+[\"')\]\u201d\u2019\u00bb]*|$)")
LIST_ITEM_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
PATH_SEP = " › "
FENCE_RE = re.compile(r"^\s*(?:```|~~~)")
BLOCK_RE = re.compile(r"^\s*(?:#{1,6}\s|\||>|(?:[-*+]|\d+[.)])\s|=+\s*$)")  # opens a block (or underlines a title)
COLUMNS_RE = re.compile(r"[^\s.!?:] {2,}\S|^[\s=-]+$")  # a column gap (not two spaces after a stop), a rule
WRAP_WIDTH = 40  # a line at least this long that runs on was wrapped, not ended


def reading_lines(text: str) -> list[str]:
    """The text's lines, each soft-wrapped continuation joined to the line it continues, with one space.

    Markdown and plain text wrap a paragraph or a list item over several lines; a reader that takes a
    line for a unit would cut "covered for\ntwo years" in two. A line continues the one before when
    both are prose (not blank, not a heading, a table row, a rule or inside a code fence), it opens no
    block of its own (a heading, a row, a list item, a quote), the one before ends without a hard break
    (two spaces or a backslash) and either was wrapped (at least WRAP_WIDTH characters) or the line
    starts in lower case. Short lines that each start with a capital ("Weight: 19.8 kg" over
    "Colour: red", a text file's list) stay apart, as their writer meant, and so do the rows of a
    text file's table, set in columns with runs of spaces.
    """
    out: list[str] = []
    last = ""     # the physical line before, as written
    joins = False  # whether the line before may take a continuation
    fenced = False
    for line in text.split("\n"):
        if FENCE_RE.match(line):
            fenced, joins = not fenced, False
            out.append(line)
            continue
        stripped = line.strip()
        wrapped = len(last.strip()) >= WRAP_WIDTH or stripped[:1].islower()
        if (joins and stripped and not BLOCK_RE.match(line) and not COLUMNS_RE.search(line)
                and not last.endswith(("  ", "\\")) and wrapped):
            out[-1] = f"{out[-1].rstrip()} {stripped}"
        else:
            out.append(line)
            joins = (not fenced and bool(stripped) and not HEADING_RE.match(line)
                     and not stripped.startswith("|") and not COLUMNS_RE.search(line))
        last = line
    return out


@dataclass(frozen=True)
class Table:
    """A markdown table of a document: its header and where its rows are."""
    header: str       # the header row, as written
    rows_start: int   # first character of the first data row
    end: int          # end of the last row


@dataclass(frozen=True)
class Unit:
    """A span of a document that is read as one piece (a sentence, a table row)."""
    start: int        # [start, end) in the document
    end: int
    kind: str         # "row", "item" or "sentence"
    header: str = ""  # a row's table header


class DocumentStructure:
    def __init__(self, text: str):
        self.text = text
        self.heads: list[tuple[int, int, str]] = [(m.start(), len(m.group(1)), m.group(2).strip())
                                                  for m in HEADING_RE.finditer(text)]
        self.starts = [h[0] for h in self.heads]
        self.tables = self._tables()
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def _tables(self) -> list[Table]:
        tables, lines, pos = [], self.text.split("\n"), 0
        offsets = []
        for line in lines:
            offsets.append(pos)
            pos += len(line) + 1
        i = 0
        while i < len(lines) - 1:
            if lines[i].lstrip().startswith("|") and SEPARATOR_RE.match(lines[i + 1]):
                j = i + 2
                while j < len(lines) and lines[j].lstrip().startswith("|"):
                    j += 1
                if j > i + 2:
                    tables.append(Table(lines[i].strip(), offsets[i + 2], offsets[j - 1] + len(lines[j - 1])))
                i = j
            else:
                i += 1
        return tables

    def section_at(self, pos: int) -> str:
        """The innermost heading in force at `pos` ("" before the first heading)."""
        i = bisect.bisect_right(self.starts, pos) - 1
        return self.heads[i][2] if i >= 0 else ""

    def heading_path(self, pos: int) -> list[str]:
        """The headings in force at `pos`, outermost first: for each level, the last one above it."""
        path: list[tuple[int, str]] = []
        for _, level, title in self.heads[:bisect.bisect_right(self.starts, pos)]:
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, title))
        return [title for _, title in path]

    def table_at(self, pos: int) -> Table | None:
        """The table whose data rows span `pos`, if any."""
        for t in self.tables:
            if t.rows_start <= pos <= t.end:
                return t
        return None

    def context(self, title: str, start: int, end: int) -> str:
        """Title › heading path at the span's first character, and the header row of a table whose
        rows the span holds without it, on a second line."""
        span = self.text[start:end]
        first = start + (len(span) - len(span.lstrip()))
        parts = [title] if title else []
        for heading in self.heading_path(first):
            if not parts or heading.casefold() != parts[-1].casefold():
                parts.append(heading)
        lines = [PATH_SEP.join(parts)] if parts else []
        table = self.table_at(first)
        if table is not None and first >= table.rows_start:
            lines.append(table.header)
        return "\n".join(lines)

    def units(self, start: int, end: int) -> list[Unit]:
        """Rows, list items and sentences wholly inside [start, end), in document order: a line
        is judged whole in the document, so a span that cuts a row or a sentence drops it."""
        out: list[Unit] = []
        starts = self._line_starts
        i = bisect.bisect_right(starts, start) - 1  # the line holding `start`
        while i < len(starts) and starts[i] < end:
            lo = starts[i]
            hi = starts[i + 1] - 1 if i + 1 < len(starts) else len(self.text)
            i += 1
            line = self.text[lo:hi]
            whole = start <= lo and hi <= end
            if not line.strip() or HEADING_RE.match(line) or SEPARATOR_RE.match(line):
                continue
            if line.lstrip().startswith("|"):
                table = self.table_at(lo)
                if whole and table is not None and lo >= table.rows_start:
                    out.append(Unit(lo, hi, "row", table.header))
                continue
            if LIST_ITEM_RE.match(line):
                if whole:
                    out.append(Unit(lo, hi, "item"))
                continue
            for m in SENTENCE_RE.finditer(line):
                piece = m.group()
                if piece.strip() and re.search(r"\w", piece):
                    lead = len(piece) - len(piece.lstrip())
                    u_lo, u_hi = lo + m.start() + lead, lo + m.start() + len(piece.rstrip())
                    if start <= u_lo and u_hi <= end:
                        out.append(Unit(u_lo, u_hi, "sentence"))
        return out

    def line_starts(self) -> list[int]:
        return list(self._line_starts)
