"""The prompt augmenter: the evidence of the retrieved chunks plus the question, with citation markers.

`build_prompt(query, chunks)` numbers the chunks `[#1]..[#k]` in rank order and keeps the
marker -> chunk id mapping next to the text, so an answer's `[#2]` can be traced to the
chunk (and document, and character span) it came from. The context is not the chunks
whole: `evidence.select_evidence` keeps the lines of them that hold the question's words
(a table row with its columns named, a sentence), each with its chunk's marker, within
`evidence_lines` and `evidence_chars`, so a reader with a small window reads what matters;
the record says what was cut. With no evidence the prompt still tells the reader to say
"I don't know": it never falls back silently to answering from memory.

What it leaves out: tokens (the budget is in characters) and any model call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..settings import setting
from ..text.chunks import Chunk
from .evidence import select_evidence

IDK = "I don't know — not in the rules I have."

DEFAULT_TEMPLATE = (
    "You are a grammar tutor. Use only the facts in the context to answer.\n"
    f'If the answer is not in the context, say "{IDK}"\n'
    "\n"
    "Context:\n"
    "{context}\n"
    "\n"
    "Question: {query}\n"
    "Answer with a one-sentence response, followed by the citation in brackets."
)

TEMPLATES = {"default": DEFAULT_TEMPLATE}

NO_CONTEXT = "(no context holds the question's words: answer exactly \"" + IDK + "\")"


@dataclass(frozen=True)
class PromptSettings:
    k: int = setting(3, minimum=1)   # chunks of the run put in the prompt, in rank order
    template: str = "default"        # a name of TEMPLATES, or a template with {context} and {query}
    evidence_lines: int = setting(4, minimum=1)     # lines of those chunks kept as evidence, best first
    evidence_chars: int = setting(480, minimum=40)  # and at most this many characters of them


@dataclass(frozen=True)
class Prompt:
    query: str
    text: str  # what a reader is given
    citations: list[str] = field(default_factory=list)  # citations[n - 1] = chunk id of marker [#n]
    contexts: list[str] = field(default_factory=list)  # contexts[n - 1] = text of marker [#n]
    evidence: list[dict] = field(default_factory=list)  # {"n", "text", "kind", "cells"}: the lines shown, best first
    cut: dict = field(default_factory=dict)             # lines kept / lines in the chunks, characters kept

    def __str__(self) -> str:
        return self.text

    def to_record(self, qid: str) -> dict:
        return {"qid": qid, "query": self.query, "citations": self.citations, "contexts": self.contexts,
                "evidence": self.evidence, "cut": self.cut, "prompt": self.text}

    @classmethod
    def from_record(cls, rec: dict) -> "Prompt":
        return cls(query=rec["query"], text=rec["prompt"], citations=rec["citations"], contexts=rec["contexts"],
                   evidence=rec.get("evidence", []), cut=rec.get("cut", {}))


def build_prompt(query: str, chunks: list[Chunk], template: str = DEFAULT_TEMPLATE,
                 evidence_lines: int = PromptSettings.evidence_lines,
                 evidence_chars: int = PromptSettings.evidence_chars) -> Prompt:
    """Render the prompt from the chunks' evidence lines; `[#n]` marks the n-th chunk (rank order)
    and maps to its id."""
    template = TEMPLATES.get(template, template)
    selection = select_evidence(query, chunks, evidence_lines, evidence_chars)
    lines = [f"[#{ln.n}] {ln.text}" for ln in selection.lines]
    context = "\n".join(lines) if lines else NO_CONTEXT
    text = template.replace("{context}", context).replace("{query}", query)
    evidence = [{"n": ln.n, "text": ln.text, "kind": ln.kind, "cells": [list(c) for c in ln.cells]}
                for ln in selection.lines]
    return Prompt(query=query, text=text, citations=[c.id for c in chunks], contexts=[c.text for c in chunks],
                  evidence=evidence, cut=selection.cut())
