"""Words, in one place: the patterns that cut text into words, the fold that compares them, the stemmers.

Three word patterns, each for what it keeps:
- `WORD_RE`, runs of unicode word characters (letters, digits, "_"): the seed's tokenizer, BM25's
  default analyzer, overlap counts;
- `LETTERS_RE`, runs of letters only (no digits): language guesses, question words;
- `TERM_RE`, letters joined across an inner apostrophe or hyphen ("don't", "well-known"): terms and
  answers compared as words.

`fold` is how words are compared: casefolded, accents dropped. The stems: Snowball's (PyStemmer, the
BM25 analyzers' and the grammar domain's) through `snowball`; and two crude ones for the readers'
overlap features, a six-letter prefix and a common English or Spanish ending off first.

What it leaves out: the analyzer's configurable tokenizers (text/analyze.py `word_pattern`) and the
answer span tokenizer (answer/select/spans.py), which keep numbers, prices and punctuation whole.
"""

from __future__ import annotations

import re
import unicodedata

WORD_RE = re.compile(r"\w+")
LETTERS_RE = re.compile(r"[^\W\d_]+")
TERM_RE = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
SUFFIX_RE = re.compile(r"(?<=\w{3})(ings?|ed|es|s|ly|ciones|cion|mente)$")
PREFIX = 6  # letters a crude stem keeps: "conjugate" and "conjugation" meet


def fold_accents(text: str) -> str:
    """Strip combining marks after canonical decomposition: "trabajó" -> "trabajo", "ñ" -> "n"."""
    if text.isascii():
        return text  # nothing to decompose or strip
    decomposed = unicodedata.normalize("NFD", text)
    marks = {ord(c): None for c in set(decomposed) if unicodedata.combining(c)}  # each distinct character once
    return unicodedata.normalize("NFC", decomposed.translate(marks) if marks else decomposed)


def fold(text: str) -> str:
    """Casefolded, accents dropped: how terms, questions and answers are compared ("Tuvé" -> "tuve")."""
    return fold_accents(text.casefold())


def word_set(text: str) -> set[str]:
    """The distinct casefolded `WORD_RE` words of a text."""
    return set(WORD_RE.findall(text.casefold()))


def prefix_stem(word: str) -> str:
    """The first six letters: a crude stem that lets "conjugate" find "conjugation"."""
    return word[:PREFIX]


def prefix_stems(text: str) -> set[str]:
    """The distinct prefix stems of a text's lowercased `WORD_RE` words."""
    return {prefix_stem(w) for w in WORD_RE.findall(text.lower())}


def crude_stem(word: str) -> str:
    """Folded, a common English or Spanish ending off, then the six-letter prefix ("meaning" and
    "mean", "founded" and "founding" meet)."""
    return prefix_stem(SUFFIX_RE.sub("", fold(word)))


def snowball(algorithm: str):
    """A new PyStemmer stemmer for a Snowball algorithm ("english", "spanish", "arabic", "porter").
    One per user: PyStemmer's objects keep a cache and are not shared across threads."""
    import Stemmer  # imported here so what never stems does not need it

    try:
        return Stemmer.Stemmer(algorithm)
    except KeyError:
        raise ValueError(f"unknown stemmer {algorithm!r} (PyStemmer knows: {', '.join(Stemmer.algorithms())})") from None
