"""Questions naming something the documents never name: the reader abstains, whatever the candidates say.

    unnamed("How long is a Zumba class?", featurizer.idf)   -> ["Zumba"]
    unnamed("How heavy is the grinder?", featurizer.idf)   -> []

A name or a code in a question (a capitalised word other than a sentence's first, or a word of letters and
digits: "Zumba", "Outlook", "World Cup", "W07") that no chunk of the corpus holds, in any form, is something
the documents do not talk about: the best span of the chunks retrieved for it answers another question ("How
long is a Zumba class?" → a spin class's 45 minutes). The selector then gives "none of them" probability 1
(`"rule": "unnamed"` in the candidates), so the reader abstains; `abstention: never` still gives the span.

What it leaves out: lowercase words (a question's own wording: "heavy", "kid", "gone" are absent from pages
that answer it), numbers alone (a page writes 80 as "eighty" or within another quantity), and the grammar
feature set's corpora (its questions quote forms and lemmas the pages write otherwise).
"""

from __future__ import annotations

import re

from ...text.words import crude_stem, fold
from .generic import span_words
from .spans import FUNCTION

SENTENCE_RE = re.compile(r"(?<=[.?!])\s+")
CLITIC_RE = re.compile(r"['’].*$")  # Kestrel's, I'm: the word before the apostrophe


def named(word: str, first: bool) -> bool:
    """A name (capitalised, not a sentence's first word) or a code (letters and digits)."""
    has_digit, has_letter = any(c.isdigit() for c in word), any(c.isalpha() for c in word)
    return (has_digit and has_letter) or (not first and word[:1].isupper() and not has_digit)


def unnamed(query: str, vocabulary) -> list[str]:
    """The names and codes of `query` whose stem no chunk holds (`vocabulary`: stems, e.g. the generic
    featurizer's IDF table), in order."""
    out = []
    for sentence in SENTENCE_RE.split(query.strip()):
        for i, word in enumerate(span_words(sentence.lstrip("¿¡\"'“‘«"))):
            word = CLITIC_RE.sub("", word)
            if (len(word) > 1 and fold(word) not in FUNCTION and named(word, i == 0)
                    and crude_stem(word) not in vocabulary):
                out.append(word)
    return out
