"""Questions that ask for a rule or a reason answered with the sentence that states it.

    explanation("When do I use ser vs estar?", lines)     # the longest sentence naming both
    -> Verdict(text="As a first approximation, ser tells you what something is ..., while estar tells you ...")

"When do I use X (vs Y)?", "What is the difference between X and Y?", "How does X work?" and their Spanish
forms (¿cuándo se usa …?, diferencia entre …) ask for a rule, not a value: a span cut out of a sentence
answers them badly, and a selector trained on value questions often abstains. Such a question is answered
with the prose sentence of the top chunks (table rows aside) that holds every content word of the question
(three in four of a question of four or more), the longest of them (a rule states its conditions), the
better-ranked chunk's first on a tie. A question no sentence covers is left to the selector, which answers or abstains as for any
question.

What it leaves out: answers spread over two sentences, "why …?" (the selector's clauses answer it better on
the development suite) and "how do I …?" (steps are items: the selector's).
"""

from __future__ import annotations

import re

from ...text.words import crude_stem, fold
from .polar import PUNCT, Verdict, covering, tokens
from .spans import FUNCTION

EXPLAIN_RE = re.compile(
    r"^\W*(when (do|should|can|would|must) (i|you|we|one) use\b|when is \S+ used\b|"
    r"what('s| is) the difference\b|(what is the )?difference between\b|how does .+ work\b|"
    r"cu[aá]ndo (se usa|se utiliza|uso|usamos|debo usar)\b|(cu[aá]l es la )?diferencia entre\b)",
    re.IGNORECASE)
CUES = frozenset({"when", "use", "used", "difference", "between", "work", "works", "vs", "versus", "cuando", "usa",
                  "utiliza", "uso", "usamos", "debo", "usar", "diferencia", "entre"})
CONTRAST = frozenset({"vs", "vs.", "versus", "or", "and", "o", "y"})
COVER, MAX_WORDS = 0.75, 60


def contrasted(words: list[str]) -> set[int]:
    """Positions of function words a question sets against each other ("por vs para", "a or an"): what it
    asks about, though a function word is otherwise no content word. Both sides must be function words:
    "the subjunctive and the indicative" contrasts the content words, not "the"."""
    out = set()
    for i in range(1, len(words) - 1):
        left, right = fold(words[i - 1]), fold(words[i + 1])
        if fold(words[i]) in CONTRAST and left in FUNCTION and right in FUNCTION:
            out |= {i - 1, i + 1}
    return out


def asked_stems(query: str) -> list[str]:
    """The content words an explanatory question asks about, stemmed, in order; [] for any other question."""
    if not EXPLAIN_RE.match(query):
        return []
    words = [t.strip(PUNCT + "¿¡") for t in tokens(query)]
    kept = contrasted(words)
    return list(dict.fromkeys(crude_stem(w) for i, w in enumerate(words) if w and (
        i in kept or (fold(w) not in FUNCTION and fold(w) not in CUES and len(w) > 1))))


def explanation(query: str, lines: list[str]) -> Verdict | None:
    """The longest sentence of `lines` (best chunk first, the first of equals) that covers the question's
    content words, or None (module docstring)."""
    asked = asked_stems(query)
    if not asked:
        return None
    best = None
    for line, sentence, ws, _, cover in covering(lines, asked):
        if len(ws) < 4 or len(ws) > MAX_WORDS or (cover < 1.0 and not (cover >= COVER and len(asked) >= 4)):
            continue
        if best is None or (cover, len(ws)) > best[0]:  # a rule states its conditions: the longer sentence
            best = ((cover, len(ws)), Verdict(sentence.strip(), line))
    return best[1] if best is not None else None
