"""Reading facts: what the corpus's own shape says a question about it should answer.

No labels are needed because the documents' shape gives the facts:
- a table row with a header is one fact per non-key column: (key = first cell, column) -> cell,
  shown as the prompt shows the cell the answer selector picks ("Irregular verbs: write · Past
  participle: written", candidates.cell_line);
- a prose line (list item or sentence) gives a fact when its shape says what is asked:
  "make → making" (arrow: what does make become?), "*Me gustaría* (I would like)" in an
  English document (gloss: what does it mean?), "on time = at the planned time" at the start
  of a list item (definition). Only clean ones are kept: short key, answer of at most four
  words, occurring verbatim in the line.

What it leaves out: questions and contexts (tasks.py turns facts into tasks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterator

from ...text.chunks import Chunk
from ...text.structure import DocumentStructure
from ...text.words import WORD_RE, prefix_stem
from ..evidence import MARKUP_RE, QUESTION_WORDS, Line, cells, chunk_lines
from ..select.candidates import cell_line, plain

MAX_ANSWER_WORDS = 4   # sentence facts: a span a small reader can copy
MAX_ROW_WORDS = 6      # row facts: longer cells are example sentences, not values to look up
MAX_KEY_WORDS = 6      # a longer key makes a question nobody asks


@dataclass(frozen=True)
class Fact:
    kind: str           # "row", "arrow", "gloss" or "definition"
    doc_id: str
    lang: str
    key: str            # what the question is about: a row's first cell, an arrow's left side, a glossed term
    relation: str       # a row's column name; "→" for arrows; "meaning" for glosses and definitions
    value: str          # the answer, verbatim in `line`
    line: str           # the evidence line as a reader sees it
    span: tuple[int, int]               # where `value` sits in `line` (what a swap replaces)
    group: str          # the table (or document, for prose) whose other lines are the hard distractors
    heading: str        # the innermost heading in force (arrow questions name it)
    alternatives: tuple[str, ...] = ()  # other values of the same column / kind, for swaps
    origin: str = ""    # where in the document it was made from, for reports
    question: str = ""  # the question, when the fact comes with it (span_facts.py); else the asker phrases it

    @property
    def signature(self) -> tuple[str, str]:
        """The question the fact answers: two lines with one signature both answer it."""
        return self.key.casefold(), self.relation.casefold()



# ---------------------------------------------------------------- text helpers

def holds(text: str, phrase: str) -> bool:
    """`phrase` in `text` as whole words, ignoring case ("bet" is not in "alphabet")."""
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text, re.IGNORECASE) is not None


def contains(text: str, value: str) -> bool:
    """`value` anywhere in `text`, ignoring case: the strict test for "no line holds the answer"."""
    return value.casefold() in text.casefold()


def n_words(text: str) -> int:
    return len(text.split())


def content_stems(text: str) -> list[str]:
    """The words of a key or column that say what it is about (stems, as `evidence` scores lines)."""
    return sorted({prefix_stem(w) for w in WORD_RE.findall(text.lower()) if w not in QUESTION_WORDS and len(w) > 1})


def doc_sections(doc: dict) -> list[tuple[str, list[Line]]]:
    """(heading, lines) of each heading's section: `chunk_lines` over the section, so every line is
    what a reader sees at question time and knows the heading it stands under."""
    text, title = doc["text"], doc.get("title", "")
    structure = DocumentStructure(text)
    cuts = sorted({0, *(start for start, _, _ in structure.heads), len(text)})
    out = []
    for lo, hi in zip(cuts, cuts[1:]):
        chunk = Chunk(id="", text=text[lo:hi], doc_id=doc["doc_id"], offset=lo, metadata={"title": title})
        out.append((heading_at(structure, title, lo), chunk_lines(chunk, 0)))
    return out


def doc_lines(doc: dict) -> list[str]:
    """Every line of a document as a reader sees it, in order."""
    return [ln.text for _, lines in doc_sections(doc) for ln in lines]


def heading_at(structure: DocumentStructure, title: str, pos: int) -> str:
    """The heading a chunk's line carries: the innermost one in force, else the title (as `chunk_lines`)."""
    path = structure.heading_path(pos)
    return path[-1] if path else title


# ---------------------------------------------------------------- row facts

def table_rows(doc: dict) -> Iterator[tuple[int, int, str, list[str], list[str]]]:
    """(table index, row index, heading, header cells, row cells) of every table row with a full header."""
    structure = DocumentStructure(doc["text"])
    for t, table in enumerate(structure.tables):
        header = cells(table.header)
        heading = heading_at(structure, doc.get("title", ""), table.rows_start)
        for r, raw in enumerate(doc["text"][table.rows_start:table.end].split("\n")):
            row = cells(raw)
            if raw.strip() and len(row) == len(header):
                yield t, r, heading, header, row


def row_facts(docs: list[dict]) -> list[Fact]:
    """One fact per (table row, non-key column) with a named column, a key and a short value, in
    document order; `alternatives` are the column's other values in the table (for swaps)."""
    out: list[Fact] = []
    for doc in docs:
        rows = list(table_rows(doc))
        columns: dict[tuple[int, int], list[str]] = {}
        for t, _, _, _, row in rows:
            for j, v in enumerate(row):
                if v and v not in columns.setdefault((t, j), []):
                    columns[(t, j)].append(v)
        for t, r, heading, header, row in rows:
            key = plain(row[0])
            if not key or n_words(key) > MAX_KEY_WORDS:
                continue
            for j in range(1, len(row)):
                column, value = header[j], plain(row[j])
                if not column or not value or n_words(value) > MAX_ROW_WORDS:
                    continue
                if header.count(column) > 1:
                    continue  # "Con tilde | Función | Sin tilde | Función": which Función is asked?
                line = cell_line(heading, key, column, value)  # as the prompt shows a selected cell
                span = (len(line) - len(value), len(line))
                out.append(Fact("row", doc["doc_id"], doc.get("lang", ""), key, column, value, line, span,
                                f"{doc['doc_id']}#table{t}", heading,
                                tuple(plain(v) for v in columns[(t, j)] if plain(v) != value),
                                f"table {t + 1} row {r + 1} ({key}) · {column}"))
    return out


# ---------------------------------------------------------------- sentence facts

TERM = r"-?[^\W\d_][\w'’-]*"  # a word, or a suffix such as -car
# "make → making": one word (or "a / b") on the left, right after the start or a separator, and
# one or two words on the right, ending at a separator; chains ("a → b → c") are skipped below.
ARROW_RE = re.compile(rf"(?:^|(?<=[(,;:] ))({TERM}(?: / {TERM})?) → ({TERM}(?: {TERM})?(?: / {TERM})?)"
                      rf"(?=\s*(?:[,;:.)(!?]|$))")
# "*Me gustaría* (I would like)": an italic phrase and its parenthesised translation (raw markdown).
GLOSS_RE = re.compile(r"\*([^*\n]{1,60})\* \(([^()*\n=:]{1,60})\)")
GLOSS_NOT = re.compile(r"^(?:not|no|nunca|see|or|o|but|pero|de|a woman|UK|US|=)\b", re.IGNORECASE)
# "on time = at the planned time, punctual": a term at the start of a list item, its meaning up to a separator.
DEFINITION_RE = re.compile(rf"^({TERM}(?:(?: / | ){TERM}){{0,2}}) = ([^\W\d_][^;,.:()\"“]*)")


def arrow_pairs(line: str) -> list[tuple[str, str, int, int]]:
    """(left, right, span of right) of the line's two-term arrows, not part of a chain."""
    out = []
    for m in ARROW_RE.finditer(line):
        before, after = line[: m.start()].rstrip(), line[m.end():].lstrip()
        if before.endswith(("→", "+")) or after.startswith("→"):
            continue  # "tall → taller → tallest" or "da + me + lo → dámelo": one pair does not say it
        left, right = m.group(1), m.group(2).strip()
        if sum(c.isalpha() for c in left) >= 2 and left.casefold() != right.casefold():
            out.append((left, right, m.start(2), m.start(2) + len(right)))
    sources = [p[0].casefold() for p in out]
    return [p for p in out if sources.count(p[0].casefold()) == 1]  # a key with two targets is ambiguous


def gloss_pairs(doc: dict) -> list[tuple[str, str]]:
    """(term, translation) of an English document's "*term* (translation)"; short translations only."""
    if doc.get("lang") != "en":
        return []  # in the Spanish documents the brackets are annotations ("(esdrújula)"), not meanings
    out = []
    for m in GLOSS_RE.finditer(doc["text"]):
        term = MARKUP_RE.sub("", m.group(1)).strip()
        gloss = m.group(2).strip().rstrip(".!?,; ").strip()
        if not term or not gloss or GLOSS_NOT.match(gloss) or '"' in gloss or n_words(term) > MAX_KEY_WORDS:
            continue  # "(not *ha escrita*)", "(see ...)": a correction or a pointer, not a meaning
        if not re.search(r"[=+→]", term):  # "*dime + lo = dímelo*" is a derivation, not a term
            out.append((term, gloss))
    return out


def definition_pair(line: str) -> tuple[str, str, int, int] | None:
    m = DEFINITION_RE.match(line)
    if not m:
        return None
    value = m.group(2).strip()
    return m.group(1), value, m.start(2), m.start(2) + len(value)


def prose_facts(doc: dict) -> list[Fact]:
    """The arrow, gloss and definition facts of one document's items and sentences, in line order."""
    prose = [(heading, ln) for heading, lines in doc_sections(doc) for ln in lines if ln.kind != "row"]
    found = []
    glosses = gloss_pairs(doc)
    for i, (heading, ln) in enumerate(prose):
        line = ln.text
        pairs = [("arrow", "→", *p) for p in arrow_pairs(line)]
        definition = definition_pair(line) if ln.kind == "item" else None
        if definition:
            pairs.append(("definition", "meaning", *definition))
        for term, gloss in glosses:
            at = line.find(f"{term} ({gloss}")
            if at >= 0:
                start = at + len(term) + 2
                pairs.append(("gloss", "meaning", term, gloss, start, start + len(gloss)))
        for kind, relation, key, value, lo, hi in pairs:
            if n_words(value) <= MAX_ANSWER_WORDS and n_words(key) <= MAX_KEY_WORDS and line[lo:hi] == value:
                found.append(Fact(kind, doc["doc_id"], doc.get("lang", ""), key, relation, value, line, (lo, hi),
                                  doc["doc_id"], heading, (), f"{kind} in line {i + 1}: {key} → {value}"))
    return found


def with_alternatives(facts: list[Fact]) -> list[Fact]:
    """Each sentence fact with the other values of its kind in its document (a swapped plural is
    another plural), or, when the document has fewer than three, in documents of its language."""
    out = []
    for f in facts:
        def others(same) -> list[str]:
            return list(dict.fromkeys(g.value for g in facts
                                      if g.kind == f.kind and same(g) and g.value.casefold() != f.value.casefold()))
        alts = others(lambda g: g.doc_id == f.doc_id)
        if len(alts) < 3:
            alts = list(dict.fromkeys(alts + others(lambda g: g.lang == f.lang)))
        out.append(replace(f, alternatives=tuple(alts)))
    return out


def sentence_facts(docs: list[dict]) -> list[Fact]:
    """Facts from prose lines whose shape gives a question and a short answer (module docstring)."""
    return with_alternatives([f for doc in docs for f in prose_facts(doc)])


# ---------------------------------------------------------------- questions
