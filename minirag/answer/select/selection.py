"""What the selector read of a question (`Read`: its ranked chunks' candidates and their features) and
what it chose (`Selection`), and the shapes an answer takes after scoring: the sentence holding a span
(`as_sentences`), a rule's verdict (`decided_by`), a why question's reason (`reasoned`), a table cell named by
its row and column (`keyed`).

What it leaves out: reading and scoring (selector.py), the rules themselves (polar.py, explain.py, keyed.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .candidates import Candidate, shown_line
from .explain import reason_sentence
from .generic import GenericQuestion
from .keyed import keyed_cell
from .keys import answer_key
from .polar import Verdict
from .pooling import Answer

POLAR_TOP = 5  # a yes/no (polar.py), rule or why question (explain.py) is decided from the top five chunks' lines


@dataclass
class Read:
    """A question read against its ranked chunks: a domain feature set's analysis of it (None without one),
    each chunk's candidates with its rank, their features (m, F) and the "none of them" features (G,)."""
    query: str
    analysis: Any
    blocks: list[tuple]  # (a chunk's block: the domain feature set's, else SpanBlock, rank)
    X: np.ndarray
    z: np.ndarray
    names: tuple[str, ...]  # the columns of X
    rows: np.ndarray | None = None  # the candidates kept (generic: those of the best-covering sentences); None: all
    question: GenericQuestion | None = None  # the generic features' reading of the question

    def kept(self, values: list) -> list:
        return values if self.rows is None else [values[i] for i in self.rows]

    @property
    def keys(self) -> list[str]:
        """Each candidate's answer key, in feature-row order."""
        return self.kept([t for b, _ in self.blocks for t in b.texts])

    @property
    def texts(self) -> list[str]:
        return self.kept([c.text for b, _ in self.blocks for c in b.candidates])

    def top_lines(self, top: int, cells: bool = True) -> dict[str, str]:
        """The distinct evidence lines of the kept candidates of the `top` best chunks, in row order (without
        table rows: `cells` False), each with the chunk of its first candidate."""
        out: dict[str, str] = {}
        for _, c, rank in self.in_rows():
            if rank <= top and (cells or c.kind != "cell"):
                out.setdefault(c.line, c.chunk_id)
        return out

    def all_lines(self, top: int) -> dict[str, int]:
        """The distinct prose lines (no table rows) of every candidate of the `top` best chunks, kept or not,
        each with its first candidate's index among all the blocks' candidates."""
        out: dict[str, int] = {}
        for i, c, rank in self.every_candidate():
            if rank <= top and c.kind != "cell":
                out.setdefault(c.line, i)
        return out

    def every_candidate(self):
        """(index among all the blocks' candidates, candidate, its chunk's rank) of every candidate, kept or not."""
        i = 0
        for b, rank in self.blocks:
            for c in b.candidates:
                yield i, c, rank
                i += 1

    def in_rows(self):
        """(feature row, candidate, its chunk's rank) of every kept candidate, in row order: one pass over the
        blocks where `candidate` walks them per row."""
        kept = None if self.rows is None else {int(j): row for row, j in enumerate(self.rows)}
        for i, c, rank in self.every_candidate():
            if kept is None or i in kept:
                yield (i if kept is None else kept[i]), c, rank

    def candidate(self, i: int) -> Candidate:
        """The i-th candidate (feature row i) with its chunk's rank."""
        i = int(self.rows[i]) if self.rows is not None else i
        for b, rank in self.blocks:
            if i < b.n:
                return replace(b.candidates[i], n=rank)
            i -= b.n
        raise IndexError(i)


@dataclass
class Selection:
    """What the selector read of a question and the answers it found."""
    read: Read
    p: np.ndarray                 # (m,) probabilities
    p_none: float
    answers: list[Answer]         # pooled by answer, best first
    # what decided the answer: "polar" (polar.py), "explain", "rule" or "reason" (explain.py), "table"
    # (keyed.py); "unnamed": abstain (unnamed.py)
    rule: str = ""
    why: str = ""  # an abstaining rule's reason, as a user reads it
    stated: int | None = None  # the answer that states what the question asks (stated.py), at most second
    sentences: bool = False  # answers are the sentences holding the spans (a why or how question: as_sentences)

    @property
    def analysis(self) -> Any:
        return self.read.analysis

    def answer_records(self, keep: int) -> list[dict]:
        """The `keep` best answers, each with the candidate it is cited from, the line that shows it and
        that candidate's features."""
        answers = []
        for a in self.answers[:keep]:
            c = self.read.candidate(a.best)
            features = {name: round(float(v), 4) for name, v in zip(self.read.names, self.read.X[a.best]) if v}
            record = {"text": a.text, "p": round(a.p, 4), **c.to_record(), "evidence": shown_line(c), "features": features}
            if self.sentences or (self.rule and not answers):  # the sentence or the deciding span, not the
                record["text"] = a.text                              # candidate it is cited from
            if len(answers) == self.stated:
                record["stated"] = True
            answers.append(record)
        return answers

    def to_record(self, qid: str, keep: int) -> dict:
        """What the candidates artifact holds of a question: the analysis, the `keep` best answers, and
        every candidate answer's key."""
        answers, keys = self.answer_records(keep), self.read.keys
        return {"qid": qid, "query": self.read.query, "analysis": self.analysis.to_record() if self.analysis else {},
                "depth": len(self.read.blocks), "candidates": len(keys), "p_none": round(self.p_none, 4),
                "answers": answers, "keys": sorted(set(keys) - {""}), **({"rule": self.rule} if self.rule else {}),
                **({"why": self.why} if self.why else {})}

    def keeping(self, i: int) -> "Selection":
        """The selection with candidate `i` (among all the blocks') among the kept rows: a rule may answer from
        a line none of whose candidates the generic features kept. It joins with no features (the scorer
        never weighed it) and probability 0, so that the answer can cite its chunk."""
        r = self.read
        if r.rows is None or i in r.rows:
            return self
        r = replace(r, rows=np.append(r.rows, i), X=np.vstack([r.X, np.zeros((1, r.X.shape[1]), r.X.dtype)]))
        return replace(self, read=r, p=np.append(self.p, 0.0))

    def decided_by(self, v: Verdict, rule: str) -> "Selection":
        """The selection with a rule's answer first (a polar question's deciding span, a rule's sentence),
        certain (p 1, none 0), cited from the first candidate of its line."""
        best = next(row for row, c, _ in self.read.in_rows() if c.line == v.line)
        key = answer_key(v.text)
        others = [a for a in self.answers if answer_key(a.text) != key]
        return Selection(self.read, self.p, 0.0, [Answer(v.text, 1.0, best), *others], rule)


def reasoned(selection: Selection) -> Selection | None:
    """A why question answered by a sentence of the top chunks that gives a reason (explain.py
    `reason_sentence`), unless the selector's own sentence, one it prefers to none, gives one already; None
    when none does. Such a sentence may hold no kept candidate: its line's first one then joins the kept rows,
    with no features (the scorer never weighed it), so that the answer cites its chunk."""
    r, top = selection.read, selection.answers[0] if selection.answers else None
    said = top.text if top is not None and top.p > selection.p_none else ""
    lines = r.all_lines(POLAR_TOP)
    if (v := reason_sentence(r.question.stems, list(lines), said)) is None:
        return None
    return selection.keeping(lines[v.line]).decided_by(v, "reason")


def keyed(selection: Selection) -> Selection | None:
    """A question that names a table row and asks for one of its columns answered by that cell (keyed.py), or
    None."""
    r = selection.read
    cells = [(i, c) for i, c, rank in r.every_candidate() if rank <= POLAR_TOP]
    if (v := keyed_cell(r.question, [c for _, c in cells])) is None:
        return None
    first = next(i for i, c in cells if c.line == v.line and c.text == v.text)
    return selection.keeping(first).decided_by(v, "table")


def as_sentences(selection: Selection) -> Selection:
    """The selection with each answer but a table cell given as the sentence (or list item) that holds it, in
    the same order, each sentence once: "Why add the lemon juice at the end?" is answered by "Add the lemon
    juice at the end, off the heat: boiled lemon juice loses its fresh taste", not by "heat"."""
    out: dict[str, Answer] = {}
    for a in selection.answers:
        c = selection.read.candidate(a.best)
        text = a.text if c.kind == "cell" else c.line
        out.setdefault(answer_key(text), replace(a, text=text))
    return replace(selection, answers=list(out.values()), sentences=True)
