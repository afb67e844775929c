"""Answer candidates: every table cell and every piece of prose of the retrieved chunks that could be an answer.

A chunk is read line by line, as the prompt stage reads it (evidence.py), and every line gives candidates:

- a table row gives one `cell` per cell, with its row key (the first cell), its column header and the
  heading path above the table:  | venir | vine | viniste | ... |  under  | Infinitivo | yo | tú | ... |
  -> cell "vine" (key "venir", column "yo", caption "Pretérito indefinido: irregulares › Verbos ...");
  a cell listing forms gives each too ("farther / further"), a paradigm of six with its person;
- prose gives the whole `item` or `sentence`, its `clause`s (between commas, semicolons, colons, dashes
  and brackets), the targets of its arrows (`arrow`: "stop → stopped" -> "stopped", key "stop"), the two
  sides of a gloss or a definition (`gloss`: "*ayer* (yesterday)", "on time = punctual"), and what it
  quotes or emphasises (`quote`: *Estoy aburrido*).

    candidates_of(chunk, n=3, lang="es") -> [Candidate(kind="cell", text="vine", key="venir", ...), ...]

What it leaves out: which candidate answers (features.py and scorer.py), and questions needing two
lines (a comparison of two rows).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from ...text.chunks import Chunk
from ...text.structure import LIST_ITEM_RE, PATH_SEP, SENTENCE_RE, reading_lines
from ...text.words import WORD_RE
from ..evidence import MARKUP_RE, RULE_RE, cells, format_row
from .spans import spans_of

# Started inside a run of spaces, the leading \s* rescanned the run at each of its spaces (quadratic in its
# length); a match starts there only at a separator right after the last match, which the lookahead keeps.
CLAUSE_RE = re.compile(r"(?:(?<!\s)|(?=[,;:()]))\s*(?:[,;:]|\s[–—-]\s|[()])\s*")
QUOTED_RE = re.compile(r"\*\*([^*\n]{1,80})\*\*|\*([^*\n]{1,80})\*|[\"“«]([^\"”»\n]{1,80})[\"”»]")
GLOSS_RE = re.compile(r"\*([^*\n]{1,60})\*\s*\(([^()*\n]{1,60})\)")
DEFINITION_RE = re.compile(r"^([^=:;.\n]{1,40}?)\s+=\s+([^=;.\n]{1,80})")
ARROW_SPLIT_RE = re.compile(r"[,;:()]|\s[–—-]\s")
SPAN_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“«(¿¡ÁÉÍÓÚÑ])")
MAX_WORDS = 30  # a longer stretch is a paragraph, not an answer


@dataclass(frozen=True, slots=True)
class Candidate:
    """A cell, gloss or clause of a chunk that could be the answer."""
    chunk_id: str
    n: int            # rank of its chunk in the run (1-based)
    kind: str         # "cell" | "arrow" | "gloss" | "quote" | "clause" | "item" | "sentence"
    text: str         # the answer it would give
    line: str         # the evidence line it stands in, as a reader sees it
    key: str = ""     # its row's first cell, the arrow's left side, the glossed term
    column: str = ""  # its column's header
    caption: str = ""  # title › heading path above it
    lang: str = ""    # its document's language

    def to_record(self) -> dict:
        return {"n": self.n, "chunk_id": self.chunk_id, "kind": self.kind, "text": self.text, "key": self.key,
                "column": self.column, "caption": self.caption, "line": self.line}


def cell_line(heading: str, key: str, column: str, value: str) -> str:
    """A table cell as one evidence line, named by its row and column: "Pretérito indefinido: venir · yo: vine"."""
    body = f"{key} · {column}: {value}"
    return f"{heading}: {body}" if heading else body


def shown_line(c: Candidate) -> str:
    """The evidence line that states a candidate: a cell by `cell_line`, prose as its sentence or item."""
    if c.kind != "cell" or not c.column or c.text == c.key:
        return c.line
    return cell_line(c.caption.split(PATH_SEP)[-1] if c.caption else "", c.key, c.column, c.text)


def plain(text: str) -> str:
    return " ".join(MARKUP_RE.sub("", text).split()).strip(" .;,")


def arrow_pairs(text: str) -> list[tuple[str, str]]:
    """(left, right) of every arrow of a line, chains included: "tall → taller → tallest" gives
    (tall, taller), (tall, tallest) and (taller, tallest)."""
    out = []
    for segment in ARROW_SPLIT_RE.split(text):
        parts = [" ".join(p.split()[:3]) if i else " ".join(p.split()[-3:]) for i, p in enumerate(segment.split("→"))]
        parts = [plain(p) for p in parts]
        if len(parts) < 2 or not all(parts):
            continue
        for i in range(1, len(parts)):
            out.append((parts[0], parts[i]))
            if i > 1:
                out.append((parts[i - 1], parts[i]))
    return out


def outside_brackets(text: str, separators: str) -> list[str]:
    """`text` split at each of `separators` that no bracket encloses: "ser / ir (to be / to go)" ->
    ["ser ", " ir (to be / to go)"], never a part that opens a bracket and another that closes it."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch in "([{") - (ch in ")]}" and depth > 0)
        if ch in separators and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


def cell_parts(value: str, slots: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(part, slot) of a cell listing several forms: "got (UK) / gotten (US)" -> (got, UK), (gotten, US);
    a cell of exactly len(`slots`) parts names them in order (a domain's slots: the grammar's six persons
    name "quepa, quepas, quepa, quepamos, quepáis, quepan")."""
    parts = [p.strip() for p in outside_brackets(plain(value), "/,") if p.strip()]
    if len(parts) < 2:
        return []
    slots = slots if len(parts) == len(slots) else [""] * len(parts)
    out = []
    for part, slot in zip(parts, slots):
        note = re.findall(r"\(([^)]*)\)", part)
        bare = plain(re.sub(r"\([^)]*\)", " ", part))
        if bare and WORD_RE.search(bare):
            out.append((bare, slot or " ".join(note)))
    return out


def prose_candidates(raw: str, kind: str) -> list[tuple[str, str, str]]:
    """(kind, text, key) of one prose line (item or sentence text with its markup)."""
    out: list[tuple[str, str, str]] = []
    whole = plain(raw)
    if not WORD_RE.search(whole):
        return out
    if len(whole.split()) <= MAX_WORDS:
        out.append((kind, whole, ""))
    clauses = [plain(c) for c in CLAUSE_RE.split(MARKUP_RE.sub("", raw))]
    out += [("clause", c, "") for c in clauses if c and c != whole and WORD_RE.search(c) and len(c.split()) <= MAX_WORDS]
    out += [("arrow", right, left) for left, right in arrow_pairs(raw)]
    for m in GLOSS_RE.finditer(raw):
        term, gloss = plain(m.group(1)), plain(m.group(2))
        out += [("gloss", gloss, term), ("gloss", term, gloss)]
    if (m := DEFINITION_RE.match(whole)) is not None:
        out += [("gloss", plain(m.group(2)), plain(m.group(1))), ("gloss", plain(m.group(1)), plain(m.group(2)))]
    for m in QUOTED_RE.finditer(raw):
        q = plain(next(g for g in m.groups() if g))
        if q and WORD_RE.search(q):
            out.append(("quote", q, ""))
    return out


def sentences(body: str) -> list[str]:
    """A line's sentences, cut after . ! ? before a capital, a digit or a quote ("£1.3 billion" stays one)."""
    return [s for s in SPAN_SENTENCE_RE.split(body) if s.strip()]


def candidates_of(chunk: Chunk, n: int, lang: str = "", spans: bool = False, slots: Sequence[str] = ()
                  ) -> list[Candidate]:
    """Every candidate of one chunk ranked n-th, in reading order, each (kind, text, key, line) once; with
    `spans`, also the short spans of its prose (spans.py: names, dates, numbers, quotes, noun phrases);
    `slots`: the names of a list cell's parts in order (cell_parts)."""
    first = chunk.context.split("\n")[0] if chunk.context and not chunk.context.startswith("|") else chunk.title
    path = first.split(PATH_SEP) if first else []
    header = next((cells(ln) for ln in chunk.context.split("\n") if ln.lstrip().startswith("|")), [])
    raw = reading_lines(chunk.text)
    out: list[Candidate] = []
    seen: set[tuple[str, str, str, str]] = set()

    def add(kind: str, text: str, line: str, key: str = "", column: str = "") -> None:
        if text and (kind, text, key, line) not in seen:
            seen.add((kind, text, key, line))
            out.append(Candidate(chunk.id, n, kind, text, line, key, column, PATH_SEP.join(path), lang))

    for i, line in enumerate(raw):
        stripped = line.strip()
        if not stripped or RULE_RE.match(stripped) or not WORD_RE.search(stripped):
            continue
        if stripped.startswith("#"):
            level = len(stripped) - len(stripped.lstrip("#"))
            path = path[: max(level - 1, 1)] + [stripped.lstrip("#").strip()]
            header = []
            continue
        if stripped.endswith("|") and not stripped.startswith("|"):
            continue  # the tail of a row the chunk's start cut
        if stripped.startswith("|"):
            if i + 1 < len(raw) and RULE_RE.match(raw[i + 1]) and raw[i + 1].strip().startswith("|"):
                header = cells(stripped)
                continue
            row = cells(stripped)
            named = len(header) == len(row)
            text = format_row(path[-1] if path else "", header, row)
            for j, value in enumerate(row):
                column = header[j] if named else ""
                add("cell", plain(value), text, plain(row[0]), column)
                for part, slot in cell_parts(value, slots):
                    add("cell", part, text, plain(row[0]), f"{column} ({slot})" if slot else column)
            continue
        header = []
        kind = "item" if LIST_ITEM_RE.match(line) else "sentence"
        body = LIST_ITEM_RE.sub("", line).strip()
        if kind == "item":
            pieces = [body]
        else:
            pieces = sentences(body) if spans else [m.group().strip() for m in SENTENCE_RE.finditer(body)]
        for piece in pieces:
            shown = plain(piece)
            for k, text, key in prose_candidates(piece, kind):
                add(k, text, shown, key)
            for k, text in (spans_of(shown) if spans else []):
                add(k, text, shown)
    return out
