"""Readers turn a Prompt into an answer with citations.

`ExtractiveReader` is the one reader today. It splits the prompt's contexts into
candidates (sentences of prose, and each table row on its own, matched together with its
table's header row and the heading above it, so `| yo | tuve |` under `## Tener` answers
"tener en pretérito, yo") and returns the best candidate with its `[#n]` marker.
Question words are weighted by how rare they are among the candidates, so in "what is the
past of eat" the word *eat* picks the row `| eat | ate | eaten |` over a sentence that
merely says *past*:

    support = |content(q) found anywhere in the contexts| / |content(q)|
    choice  = argmax_s  Σ_{w ∈ content(q) ∩ words(s)} log((S + 1) / (df_S(w) + 0.5))

It abstains with the prompt's "I don't know" when the contexts miss too much of the
question (support < threshold) or no candidate shares a content word with it. Words match
on their first six letters, a crude stem that lets "conjugate" find "conjugation".

Readers are registered by subclassing `Reader` (its `type` is the config's `reader.type`,
its `Settings` the dataclass of its settings); `make_reader` builds the configured one.

What it leaves out: generation. A reader that writes new text (a small GPT trained by
the graph, or an HTTP reader) is one more `Reader` subclass with the same `generate`.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from typing import Any, Mapping

from ..settings import Kind, setting
from .prompt import IDK, Prompt

WORD_RE = re.compile(r"\w+", re.UNICODE)
SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=\S)")
TABLE_RULE_RE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")

# Function words of questions in English and Spanish: they say how something is asked,
# not what about, and would let any sentence "support" a question.
QUESTION_STOPWORDS = frozenset("""
a an the of to in on at for with by from and or is are was were be been do does did how what
whats which when where who why can could should would will i you it its this that these those
my your me use used using say said tell there their them they we our as if not no
el la los las un una unos unas de del al a en con por para y o u es son se que qué cómo como
cuál cuáles cuándo dónde quién mi tu su sus lo le les me te nos este esta estos estas ese esa
hay dice digo usa usar uso
""".split())


@dataclass(frozen=True)
class Answer:
    text: str
    citations: list[str]  # chunk ids the answer cites
    abstained: bool
    score: float  # support: share of the question's content words found in the contexts
    latency_ms: float


READERS: dict[str, type["Reader"]] = {}


class Reader(Kind):
    """Answers a prompt: `generate(prompt, max_new_tokens)` -> Answer, citing the prompt's chunks."""
    registry, label = READERS, "reader"

    @property
    def name(self) -> str:
        return self.type

    @classmethod
    def from_settings(cls, settings) -> "Reader":
        raise NotImplementedError

    def generate(self, prompt: Prompt, max_new_tokens: int | None = None) -> Answer:
        raise NotImplementedError


def stem(word: str) -> str:
    return word[:6]


def content_words(text: str) -> list[str]:
    seen: list[str] = []
    for w in WORD_RE.findall(text.lower()):
        if w not in QUESTION_STOPWORDS and stem(w) not in seen:
            seen.append(stem(w))
    return seen


def word_set(text: str) -> set[str]:
    return {stem(w) for w in WORD_RE.findall(text.lower())}


def table_cells(line: str) -> str:
    return " | ".join(c.strip() for c in line.strip().strip("|").split("|"))


def candidates(context: str) -> list[tuple[str, set[str]]]:
    """(text to answer with, words it is matched on) for each sentence and table row."""
    out: list[tuple[str, set[str]]] = []
    lines = [line.strip() for line in context.split("\n")]
    heading, header = "", ""
    for i, line in enumerate(lines):
        if not line.startswith("|"):
            header = ""  # a table ended: its header names no later row
        if not line or TABLE_RULE_RE.match(line) or not WORD_RE.search(line):
            continue
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif line.startswith("|"):
            if i + 1 < len(lines) and TABLE_RULE_RE.match(lines[i + 1]) and lines[i + 1].startswith("|"):
                header = line  # the row above |---| names the columns; it is not an answer
                continue
            shown = table_cells(line) + (f" ({table_cells(header)})" if header else "")
            out.append((shown, word_set(line) | word_set(header) | word_set(heading)))
        else:
            out.extend((s.strip(), word_set(s)) for s in SENTENCE_END_RE.split(line.lstrip("-*> ")) if s.strip())
    return out


@dataclass(frozen=True)
class ExtractiveSettings:
    threshold: float = setting(0.5, minimum=0, maximum=1)  # abstain below this share of question words found


class ExtractiveReader(Reader):
    type, Settings = "extractive", ExtractiveSettings

    def __init__(self, threshold: float = ExtractiveSettings.threshold):
        self.threshold = threshold

    @classmethod
    def from_settings(cls, settings: ExtractiveSettings) -> "ExtractiveReader":
        return cls(threshold=settings.threshold)

    def generate(self, prompt: Prompt, max_new_tokens: int | None = None) -> Answer:
        t0 = time.perf_counter()
        query_words = content_words(prompt.query)
        cands = [(n, text, words) for n, ctx in enumerate(prompt.contexts, start=1)
                 for text, words in candidates(ctx)]
        best, support = None, 0.0
        if query_words and cands:
            df = {w: sum(1 for _, _, ws in cands if w in ws) for w in query_words}
            support = sum(1 for w in query_words if df[w] > 0) / len(query_words)
            total = len(cands)
            for order, (n, text, ws) in enumerate(cands):
                weight = sum(math.log((total + 1) / (df[w] + 0.5)) for w in query_words if w in ws)
                if weight > 0 and (best is None or (weight, -order) > best[0]):
                    best = ((weight, -order), n, text)
        latency_ms = (time.perf_counter() - t0) * 1000.0
        if best is None or support < self.threshold:
            return Answer(IDK, [], True, support, latency_ms)
        _, n, text = best
        return Answer(f"{text} [#{n}]", [prompt.citations[n - 1]], False, support, latency_ms)


def make_reader(spec: Mapping[str, Any]) -> Reader:
    """The reader a config entry {type: ..., settings...} names, built from its checked settings."""
    cls, settings = Reader.settings_of(spec, "reader")
    return cls.from_settings(settings)
