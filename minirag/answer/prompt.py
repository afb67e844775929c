"""The prompt augmenter: retrieved chunks plus the question, with citation markers.

`build_prompt(query, chunks)` numbers the chunks `[#1]..[#k]` in rank order and
keeps the marker -> chunk id mapping next to the text, so an answer's `[#2]` can be
traced to the chunk (and document, and character span) it came from. With no chunks
the prompt still tells the reader to say "I don't know": it never falls back silently
to answering from memory.

What it leaves out: token budgeting (the caller picks k) and any model call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..settings import setting
from ..text.chunks import Chunk

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

NO_CONTEXT = "(no context was retrieved: answer exactly \"" + IDK + "\")"


@dataclass(frozen=True)
class PromptSettings:
    k: int = setting(3, minimum=1)   # chunks of the run put in the prompt, in rank order
    template: str = "default"        # a name of TEMPLATES, or a template with {context} and {query}


@dataclass(frozen=True)
class Prompt:
    query: str
    text: str  # what a reader is given
    citations: list[str] = field(default_factory=list)  # citations[n - 1] = chunk id of marker [#n]
    contexts: list[str] = field(default_factory=list)  # contexts[n - 1] = text of marker [#n]

    def __str__(self) -> str:
        return self.text

    def to_record(self, qid: str) -> dict:
        return {"qid": qid, "query": self.query, "citations": self.citations,
                "contexts": self.contexts, "prompt": self.text}

    @classmethod
    def from_record(cls, rec: dict) -> "Prompt":
        return cls(query=rec["query"], text=rec["prompt"], citations=rec["citations"], contexts=rec["contexts"])


def build_prompt(query: str, chunks: list[Chunk], template: str = DEFAULT_TEMPLATE) -> Prompt:
    """Render the prompt; `[#n]` marks the n-th chunk (rank order) and maps to its id."""
    template = TEMPLATES.get(template, template)
    lines = [f"[#{n}] {c.text.strip()}" for n, c in enumerate(chunks, start=1)]
    context = "\n".join(lines) if lines else NO_CONTEXT
    text = template.replace("{context}", context).replace("{query}", query)
    return Prompt(query=query, text=text, citations=[c.id for c in chunks], contexts=[c.text for c in chunks])
