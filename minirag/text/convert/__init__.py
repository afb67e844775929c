"""Files that are not Markdown, converted to Markdown: text, HTML, Word and PDF, chosen by extension.

    convert(Path("manual.pdf")) -> Converted(kind="pdf", title="Kestrel manual", pages=["...", "...", ...])
    convert(Path("parts.html")) -> Converted(kind="html", title="Spare parts", pages=["## Prices\n\n| Part | …"])

A PDF gives one text per page (each becomes a document cited with its page); every other kind one text.
HTML and Word are read with the standard library (html.py, docx.py); PDF with pypdf, in the `documents`
extra (pdf.py); without it a PDF stops the build with one line naming the extra. bench/convert.py
measures them against the libraries they could have been (bench/README.md).

What it leaves out: the documents' curation (folder.py: ids, languages, the cache), and scans (OCR).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .errors import ConversionError

KINDS = {".txt": "text", ".text": "text", ".html": "html", ".htm": "html", ".docx": "docx", ".pdf": "pdf"}


def source_version(folder: Path) -> str:
    """A hash of the converters' source files in `folder`: what a cached conversion was made by."""
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(folder.glob("*.py")))).hexdigest()[:12]


VERSION = source_version(Path(__file__).parent)  # a conversion cached by other code is redone, never trusted
EXTRA = "pip install -e '.[documents]' (make report installs it)"


@dataclass(frozen=True)
class Converted:
    kind: str
    title: str         # "" when the file names none
    pages: list[str]   # Markdown; one per PDF page, else one


def kind_of(path: Path) -> str | None:
    return KINDS.get(path.suffix.lower())


def convert(path: Path) -> Converted:
    kind = kind_of(path)
    if kind == "text":
        from .text import to_markdown as text_md
        return Converted(kind, "", [text_md(path)])
    if kind == "html":
        from .html import to_markdown as html_md
        from .text import decoded
        title, md = html_md(decoded(path))
        return Converted(kind, title, [md])
    if kind == "docx":
        from .docx import to_markdown as docx_md
        title, md = docx_md(path)
        return Converted(kind, title, [md])
    if kind == "pdf":
        from .pdf import pages
        try:
            title, texts = pages(path)
        except ModuleNotFoundError:
            raise ConversionError(f"{path}: reading PDF files needs pypdf: {EXTRA}") from None
        return Converted(kind, title, texts)
    raise ConversionError(f"{path}: no converter for {path.suffix or 'a file without an extension'}")
