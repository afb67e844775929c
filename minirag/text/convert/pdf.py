"""A PDF -> one Markdown text per page, from its text layer (pypdf, the `documents` extra).

    pages("manual.pdf") -> ("Kestrel manual", ["Specifications\nWeight 3.1 kg\n...", "...", ...])

Each page is its own document, so a citation names the page (`manual.pdf#page=3`). pypdf reads the
page's text pieces and where each starts; pieces at one height are a line, in order of position, and
a piece starting well after the previous one ends (its width estimated from its characters and font
size, half an em each) starts a new field of the line. Two or more consecutive lines with the same
number (two or more) of fields are a table, written as a pipe table whose first line is its header (a
PDF holds no table, only text placed in rows and columns); every other line is kept as text. pypdf's
own layout mode keeps such gaps too, at less than half the speed (bench/convert.py). A page with no text is
skipped; a file where no page has any (a scan) gives no pages, and the caller warns.

What it leaves out: OCR of scanned pages, images, annotations and form fields, cells that wrap onto a
second line (each line is a row), and pages set in two columns of prose (read as a two-column table).
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import ConversionError
from .pipe import pipe_table

SPACE_RE = re.compile(r"[ \t]+")
GAP_RE = re.compile(r"\s{3,}")


def pages(path: Path) -> tuple[str, list[str]]:
    """(the PDF's title from its metadata, "" without one; each page's text, "" for a page with none)."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError
    try:
        reader = PdfReader(str(path))
        meta = reader.metadata
        title = (meta.title or "").strip() if meta is not None else ""
        texts = []
        for page in reader.pages:
            texts.append(markdown_of(layout_lines(page)))
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        raise ConversionError(f"{path}: not a readable PDF ({exc})") from None
    return title, texts


def layout_lines(page) -> list[str]:
    """The page's lines, top to bottom, their fields joined by GAP (three spaces)."""
    pieces: list[tuple[float, float, str, float]] = []  # (y, x, text, font size) of each piece of text

    def visit(text, cm, tm, font, size):
        if text.strip():
            a, b, c, d, e, f = cm
            scale = abs(tm[0] * a) or 1.0  # the text matrix's scale times the page's: the size on the page
            pieces.append((tm[4] * b + tm[5] * d + f, tm[4] * a + tm[5] * c + e, text, (size or 10.0) * scale))

    page.extract_text(visitor_text=visit)
    lines: list[list[tuple[float, float, str, float]]] = []
    for piece in sorted(pieces, key=lambda p: (-p[0], p[1])):
        if lines and abs(lines[-1][0][0] - piece[0]) <= 0.3 * piece[3]:  # the same baseline, give or take
            lines[-1].append(piece)
        else:
            lines.append([piece])
    out = []
    for line in lines:
        fields, end = [], None
        for _, x, text, size in sorted(line, key=lambda p: p[1]):
            if end is None or x - end > 1.5 * size:
                fields.append(text)
            else:  # the same field: a piece split off (a ligature, a kerned word) joins it, a later word after a space
                fields[-1] += text if x - end < 0.2 * size or fields[-1].endswith(" ") else " " + text.lstrip()
            end = x + 0.5 * size * len(text)
        out.append("   ".join(SPACE_RE.sub(" ", f).strip() for f in fields))
    return out


def markdown_of(lines: list[str]) -> str:
    """A page's layout lines as Markdown: runs of lines with the same fields as pipe tables (module docstring)."""
    rows = [[SPACE_RE.sub(" ", f) for f in GAP_RE.split(ln.strip())] for ln in lines if ln.strip()]
    out, i = [], 0
    while i < len(rows):
        j = i
        while j + 1 < len(rows) and len(rows[i]) >= 2 and len(rows[j + 1]) == len(rows[i]):
            j += 1
        if j > i:
            cells = [[c.replace("|", "\\|") for c in r] for r in rows[i:j + 1]]
            out += ["", *pipe_table(cells), ""]
        else:
            out.append(" ".join(rows[i]))
        i = j + 1
    return "\n".join(out).strip("\n").replace("\n\n\n", "\n\n")
