"""Answer-form feedback: a reader's short answer over a run's top chunks pulls up the chunks that hold it.

A conjugation question's gold chunks are every chunk holding the answer form ("tuve"), so after the
reader answers, `feedback_order` puts the chunk it cited first, then the chunks of the top `n` whose
text holds the answer as a whole word (case and accents folded), in run order, then the rest. Among those,
the chunks that also hold the form's verb (its lemmas in the corpus's lexicon: "tener") come first: a
paradigm row "| tener | tuve | ... |" or an arrow "tener → tuve" states the form, where "Tuve que salir"
only uses it. (Taking such chunks from the whole run, not only its top `n`, was tried and left out.)

What it leaves out: running the reader (rank/kinds/reorders.py `Feedback`, query/sources.py) and
deciding whether an answer is short enough to search for (`answer_form`).
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

from ..text.words import fold
from .diversify import positional
from .ranking import Ranking

CITATION_RE = re.compile(r"(?<!\s)\s*\[#\d+\]")  # starts where its spaces start: inside, it rescanned the run


def answer_form(answer: str, max_words: int) -> str | None:
    """The folded answer without its [#n] markers, or None when it is empty or over `max_words` words
    (a sentence, not a form: searching for it would move nothing useful)."""
    form = fold(CITATION_RE.sub("", answer)).strip()
    return form if form and len(form.split()) <= max_words else None


def whole_word(word: str) -> re.Pattern:
    return re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)")


def feedback_order(ranking: Ranking, form: str, cited: str | None, folded_text: Callable[[str], str],
                   n: int, lemmas: Sequence[str] = ()) -> Ranking:
    """The cited chunk (if ranked), then the top `n` chunks holding `form` as a whole word, those that also
    hold one of its (folded) `lemmas` first, then the rest, each group in run order; scores are positional
    (n, n-1, ...), as diversify.py writes them."""
    pattern = whole_word(form)
    verbs = [whole_word(lemma) for lemma in lemmas if lemma != form]
    ids = [cid for cid, _ in ranking]
    head = [cited] if cited in ids else []
    holding = [cid for cid in ids[:n] if cid not in head and pattern.search(folded_text(cid))]
    stating = [cid for cid in holding if any(v.search(folded_text(cid)) for v in verbs)]
    holding = stating + [cid for cid in holding if cid not in stating]
    first = set(head) | set(holding)
    return positional(head + holding + [c for c in ids if c not in first])
