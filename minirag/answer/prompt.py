"""The prompt augmenter: the evidence of the retrieved chunks plus the question, with citation markers.

`build_prompt(query, chunks)` numbers the chunks `[#1]..[#k]` in rank order and keeps the
marker -> chunk id mapping next to the text, so an answer's `[#2]` can be traced to the
chunk (and document, and character span) it came from. The context is not the chunks
whole: `evidence.select_evidence` keeps the lines of them that hold the question's words
(a table row with its columns named, a sentence), each with its chunk's marker, within
`evidence_lines` and `evidence_chars`, so a reader with a small window reads what matters;
the record says what was cut. With no evidence the prompt still tells the reader to say
"I don't know": it never falls back silently to answering from memory.

Given `answers` — the answer selector's best answers (selector.py), each with the chunk it
comes from — their lines come first among the evidence ("venir · yo: vine" before the rest),
a chunk beyond the top k that holds one joins the prompt's chunks, and the record keeps them
(`answers`, and `p_none`, the selector's probability that none of its candidates answers).

What it leaves out: tokens (the budget is in characters) and any model call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..settings import setting
from ..text.chunks import Chunk
from .evidence import Line, select_evidence

IDK = "I don't know — not in the rules I have."

DEFAULT_TEMPLATE = (
    "Use only the facts in the context to answer.\n"
    f'If the answer is not in the context, say "{IDK}"\n'
    "\n"
    "Context:\n"
    "{context}\n"
    "\n"
    "Question: {query}\n"
    "Answer with a one-sentence response, followed by the citation in brackets."
)

# The grammar KB's: the same, addressed to a tutor (prompt: {template: tutor})
TEMPLATES = {"default": DEFAULT_TEMPLATE, "tutor": "You are a grammar tutor. " + DEFAULT_TEMPLATE}

NO_CONTEXT = "(no context holds the question's words: answer exactly \"" + IDK + "\")"


@dataclass(frozen=True)
class PromptSettings:
    """What a prompt holds: how many chunks, which template, how much evidence."""
    k: int = setting(3, minimum=1)   # chunks of the run put in the prompt, in rank order
    template: str = "default"        # a name of TEMPLATES, or a template with {context} and {query}
    evidence_lines: int = setting(4, minimum=1)     # lines of those chunks kept as evidence, best first
    evidence_chars: int = setting(480, minimum=40)  # and at most this many characters of them
    answers: int = setting(2, minimum=0)            # the answer selector's best answers whose lines come first


@dataclass(frozen=True)
class Prompt:
    """A prompt as a reader is given it, with the chunks it cites and its evidence lines."""
    query: str
    text: str  # what a reader is given
    citations: list[str] = field(default_factory=list)  # citations[n - 1] = chunk id of marker [#n]
    contexts: list[str] = field(default_factory=list)  # contexts[n - 1] = text of marker [#n]
    evidence: list[dict] = field(default_factory=list)  # {"n", "text", "kind", "cells"}: the lines shown, best first
    cut: dict = field(default_factory=dict)             # lines kept / lines in the chunks, characters kept
    answers: list[dict] | None = None  # the selector's best answers {"text", "p", "n", ...}; None: no selector ran
    p_none: float = 0.0                # the selector's probability that no candidate answers
    none_why: str = ""                 # why a selector's rule made that 1 ("the documents never name Zumba")

    def __str__(self) -> str:
        return self.text

    def to_record(self, qid: str) -> dict:
        rec = {"qid": qid, "query": self.query, "citations": self.citations, "contexts": self.contexts,
               "evidence": self.evidence, "cut": self.cut, "prompt": self.text}
        if self.answers is not None:
            rec |= {"answers": self.answers, "p_none": self.p_none, **({"none_why": self.none_why} if self.none_why else {})}
        return rec

    @classmethod
    def from_record(cls, rec: dict) -> "Prompt":
        return cls(query=rec["query"], text=rec["prompt"], citations=rec["citations"], contexts=rec["contexts"],
                   evidence=rec.get("evidence", []), cut=rec.get("cut", {}), answers=rec.get("answers"),
                   p_none=rec.get("p_none", 0.0), none_why=rec.get("none_why", ""))


@dataclass(frozen=True)
class Selected:
    """One of the selector's answers as the prompt shows it: its text and probability, the line that
    says it, and the chunk (with its rank in the run) it comes from."""
    text: str
    p: float
    line: str
    kind: str
    chunk: Chunk
    rank: int
    key: str = ""
    column: str = ""
    stated: bool = False  # it states what the question asks (select/stated.py): answered rather than abstain


def selected(answers: list[dict], by_id: dict[str, Chunk], shown: int) -> list[Selected]:
    """The best `shown` of the selector's answer records (selector.Selection.answer_records), with their chunks."""
    return [Selected(a["text"], a["p"], a["evidence"], a["kind"], by_id[a["chunk_id"]], a["n"], a["key"], a["column"],
                     a.get("stated", False)) for a in answers[:shown]]


def build_prompt(query: str, chunks: list[Chunk], template: str = DEFAULT_TEMPLATE,
                 evidence_lines: int = PromptSettings.evidence_lines,
                 evidence_chars: int = PromptSettings.evidence_chars,
                 answers: list[Selected] | None = None, p_none: float = 0.0, none_why: str = "") -> Prompt:
    """Render the prompt from the chunks' evidence lines, the selected answers' lines first; `[#n]`
    marks the n-th chunk (rank order: the top k, then the chunks of answers beyond them) and maps to its id."""
    template = TEMPLATES.get(template, template)
    chunks = list(chunks)
    for a in sorted(answers or [], key=lambda a: a.rank):
        if a.chunk.id not in {c.id for c in chunks}:
            chunks.append(a.chunk)
    marker = {c.id: n for n, c in enumerate(chunks, start=1)}
    leading = list(dict.fromkeys((marker[a.chunk.id], a.line, a.kind) for a in answers or []))
    selection = select_evidence(query, chunks, evidence_lines, evidence_chars)
    shown = [Line(n, text, kind) for n, text, kind in leading][:evidence_lines]
    used = sum(len(ln.text) for ln in shown)
    for ln in selection.lines:
        if len(shown) == evidence_lines or used + len(ln.text) > evidence_chars:
            break
        if ln.text not in {x.text for x in shown}:
            shown.append(ln)
            used += len(ln.text)
    lines = [f"[#{ln.n}] {ln.text}" for ln in shown]
    context = "\n".join(lines) if lines else NO_CONTEXT
    text = template.replace("{context}", context).replace("{query}", query)
    evidence = [{"n": ln.n, "text": ln.text, "kind": ln.kind, "cells": [list(c) for c in ln.cells]} for ln in shown]
    cut = {"lines_kept": len(shown), "lines_total": selection.total, "chars_kept": used}
    picked = None if answers is None else [
        {"text": a.text, "p": round(a.p, 4), "n": marker[a.chunk.id], "rank": a.rank, "kind": a.kind, "key": a.key,
         "column": a.column, "line": a.line, **({"stated": True} if a.stated else {})} for a in answers]
    return Prompt(query=query, text=text, citations=[c.id for c in chunks], contexts=[c.text for c in chunks],
                  evidence=evidence, cut=cut, answers=picked, p_none=round(p_none, 4) if answers is not None else 0.0,
                  none_why=none_why if answers is not None else "")
