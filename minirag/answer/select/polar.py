"""Yes/no questions answered with the span that decides them.

    verdict("Is the hopper dishwasher safe?", ["The hopper and the grounds container are not dishwasher safe."])
    -> Verdict(text="not dishwasher safe", line=...)

A polar question (it opens with an auxiliary: is, are, do, does, can, ...) is answered from the sentence of
the top chunks that holds every content word of the question (or three in four, its last one among them):
from a negation just before the last question word it holds, through that word, to the end of its clause
(at most eight words); the whole sentence when that span would be the asked word alone. A sentence that
names the thing without the rest of the question decides nothing, and then the learned selector answers or
abstains as for any question.

What it leaves out: "yes" or "no" themselves (the span says which), and answers spread over two sentences.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ...text.words import crude_stem, fold
from .candidates import plain, sentences
from .spans import FUNCTION

POLAR_RE = re.compile(r"^\s*(is|are|was|were|do|does|did|can|could|will|would|should|has|have|had|may|must)\b",
                      re.IGNORECASE)
NEGATIONS = frozenset({"not", "never", "no", "cannot", "can't", "isn't", "aren't", "don't", "doesn't", "won't",
                       "nor", "neither"})
PUNCT = ",;:.!?()\"“”'’"
MIN_WORDS, COVER, BEFORE, MAX_SPAN = 2, 0.75, 4, 8
# words a sentence never ends on: a line ending on one was cut by its chunk's edge, and its last sentence answers nothing
CUT_WORDS = frozenset("a an the of and or with to for from by into de del la el los las un una y o con para en que".split())


@dataclass(frozen=True)
class Verdict:
    text: str
    line: str  # the evidence line holding it


def tokens(text: str) -> list[str]:
    """Whitespace tokens with hyphenated words split ("dishwasher-safe" is two), punctuation kept on them."""
    return [t for raw in text.split() for t in raw.split("-") if t.strip(PUNCT)]


def stem(token: str) -> str:
    return crude_stem(token.strip(PUNCT))


def question_stems(query: str) -> list[str]:
    """The content words of a polar question after its auxiliary, stemmed, in order; [] when not polar."""
    if not POLAR_RE.match(query):
        return []
    kept = [t.strip(PUNCT) for t in tokens(POLAR_RE.sub("", query, count=1))]
    return [crude_stem(w) for w in kept if fold(w) not in FUNCTION and len(w) > 1]


def deciding_span(ws: list[str], stems: list[str], asked: list[str]) -> str:
    """From a negation up to BEFORE words before the last asked word the sentence holds, through the end of
    that word's clause."""
    last = next(q for q in reversed(asked) if q in stems)
    at = max(i for i, s in enumerate(stems) if s == last)
    lo = next((j for j in range(max(0, at - BEFORE), at) if fold(ws[j].strip(PUNCT)) in NEGATIONS), at)
    hi = at + 1
    while hi < len(ws) and hi - lo < MAX_SPAN and not ws[hi - 1].endswith((",", ";", ":", ".")):
        hi += 1
    while hi - 1 > at and fold(ws[hi - 1].strip(PUNCT)) in FUNCTION:
        hi -= 1  # "paid at 70% of your salary for the": a span cut at MAX_SPAN ends on its last content word
    if hi - lo == 1:
        return " ".join(ws).strip(" ,;:.")  # the asked word alone ("house", "Interns") decides nothing: the sentence
    return " ".join(ws[lo:hi]).strip(" ,;:.")


def covering(lines: list[str], asked: list[str]) -> Iterator[tuple[str, str, list[str], list[str], float]]:
    """(line, sentence, its tokens, their stems, the share of the `asked` stems it holds) of every sentence of
    `lines`, in order: what a rule answering from one sentence (this one, explain.py) chooses among."""
    for line in lines:
        whole = sentences(plain(line))
        for sentence in whole[:-1] if cut_off(line) else whole:
            ws = tokens(sentence)
            stems = [stem(w) for w in ws]
            yield line, sentence, ws, stems, sum(q in stems for q in asked) / len(asked)


def cut_off(line: str) -> bool:
    """A line a chunk's edge cut mid-sentence ("..., and with a"): it ends on a word no sentence ends on."""
    words = line.split()
    return bool(words) and words[-1].casefold() in CUT_WORDS


def verdict(query: str, lines: list[str]) -> Verdict | None:
    """The deciding span of the sentence (of `lines`, best first) that covers the question best; None
    when the question is not polar or no sentence covers it."""
    asked = question_stems(query)
    if len(asked) < MIN_WORDS:
        return None
    best = None
    for line, _, ws, stems, cover in covering(lines, asked):
        if cover < 1.0 and not (cover >= COVER and asked[-1] in stems):
            continue
        if best is None or (cover, -len(ws)) > best[0]:
            best = ((cover, -len(ws)), Verdict(deciding_span(ws, stems, asked), line))
    return best[1] if best is not None and best[1].text else None
