"""Questions naming something the documents never name: the reader abstains, whatever the candidates say.

    names = Names(chunk_texts)
    names.unnamed("How long is a Zumba class?")       -> ["Zumba"]
    names.unnamed("How heavy is the Kestrel 80?")     -> ["Kestrel 80"]   (the pages name the Kestrel 60)
    names.unnamed("How heavy is the grinder?")        -> []

A name or a code in a question (a capitalised word other than a sentence's first, or a word of letters and
digits: "Zumba", "Outlook", "World Cup", "W07") that no chunk of the corpus holds, in any form, is something
the documents do not talk about; so is a name the pages number ("Kestrel 60", "Studio 2") with a number they
never give it. The best span of the chunks retrieved for such a question answers another one ("How long is a
Zumba class?" → a spin class's 45 minutes), so the selector gives "none of them" probability 1 (`"rule":
"unnamed"` in the candidates) and the reader abstains; `abstention: never` still gives the span.

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


def named(word: str, first: bool, cased: bool = True) -> bool:
    """A name (capitalised, not a sentence's first word, in a sentence whose capitals mean something) or a
    code (letters and digits)."""
    has_digit, has_letter = any(c.isdigit() for c in word), any(c.isalpha() for c in word)
    return (has_digit and has_letter) or (cased and not first and word[:1].isupper() and not has_digit)


def capitals_mean_names(words: list[str]) -> bool:
    """False for a sentence written in capitals or in title case ("HOW HEAVY IS IT?", "How Heavy Is The
    Grinder?"): when four in five of its content words after the first are capitalised, capitals say nothing
    of which are names ("Who won the World Cup?" keeps them: two in three)."""
    rest = [w for w in words[1:] if w[:1].isalpha() and fold(w) not in FUNCTION]
    return len(rest) < 2 or sum(w[:1].isupper() for w in rest) < 0.8 * len(rest)


class Names:
    """What a corpus names: the stems of its words, and the numbers it writes each capitalised word with."""

    def __init__(self, texts: list[str]):
        self.stems: set[str] = set()
        self.numbers: dict[str, set[str]] = {}  # stem of a name -> the numbers that follow it ("kestre": {"60"})
        for text in texts:
            words = [w.rstrip(".,") for w in span_words(text)]  # "Step 2." ends its sentence
            self.stems.update(crude_stem(w) for w in words)
            for word, after in zip(words, words[1:]):
                if word[:1].isupper() and after.isdigit():
                    self.numbers.setdefault(crude_stem(word), set()).add(after)

    def unnamed(self, query: str) -> list[str]:
        """The names, codes and numbered names of `query` the corpus never writes, in order."""
        out = []
        for sentence in SENTENCE_RE.split(query.strip()):
            words = [CLITIC_RE.sub("", w).rstrip(".,") for w in span_words(sentence.lstrip("¿¡\"'“‘«"))]
            cased = capitals_mean_names(words)
            for i, word in enumerate(words):
                if len(word) < 2 or fold(word) in FUNCTION:
                    continue
                stem = crude_stem(word)
                if named(word, i == 0, cased) and stem not in self.stems:
                    out.append(word)
                elif stem in self.numbers and i + 1 < len(words) and words[i + 1].isdigit() \
                        and words[i + 1] not in self.numbers[stem]:
                    out.append(f"{word} {words[i + 1]}")
        return out
