"""Answer metrics: is a reader's answer the gold answer, and does it come from what it cites?

    normalise(s)   lowercase, accents folded, punctuation to spaces, whitespace collapsed
    contains       the gold answer occurs in the answer as whole words (normalised)
    exact match    normalise(answer) == normalise(gold), the answer's [#n] markers removed
    token F1       2·P·R / (P + R) over the two token multisets (SQuAD's, Rajpurkar et al. 2016)
    faithful       every content word of the answer occurs in a chunk it cites

An abstention ("I don't know") is neither correct nor faithful on an answerable question;
faithfulness is only asked of answers that cite something.

What it leaves out: the retrieval metrics (metrics.py) and aggregation (evaluate.py).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

CITATION_RE = re.compile(r"\[#\d+\]")
PUNCT_RE = re.compile(r"[^\w\s]", re.UNICODE)

# Words an answer may add around what it took from its source ("the", "es", "is").
FUNCTION_WORDS = frozenset("""
a an the of to in on at for and or is are was were be it its this that with as by
el la los las un una de del en y o u es son se que lo al con por para
""".split())


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKD", CITATION_RE.sub(" ", text).casefold())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(PUNCT_RE.sub(" ", text).split())


def contains(answer: str, gold: str) -> bool:
    g = normalise(gold)
    return bool(g) and f" {g} " in f" {normalise(answer)} "


def exact_match(answer: str, gold: str) -> bool:
    return normalise(answer) == normalise(gold)


def token_f1(answer: str, gold: str) -> float:
    a, g = normalise(answer).split(), normalise(gold).split()
    common = sum((Counter(a) & Counter(g)).values())
    if not common:
        return 0.0
    precision, recall = common / len(a), common / len(g)
    return 2 * precision * recall / (precision + recall)


def faithful(answer: str, cited_texts: list[str]) -> bool:
    """Every content word of the answer occurs in one of the cited chunks' texts."""
    words = [w for w in normalise(answer).split() if w not in FUNCTION_WORDS]
    source = set(normalise(" ".join(cited_texts)).split())
    return bool(cited_texts) and all(w in source for w in words)
