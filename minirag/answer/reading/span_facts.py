"""Facts any corpus has: a typed span of a prose line (a quantity, a date, a number, a name) with the
cloze question that asks for it, for the Mini-GPT's reading tasks.

    span_facts(docs, seed=0)
    -> [Fact(kind="span-number", key="How long do I knead the dough?", value="10 minutes",
             line="Knead the dough for 10 minutes until smooth.", question="How long ...?", ...), ...]

A span becomes a fact when it stands once in its line, its sentence has six words or more and the span
five or fewer (spans.py finds them, cloze.py writes the question as the generic reader's synthesised
questions are written). Its swaps are other spans of its kind in its document, else in documents of
its language. The reading tasks use these where the tables and shaped prose of facts.py give too few
(a recipe book, a policy in prose), so the Mini-GPT trains on any corpus with sentences.

What it leaves out: tables (facts.py `row_facts` reads them), questions needing two sentences, and a
corpus with no sentence of six words (the tasks stop with an error naming the facts found).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..select.attributes import ASK, with_unit
from ..select.candidates import plain, sentences
from ..select.spans import spans_of
from .cloze import LIST_RE, asked_by_attribute, cloze
from .facts import MAX_ANSWER_WORDS, Fact, contains, doc_sections, n_words

KINDS = ("number", "date", "name")  # typed spans: a phrase span's cloze rarely reads as a question
MIN_SENTENCE_WORDS = 6
MAX_ALTERNATIVES = 20
MAX_FACTS = 4000  # a sample of a large corpus's spans: the tasks draw a few thousand at most


def span_facts(docs: list[dict], seed: int = 0) -> list[Fact]:
    """The corpus's span facts in document order (a seeded sample of MAX_FACTS when there are more)."""
    rng = np.random.default_rng([seed, 41])
    out: list[Fact] = []
    for doc in docs:
        prose = [(heading, ln.text) for heading, lines in doc_sections(doc) for ln in lines if ln.kind != "row"]
        for i, (heading, line) in enumerate(prose):
            out += line_facts(doc, heading, line, i, rng)
    if len(out) > MAX_FACTS:
        keep = set(np.random.default_rng([seed, 42]).permutation(len(out))[:MAX_FACTS].tolist())
        out = [f for j, f in enumerate(out) if j in keep]
    return with_span_alternatives(out)


def line_facts(doc: dict, heading: str, line: str, i: int, rng: np.random.Generator) -> list[Fact]:
    out = []
    for sentence in sentences(LIST_RE.sub("", line)):
        s = plain(sentence)
        if n_words(s) < MIN_SENTENCE_WORDS:
            continue
        for kind, span in spans_of(s):
            if kind not in KINDS:
                continue
            lo = line.find(span)
            if n_words(span) > MAX_ANSWER_WORDS or lo < 0 or contains(line[:lo] + line[lo + len(span):], span):
                continue  # too long, reworded by the markup, or twice in the line: which one is asked?
            question = ask(s, kind, span, rng)
            out.append(Fact(f"span-{kind}", doc["doc_id"], doc.get("lang", ""), question, kind, span, line,
                            (lo, lo + len(span)), doc["doc_id"], heading, (), f"{kind} in line {i + 1}: {span}",
                            question))
    return out


def ask(sentence: str, kind: str, span: str, rng: np.random.Generator) -> str:
    """The cloze question for the span; a quantity with a unit asked by its attribute ("How long ...?")."""
    attributes = sorted(a for a in with_unit(span) if a in ASK) if kind == "number" else []
    return asked_by_attribute(sentence, attributes[0], span, rng) if attributes else cloze(sentence, kind, span, rng)


def with_span_alternatives(facts: list[Fact]) -> list[Fact]:
    """Each fact with up to MAX_ALTERNATIVES other values of its kind from its document, topped up from
    documents of its language (facts.py `with_alternatives`, grouped so a large corpus stays linear)."""
    by_doc: dict[tuple[str, str], list[str]] = {}
    by_lang: dict[tuple[str, str], list[str]] = {}
    for f in facts:
        by_doc.setdefault((f.kind, f.doc_id), []).append(f.value)
        by_lang.setdefault((f.kind, f.lang), []).append(f.value)

    def others(values: list[str], f: Fact) -> list[str]:
        return [v for v in dict.fromkeys(values) if v.casefold() != f.value.casefold()][:MAX_ALTERNATIVES]

    out = []
    for f in facts:
        alts = others(by_doc[(f.kind, f.doc_id)], f)
        if len(alts) < 3:
            alts = list(dict.fromkeys(alts + others(by_lang[(f.kind, f.lang)], f)))[:MAX_ALTERNATIVES]
        out.append(replace(f, alternatives=tuple(alts)))
    return out
