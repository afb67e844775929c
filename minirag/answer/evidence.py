"""Evidence selection: the lines of the retrieved chunks that matter, small enough for a reader's window.

A reader with a 192-token window cannot read three 150-token chunks. The prompt stage cuts
each chunk into lines — a table row, a list item, a sentence — and shows a row with its
columns named, so the row stands on its own:

    | Base form | Past simple | Past participle |        (header, maybe in the chunk's context)
    | write | wrote | written |                ->  "Irregular verbs: Base form: write; Past simple: wrote;
                                                     Past participle: written"

Lines are scored by the question's content words they hold (each weighted by how rare it is
among the candidate lines, so "write" outweighs "past"), the best kept in score order until
`max_lines` or `max_chars`, each with the `[#n]` of its chunk. What was cut is counted, and
the prompt artifact records it.

What it leaves out: tokens (the budget is in characters; a reader with a tokenizer checks
its own window) and which words are question filler (`content_words`, shared with the readers).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..text.chunks import Chunk
from ..text.structure import PATH_SEP, SENTENCE_RE, reading_lines
from ..text.words import WORD_RE, prefix_stem, prefix_stems

RULE_RE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")
MARKUP_RE = re.compile(r"[*_`]+")

# Function words of questions in English and Spanish: they say how something is asked, not
# what about, and would let any line "match" a question.
QUESTION_WORDS = frozenset("""
a an the of to in on at for with by from and or is are was were be been do does did how what
whats which when where who why can could should would will i you it its this that these those
my your me use used using say said tell there their them they we our as if not no s
el la los las un una unos unas de del al a en con por para y o u es son se que qué cómo como
cuál cuáles cuándo dónde quién mi tu su sus lo le les me te nos este esta estos estas ese esa
hay dice digo usa usar uso
english inglés ingles spanish español espanol
""".split())  # a language's name says which language to answer in, rarely what the question is about


def content_words(text: str) -> list[str]:
    """The question's words that say what it is about, stemmed, in order, once each."""
    seen: list[str] = []
    for w in WORD_RE.findall(text.lower()):
        if w not in QUESTION_WORDS and prefix_stem(w) not in seen:
            seen.append(prefix_stem(w))
    return seen


def cells(row: str) -> list[str]:
    return [MARKUP_RE.sub("", c).strip() for c in row.strip().strip("|").split("|")]


def format_row(heading: str, header: list[str], row: list[str]) -> str:
    """A table row as a line that names its columns: "heading: col1: v1; col2: v2"."""
    if header and len(header) == len(row):
        body = "; ".join(f"{h}: {v}" if h else v for h, v in zip(header, row) if v)
    else:
        body = "; ".join(v for v in row if v)
    return f"{heading}: {body}" if heading else body


@dataclass(frozen=True)
class Line:
    """One evidence line of a prompt and the chunk it comes from."""
    n: int          # the [#n] of the chunk it comes from (1-based, rank order)
    text: str       # as a reader sees it
    kind: str       # "row", "item" or "sentence"
    cells: tuple[tuple[str, str], ...] = ()  # a row's (column, value) pairs, for readers that pick a cell


def chunk_lines(chunk: Chunk, n: int) -> list[Line]:
    """Every row, item and sentence of a chunk, in order; rows carry their header and heading."""
    path = chunk.context.split("\n")[0] if chunk.context and not chunk.context.startswith("|") else chunk.title
    heading = path.split(PATH_SEP)[-1] if path else ""
    header = next((cells(ln) for ln in chunk.context.split("\n") if ln.lstrip().startswith("|")), [])
    raw = reading_lines(chunk.text)
    out: list[Line] = []
    for i, line in enumerate(raw):
        stripped = line.strip()
        if not stripped or RULE_RE.match(stripped) or not WORD_RE.search(stripped):
            continue
        if stripped.startswith("#"):
            heading, header = stripped.lstrip("#").strip(), []
            continue
        if stripped.endswith("|") and not stripped.startswith("|"):
            continue  # the tail of a row the chunk's start cut: no line of its own
        if stripped.startswith("|"):
            if i + 1 < len(raw) and RULE_RE.match(raw[i + 1]) and raw[i + 1].strip().startswith("|"):
                header = cells(stripped)  # the row above |---| names the columns; it is not evidence
                continue
            row = cells(stripped)
            pairs = tuple(zip(header, row)) if len(header) == len(row) else ()
            out.append(Line(n, format_row(heading, header, row), "row", pairs))
            continue
        header = []
        kind = "item" if re.match(r"^\s*(?:[-*+]|\d+[.)])\s+", line) else "sentence"
        text = MARKUP_RE.sub("", re.sub(r"^\s*(?:[-*+>]|\d+[.)])\s+", "", line)).strip()
        pieces = [text] if kind == "item" else [m.group().strip() for m in SENTENCE_RE.finditer(text)]
        out += [Line(n, p, kind) for p in pieces if WORD_RE.search(p)]
    return out


@dataclass(frozen=True)
class Selection:
    """The evidence lines kept for a prompt, and how many there were to choose from."""
    lines: list[Line]    # kept, best first
    total: int           # candidate lines in the chunks
    chars: int           # characters of the kept lines

    def cut(self) -> dict:
        """What the prompt artifact records about the cut."""
        return {"lines_kept": len(self.lines), "lines_total": self.total, "chars_kept": self.chars}


def idf_weights(query_words: list[str], bags: list[set[str]]) -> dict[str, float]:
    """log((L + 1) / (df + 0.5)) of each question word, df its count among the L bags of words."""
    return {w: math.log((len(bags) + 1) / (sum(w in b for b in bags) + 0.5)) for w in query_words}


def line_scores(query: str, texts: list[str]) -> list[float]:
    """Σ over the question's content words in each line of their idf_weights among the lines."""
    q = content_words(query)
    bags = [prefix_stems(t) for t in texts]
    w = idf_weights(q, bags)
    return [sum(w[x] for x in q if x in b) for b in bags]


def select_evidence(query: str, chunks: list[Chunk], max_lines: int = 4, max_chars: int = 480) -> Selection:
    """The best-scoring lines (score > 0) of the chunks, best first (ties: rank, then position),
    while they fit `max_lines` and `max_chars`; a line longer than `max_chars` alone is cut."""
    lines = [ln for n, c in enumerate(chunks, start=1) for ln in chunk_lines(c, n)]
    scores = line_scores(query, [ln.text for ln in lines])
    order = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: -scores[i])
    kept, used = [], 0
    for i in order:
        text = lines[i].text if len(lines[i].text) <= max_chars else lines[i].text[: max_chars - 1] + "…"
        if len(kept) == max_lines or used + len(text) > max_chars:
            break
        kept.append(Line(lines[i].n, text, lines[i].kind, lines[i].cells))
        used += len(text)
    return Selection(kept, len(lines), used)
