"""Questions synthesised from any corpus's own sentences and tables, answerable and not (SQuAD 2.0's way).

    questions = synthesize_generic(docs, n=1500, seed=0)
    -> [LearnerQuestion(query="When was the first Duke of Normandy?", answer="911", family="cloze-date"), ...]

Answerable ones:
- `cloze-<kind>`: a span of a sentence (spans.py: a name, date, number or noun phrase) taken out, and the
  rest asked with the question word of its kind — who / where for a name (where after in, at, from),
  when for a date, how many for a number, what for a phrase; about a third of the sentence's other words
  dropped (a question rarely repeats its sentence whole);
- `table`: "What is the <column> of <row key>?" (and rewordings; "What is the <row key>?" of a table of
  two columns) answered by that cell.

Unanswerable ones, written to look answerable:
- `swap`: a name, date or number of a cloze question replaced by another of the corpus's, from elsewhere;
- `negate`: the question negated ("was not", "did not");
- `term`: its rarest word replaced by a word of another document;
- `attribute`: a table's row asked for a column its table does not have.

What it leaves out: rewording by synonyms (the corpus's lexicon is the grammar KB's), and questions
needing two sentences.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from ..evidence import RULE_RE, cells
from ..select.candidates import plain, sentences
from ..select.spans import FUNCTION, spans_of
from .synthesized import LearnerQuestion

WH = {"date": "When", "number": "How many", "phrase": "What", "quote": "What"}
AUX_RE = re.compile(r"\b(is|was|are|were|did|does|do|has|had|can|will)\b")
UNANSWERABLE = 0.35


def table_rows(text: str) -> list[tuple[str, str, str, list[str]]]:
    """(row key, column header, cell, the table's headers) of every cell past the first of each table row."""
    out, header, lines = [], [], text.split("\n")
    for i, line in enumerate(lines):
        row = line.strip()
        if not row.startswith("|"):
            header = []
            continue
        if RULE_RE.match(row):
            continue
        if i + 1 < len(lines) and RULE_RE.match(lines[i + 1].strip()) and lines[i + 1].strip().startswith("|"):
            header = [plain(h) for h in cells(row)]
            continue
        values = [plain(v) for v in cells(row)]
        if header and len(values) == len(header):
            out += [(values[0], header[j], values[j], header) for j in range(1, len(values)) if values[j] and values[0]]
    return out


def question_id(query: str, answer: str | None) -> str:
    return "sq-" + hashlib.sha256(f"{query}\x1f{answer}".encode("utf-8")).hexdigest()[:12]


class Material:
    """A corpus's sentences (each with its spans), table cells and names/numbers/dates by kind."""

    def __init__(self, docs: list[dict]):
        self.sentences: list[tuple[str, str, list[tuple[str, str]]]] = []  # (doc_id, sentence, spans)
        self.cells: list[tuple[str, str, str, str, list[str]]] = []       # (doc_id, key, column, value, columns)
        self.by_kind: dict[str, list[str]] = {}
        self.words: list[str] = []
        for d in docs:
            for line in d["text"].split("\n"):
                body = line.strip()
                if not body or body.startswith("#") or body.startswith("|"):
                    continue
                for s in sentences(re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", body)):
                    s = plain(s)
                    spans = [(k, t) for k, t in spans_of(s) if len(t.split()) <= 5]
                    if len(s.split()) >= 6 and spans:
                        self.sentences.append((d["doc_id"], s, spans))
                    for k, t in spans:
                        if k in ("name", "date", "number"):
                            self.by_kind.setdefault(k, []).append(t)
                    self.words += [w for w in re.findall(r"[^\W\d_]{5,}", s) if w.lower() not in FUNCTION]
            for key, column, value, columns in table_rows(d["text"]):
                self.cells.append((d["doc_id"], key, column, value, columns))


def cloze(sentence: str, kind: str, span: str, rng: np.random.Generator) -> str:
    at = sentence.find(span)
    before, after = sentence[:at].strip(), sentence[at + len(span):].strip(" .")
    if kind == "name":
        wh = "Where" if re.search(r"\b(in|at|from|to|near)$", before) else ("Who" if not before else "What")
    else:
        wh = WH.get(kind, "What")
    rest = f"{before} {after}".strip() if before else after
    words = rest.split()
    if len(words) > 5:  # some words dropped: a question rarely repeats its sentence
        keep = rng.random(len(words)) < 0.65
        words = [w for w, k in zip(words, keep) if k]
    return f"{wh} {' '.join(words)}?".replace(" ,", ",")


def answerable(m: Material, rng: np.random.Generator) -> tuple[str, str, str, str]:
    """(query, answer, family, source)."""
    if m.cells and (not m.sentences or rng.random() < 0.2):
        doc_id, key, column, value, columns = m.cells[int(rng.integers(len(m.cells)))]
        forms = [f"What is the {column} of {key}?", f"{key}: {column}?", f"What {column.lower()} for {key}?"]
        if len(columns) == 2:  # a table of properties and values: the row names what is asked
            forms += [f"What is the {key}?", f"How much is the {key.lower()}?"]
        return forms[int(rng.integers(len(forms)))], value, "table", doc_id
    doc_id, s, spans = m.sentences[int(rng.integers(len(m.sentences)))]
    kind, span = spans[int(rng.integers(len(spans)))]
    return cloze(s, kind, span, rng), span, f"cloze-{kind}", doc_id


def unanswerable(m: Material, rng: np.random.Generator) -> tuple[str, None, str, str] | None:
    """A question the corpus does not answer, made from one it does (module docstring)."""
    how = ("swap", "negate", "term", "attribute")[int(rng.integers(4))]
    if how == "attribute" and m.cells:
        doc_id, key, _, _, columns = m.cells[int(rng.integers(len(m.cells)))]
        others = [c for _, _, c, _, cols in m.cells if c not in columns]
        if others:
            return f"What is the {others[int(rng.integers(len(others)))]} of {key}?", None, "attribute", doc_id
        return None
    if not m.sentences:
        return None
    doc_id, s, spans = m.sentences[int(rng.integers(len(m.sentences)))]
    kind, span = spans[int(rng.integers(len(spans)))]
    query = cloze(s, kind, span, rng)
    if how == "swap":
        inside = [(k, t) for k, t in spans if t != span and t in query and k in m.by_kind]
        if not inside:
            return None
        k, t = inside[int(rng.integers(len(inside)))]
        pool = [x for x in m.by_kind[k] if x not in s]
        return (query.replace(t, pool[int(rng.integers(len(pool)))], 1), None, "swap", doc_id) if pool else None
    if how == "negate":
        negated = AUX_RE.sub(lambda a: f"{a.group()} not", query, count=1)
        return (negated, None, "negate", doc_id) if negated != query else None
    words = [w for w in re.findall(r"[^\W\d_]{5,}", query) if w.lower() not in FUNCTION]
    if not words or not m.words:
        return None
    rare = max(words, key=len)
    return re.sub(rf"\b{re.escape(rare)}\b", m.words[int(rng.integers(len(m.words)))], query, count=1), None, \
        "term", doc_id


def synthesize_generic(docs: list[dict], n: int, seed: int = 0) -> list[LearnerQuestion]:
    """n questions from the documents, about UNANSWERABLE of them unanswerable; seeded, each query once."""
    rng = np.random.default_rng([seed, 33])
    m = Material(docs)
    out, seen = [], set()
    if not m.sentences and not m.cells:
        return out
    for _ in range(4 * n):
        if len(out) == n:
            break
        made = unanswerable(m, rng) if rng.random() < UNANSWERABLE else answerable(m, rng)
        if made is None or made[0] in seen:
            continue
        query, answer, family, source = made
        seen.add(query)
        out.append(LearnerQuestion(question_id(query, answer), query, answer, family, "", source))
    return out
