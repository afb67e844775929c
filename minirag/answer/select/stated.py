"""Values the documents state for what a question asks: the reader answers one rather than abstain.

    stated = Stated(GenericFeaturizer.from_texts(chunk_texts))
    stated.states(GenericQuestion("How heavy is the lantern?", idf, 1.0), candidate)
    -> True                             # the *Weight* row's "410 g" under "Lumo S3 lantern"

A question asks an attribute in its own words ("how heavy": weight; attributes.py). A candidate states it
when its value carries the attribute's unit ("410 g"; a number under a *Price (EUR)* column) and either
- its row key or its sentence names the attribute (a *Weight* row; "the warranty period is 3 years"), and
  every other content word of the question is in its line or the headings above it, or is one the corpus
  writes in most of its chunks (70 %) (its topic: "grinder" in a grinder's manual); or
- its column names the attribute and the question names its row (*Burr set* under *Price (EUR)*).

The learned "none of them" option is trained on synthesized questions, where a question word no page writes
("heavy") marks an off-topic one; so it abstains on "How heavy is the lantern?" although the *Weight* row
answers it. The selector marks the best answer that states what is asked (`"stated": true` in the
candidates and the prompt, moved up to second so the prompt shows it), and the extractive reader gives it
where it would otherwise abstain on probability alone. A rule that abstains (unnamed.py) still does, and
where the reader answers anyway its own best answer stands.

What it leaves out: attributes without a cue or a unit (a battery's "4,400 mAh" for "capacity"), which of two
values a sentence states is meant, and whose a value is when the sentence names only the corpus's topic
("Return shipping costs 6 EUR" counts for "How much does the lantern cost?" in a lantern's pages).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .attributes import named, with_unit
from .candidates import Candidate
from .generic import NUMBER_RE, UNIT_WORDS, GenericFeaturizer, GenericQuestion, content_stems

COMMON = 0.7  # a word in this share of the corpus's chunks is its topic, not a detail a value must stand beside


class Stated:
    """The corpus's topic words, and whether a candidate states the attribute a question asks."""

    def __init__(self, corpus: GenericFeaturizer):
        self.common = corpus.common(COMMON)

    def states(self, q: GenericQuestion, c: Candidate) -> bool:
        """Whether candidate `c` states the attribute question `q` asks, of what else `q` names."""
        if not q.attrs:
            return False
        unit = with_unit(c.text) if len(c.text.split()) <= UNIT_WORDS else frozenset()
        if c.kind == "cell" and NUMBER_RE.search(c.text):
            unit |= named(c.column)
        if not unit & q.attrs:
            return False
        rest = set(q.stems) - q.cue_stems  # what the value must be of: "lantern", "burr set"
        if c.kind == "cell" and not named(c.key) & q.attrs:
            return bool(named(c.column) & q.attrs) and bool(set(content_stems(c.key)) & rest)
        if c.kind != "cell" and not named(c.line) & q.attrs:
            return False
        around = set(content_stems(f"{c.line} {c.caption}"))
        return all(s in around or s in self.common for s in rest)

    def first(self, q: GenericQuestion, candidates: list[Candidate]) -> int | None:
        """The index of the first candidate that states what `q` asks, None when none does."""
        if not q.attrs:
            return None
        return next((i for i, c in enumerate(candidates) if self.states(q, c)), None)

    def marked(self, selection: Any) -> Any:
        """A selection (selector.py `Selection`) with its best answer that states what the question asks
        marked, moved up to second when it stands lower, so that the prompt, which shows two, holds it."""
        answers, q = selection.answers, selection.read.question
        i = None if q is None else self.first(q, [selection.read.candidate(a.best) for a in answers])
        if i is None:
            return selection
        at = min(i, 1)
        return replace(selection, answers=answers[:at] + [answers[i]] + [a for a in answers[at:] if a is not answers[i]],
                       stated=at)
