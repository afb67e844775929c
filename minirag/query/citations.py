"""Where a cited chunk is: its document, the line the cited evidence starts on, its rank in the ranking.

An answer cites `[#n]`, the n-th chunk of its prompt, which may come from below the `k` chunks the
prompt shows (the answer selector reads the top `depth`). `cite` returns what `answer` lists for each:

    {"n": 4, "chunk_id": "…", "doc_id": "en/irregular-verbs.md", "line": 42, "rank": 7, "section": "…", "text": "…"}

`line` is 1-based in the source file when the document's text is found in it as it was curated (a
markdown page: the line counts its front matter), else in the curated text (docs.jsonl); it is the
line of the chunk that holds the answer's words and most words of the evidence lines of `[#n]`
(a table row, a sentence), else of the chunk's start. `rank` is
the chunk's rank in the retriever's ranking (None when it is not in it).

`snippet(text)` is a chunk's text on one line cut at a word boundary, as `search` and the page show it;
`Recorded` keeps the whole ranking a retriever returned.

What it leaves out: building the prompt (answer/prompt.py) and retrieving (query/sources.py).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..text.chunks import Chunk
from ..text.words import word_set

MARKER_RE = re.compile(r"\[#\d+\]")


def front_lines(source: Path | None, text: str) -> int:
    """The lines before the curated text in its source file (its front matter), 0 when not found there."""
    try:
        raw = source.read_text(encoding="utf-8") if source is not None else ""
    except (OSError, UnicodeDecodeError):
        return 0
    at = raw.find(text) if text else -1
    return raw.count("\n", 0, at) if at > 0 else 0


def evidence_start(chunk: Chunk, evidence: list[str], answer: str = "") -> int:
    """The offset in the chunk of the line that best holds the citation: every word of the answer
    first, then the most words of its evidence lines (the earliest of equals); 0 when none holds any."""
    wanted, said = word_set(" ".join(evidence)), word_set(MARKER_RE.sub(" ", answer))
    best, at, offset = (False, 0), 0, 0
    for line in chunk.text.split("\n"):
        have = word_set(line)
        score = (bool(said) and said <= have, len(wanted & have))
        if score > best:
            best, at = score, offset
        offset += len(line) + 1
    return at


def cite(n: int, chunk: Chunk, doc_text: str, front: int, evidence: list[str], ranks: dict[str, int],
         answer: str = "") -> dict:
    """What the answer lists of its citation `[#n]` of `chunk` (module docstring); `front`: the lines of
    the source file before the document's text (front_lines)."""
    at = chunk.offset + evidence_start(chunk, evidence, answer)
    line = doc_text.count("\n", 0, at) + 1 + front
    return {"n": n, "chunk_id": chunk.id, "doc_id": chunk.doc_id, "line": line, "rank": ranks.get(chunk.id),
            "section": chunk.section, "text": chunk.text}


def snippet(text: str, width: int = 160) -> str:
    """The text on one line, cut at the last word boundary within `width` characters (then "…")."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    cut = text[:width - 1]
    return (cut[:cut.rfind(" ")] if " " in cut else cut) + "…"

class Recorded:
    """A retriever that keeps its last ranking."""

    def __init__(self, retriever):
        self.retriever, self.ranked = retriever, []

    def search(self, query: str, k: int = 5):
        self.ranked = self.retriever.search(query, k=k)
        return self.ranked
