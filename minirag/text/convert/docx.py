"""A Word file (.docx) -> Markdown: headings, list items and tables kept, read with the standard library.

    to_markdown(Path("handbook.docx")) -> ("Handbook", "# Handbook\n\n## Leave\n\n- Annual leave: 27 days\n...")

A .docx is a zip of XML parts. word/document.xml holds the body in reading order: paragraphs (w:p)
and tables (w:tbl). A paragraph whose style is named "Heading N" (word/styles.xml, whatever its id
in the user's language) becomes an ATX heading of level N, "Title" a level-1 heading; one with
numbering (w:numPr) a "- " item indented by its level; a table a pipe table whose first row is its
header. Text runs (w:t) are joined, tabs and breaks become spaces.

What it leaves out: headers, footers, footnotes, comments, text boxes, images, tracked changes' deleted
text (w:delText is never read) and whether a list is numbered or bulleted (every item is "- ").
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

from .errors import ConversionError
from .pipe import pipe_table

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
HEADING_RE = re.compile(r"^heading\s*(\d)$", re.I)
SPACE_RE = re.compile(r"\s+")


def style_levels(z: zipfile.ZipFile) -> dict[str, int]:
    """styleId -> heading level (from the styles' names: "heading 1", "Title"), or 0 for a list style (named
    "List …", or numbered by the style itself)."""
    if "word/styles.xml" not in z.namelist():
        return {}
    levels = {}
    for style in ET.fromstring(z.read("word/styles.xml")).iter(f"{W}style"):
        name = style.find(f"{W}name")
        value = name.get(f"{W}val", "") if name is not None else ""
        sid = style.get(f"{W}styleId", "")
        if (m := HEADING_RE.match(value.strip())):
            levels[sid] = int(m.group(1))
        elif value.strip().lower() == "title":
            levels[sid] = 1
        elif value.strip().lower().startswith("list") or style.find(f"{W}pPr/{W}numPr") is not None:
            levels[sid] = 0
    return levels


def text_of(p: ET.Element) -> str:
    parts = []
    for el in p.iter():
        if el.tag == f"{W}t":
            parts.append(el.text or "")
        elif el.tag in (f"{W}tab", f"{W}br", f"{W}cr"):
            parts.append(" ")
    return SPACE_RE.sub(" ", "".join(parts)).strip()


def paragraph(p: ET.Element, levels: dict[str, int]) -> str:
    text = text_of(p)
    if not text:
        return ""
    props = p.find(f"{W}pPr")
    style = props.find(f"{W}pStyle") if props is not None else None
    level = levels.get(style.get(f"{W}val", "")) if style is not None else None
    if level:
        return "#" * min(level, 6) + " " + text
    num = props.find(f"{W}numPr") if props is not None else None
    if num is not None or level == 0:
        ilvl = num.find(f"{W}ilvl") if num is not None else None
        depth = int(ilvl.get(f"{W}val", "0")) if ilvl is not None else 0
        return "  " * depth + "- " + text
    return text


def table(tbl: ET.Element) -> list[str]:
    rows = [[" ".join(text_of(p) for p in tc.iter(f"{W}p")).strip().replace("|", "\\|")
             for tc in tr.findall(f"{W}tc")] for tr in tbl.findall(f"{W}tr")]
    return pipe_table([r for r in rows if any(r)])


def to_markdown(path: Path) -> tuple[str, str]:
    """(the document's title: its first heading, else "", its body as Markdown)."""
    try:
        with zipfile.ZipFile(path) as z:
            levels = style_levels(z)
            body = ET.fromstring(z.read("word/document.xml")).find(f"{W}body")
    except (zipfile.BadZipFile, KeyError, ET.ParseError) as exc:
        raise ConversionError(f"{path}: not a readable .docx ({exc})") from None
    blocks: list[list[str]] = []
    for el in body if body is not None else []:
        if el.tag == f"{W}p" and (line := paragraph(el, levels)):
            item = line.lstrip().startswith("- ")
            if item and blocks and blocks[-1][-1].lstrip().startswith("- "):
                blocks[-1].append(line)  # list items stay one block
            else:
                blocks.append([line])
        elif el.tag == f"{W}tbl" and (rows := table(el)):
            blocks.append(rows)
    md = "\n\n".join("\n".join(b) for b in blocks)
    title = next((b[0].lstrip("#").strip() for b in blocks if b[0].startswith("#")), "")
    return title, md
