"""Questions synthesised from any corpus's own sentences and tables, answerable and not (SQuAD 2.0's way).

    questions = synthesize_generic(docs, n=1500, seed=0)
    -> [LearnerQuestion(query="When was the first Duke of Normandy?", answer="911", family="cloze-date"), ...]

Answerable ones:
- `cloze-<kind>`: a span of a sentence (spans.py: a name, date, number or noun phrase) taken out, and the
  rest asked with the question word of its kind — who / where for a name (where after in, at, from),
  when for a date, how many for a number, what for a phrase; about a third of the sentence's other words
  dropped (a question rarely repeats its sentence whole);
- `table`: "What is the <column> of <row key>?" (and rewordings; "What is the <row key>?" of a table of
  two columns) answered by that cell;
- `ask-<attribute>`: a cell or a sentence's quantity asked the way users ask (select/attributes.py): a
  *Weight* row or a "kg" value as "How heavy is it?", a *Meaning* column as "What does <row key> mean?",
  a "25 minutes" of a sentence as "How long ...?";
- `step`: a list item that says what to do, asked as "How do I ...?"; `reason`: a sentence that gives a
  reason (because, so that, otherwise), asked as "Why ...?" and answered by the whole sentence.

Unanswerable ones, written to look answerable (the first three, SQuAD 2.0's minimal edits, only with
`minimal_edits`):
- `swap`: a name, date or number of a cloze question replaced by another of the corpus's, from elsewhere;
- `negate`: the question negated ("was not", "did not");
- `term`: its rarest word replaced by a word of another document;
- `attribute`: a table's row asked for a column its table does not have;
- `absent`: an attribute the corpus never states asked the users' way ("How heavy is it?" of a corpus
  with no weight), and a row key with its number changed ("What does E9 mean?" of a table of E1-E7).

What it leaves out: rewording by synonyms (the corpus's lexicon is the grammar KB's), and questions
needing two sentences.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from ...text.structure import reading_lines
from ..evidence import RULE_RE, cells
from ..select.attributes import ASK, named, prose_wh, with_unit
from ..select.candidates import plain, sentences
from ..select.spans import FUNCTION, spans_of
from .synthesized import LearnerQuestion

WH = {"date": "When", "number": "How many", "phrase": "What", "quote": "What"}
AUX_RE = re.compile(r"\b(is|was|are|were|did|does|do|has|had|can|will)\b")
UNANSWERABLE = 0.35
# SQuAD 2.0's kind of unanswerable question: an answerable one minimally edited. On the development suite's
# dev questions they helped neither with dev questions (2-fold CV: F1 0.412 with them, 0.421 without) nor
# without (0.419, 0.407), both within noise; users' unanswerable questions ask for what the pages never state,
# not a twisted version of what they do, so only a SQuAD source gets them unasked (`minimal_edits`)
MINIMAL_EDITS = ("swap", "negate", "term")
# answerable questions asked the users' way: the cumulative shares of asked cells, asked quantities, steps, reasons
MIX = (0.15, 0.3, 0.38, 0.43)
LIST_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
STEP_RE = re.compile(r"^\s*\d+[.)]\s+(?=[^\W\d_])")  # a numbered item that starts with a word: a step
REASON_RE = re.compile(r"\b(because|so that|otherwise|since|to prevent|to avoid|porque|para que)\b", re.I)


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
        self.steps: list[tuple[str, str]] = []    # (doc_id, a list item that says what to do)
        self.reasons: list[tuple[str, str, str]] = []  # (doc_id, sentence, what it gives the reason for)
        counts: dict[str, int] = {}
        for d in docs:
            for line in reading_lines(d["text"]):
                body = line.strip()
                if not body or body.startswith("#") or body.startswith("|"):
                    continue
                if STEP_RE.match(body) and body.endswith(".") and 3 <= len((item := plain(STEP_RE.sub("", body))).split()) <= 25:
                    self.steps.append((d["doc_id"], item))
                for s in sentences(LIST_RE.sub("", body)):
                    s = plain(s)
                    if (why := REASON_RE.search(s)) and len(s[:why.start()].split()) >= 3:
                        self.reasons.append((d["doc_id"], s, s[:why.start()].strip(" ,;:")))
                    spans = [(k, t) for k, t in spans_of(s) if len(t.split()) <= 5]
                    if len(s.split()) >= 6 and spans:
                        self.sentences.append((d["doc_id"], s, spans))
                    for k, t in spans:
                        if k in ("name", "date", "number"):
                            self.by_kind.setdefault(k, []).append(t)
                    self.words += [w for w in re.findall(r"[^\W\d_]{5,}", s) if w.lower() not in FUNCTION]
            for key, column, value, columns in table_rows(d["text"]):
                self.cells.append((d["doc_id"], key, column, value, columns))
            for w in re.findall(r"[^\W\d_]{4,}", d["text"].lower()):
                counts[w] = counts.get(w, 0) + 1
        # what a user asks about when they name no thing: "it", or the corpus's commonest noun-like word
        common = sorted((w for w in counts if w not in FUNCTION and not named(w)), key=lambda w: (-counts[w], w))
        self.subjects = ["it"] + [f"the {w}" for w in common[:1]]
        self.stated = set().union(*(named(f"{k} {c}") | with_unit(v) for _, k, c, v, _ in self.cells),
                                  *(named(s) | with_unit(s) for _, s, _ in self.sentences))


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


def pick(seq, rng: np.random.Generator):
    return seq[int(rng.integers(len(seq)))]


def asked_cell(m: Material, rng: np.random.Generator) -> tuple[str, str, str, str] | None:
    """A cell asked for its attribute in a user's words: a two-column table's row names the attribute of
    the corpus's subject ("How heavy is it?"), a wider table's column that of its row key."""
    doc_id, key, column, value, columns = pick(m.cells, rng)
    attrs = sorted((named(key) if len(columns) == 2 else named(column)) | with_unit(value))
    attrs = [a for a in attrs if a in ASK]
    if not attrs:
        return None
    a = pick(attrs, rng)
    x = pick(m.subjects, rng) if len(columns) == 2 else key
    return pick(ASK[a], rng).format(x=x), value, f"ask-{a}", doc_id


def asked_quantity(m: Material, rng: np.random.Generator) -> tuple[str, str, str, str] | None:
    """A sentence's quantity with a unit asked by its attribute's question words ("How long ...?")."""
    doc_id, s, spans = pick(m.sentences, rng)
    quantities = [(a, t) for _, t in spans if len(t.split()) <= 4 for a in sorted(with_unit(t)) if a in ASK]
    if not quantities:
        return None
    a, span = pick(quantities, rng)
    return asked_by_attribute(s, a, span, rng), span, f"ask-{a}", doc_id


def asked_by_attribute(sentence: str, attribute: str, span: str, rng: np.random.Generator) -> str:
    """The cloze of a quantity of `sentence` asked with its attribute's question words ("How long ...?")."""
    rest = cloze(sentence, "number", span, rng)[len("How many "):]
    return f"{prose_wh(attribute)} {rest[:1].lower()}{rest[1:]}"


def answerable(m: Material, rng: np.random.Generator) -> tuple[str, str, str, str] | None:
    """(query, answer, family, source)."""
    r = rng.random()
    if r < MIX[0] and m.cells:
        return asked_cell(m, rng)
    if r < MIX[1] and m.sentences:
        return asked_quantity(m, rng)
    if r < MIX[2] and m.steps:
        doc_id, item = pick(m.steps, rng)
        words = item.rstrip(".").split()
        return f"How do I {words[0].lower()} {' '.join(words[1:])}?", item, "step", doc_id
    if r < MIX[3] and m.reasons:
        doc_id, s, before = pick(m.reasons, rng)
        return f"Why {before[0].lower()}{before[1:]}?", s, "reason", doc_id
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
    how = ("swap", "negate", "term", "attribute", "absent")[int(rng.integers(5))]
    if how == "absent":
        return absent(m, rng)
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


def absent(m: Material, rng: np.random.Generator) -> tuple[str, None, str, str] | None:
    """An attribute the corpus never states, asked the users' way, or a row key with its number changed."""
    missing = [a for a in ASK if a not in m.stated and a not in ("meaning", "action", "count")]
    numbered = [c for c in m.cells if re.search(r"\d", c[1])]
    if numbered and (not missing or rng.random() < 0.5):
        doc_id, key, column, _, columns = pick(numbered, rng)
        keys = {k for _, k, *_ in m.cells}
        for _ in range(5):
            other = re.sub(r"\d+", lambda d: str(int(d.group()) + int(rng.integers(2, 9))), key, count=1)
            if other not in keys:
                a = sorted(named(column) & ASK.keys())
                ask = pick(ASK[a[0]], rng) if a else "What is the " + column + " of {x}?"
                return ask.format(x=other), None, "absent", doc_id
        return None
    if not missing:
        return None
    a = pick(missing, rng)
    return pick(ASK[a], rng).format(x=pick(m.subjects, rng)), None, "absent", ""


def synthesize_generic(docs: list[dict], n: int, seed: int = 0, minimal_edits: bool = False) -> list[LearnerQuestion]:
    """Up to n questions from the documents, about UNANSWERABLE of them unanswerable; seeded, each query once.
    Without `minimal_edits` the unanswerable ones made by a minimal edit (MINIMAL_EDITS) are drawn and dropped:
    the rest are the same questions either way."""
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
    return out if minimal_edits else [q for q in out if q.family not in MINIMAL_EDITS]
