"""Off-topic questions: what a learner might ask a grammar corpus that it does not answer, made from its own examples.

A grammar's example sentences talk about the world ("Paris, which is the capital of France, is famous for its
museums."), so the words of a question about the world — "What is the capital of France?" — can sit in a
retrieved chunk while the corpus says nothing about them. `offtopic_questions(docs, vocab, n, seed)` asks
about the content words of the corpus's quoted and emphasised examples (sometimes one replaced by an
invented word, as a place the corpus never names), with the question words of a fact question, in English
and Spanish; every one is unanswerable (answer None), so the selector's "none of them" learns that a
question naming no form, lemma or grammatical concept is not the corpus's to answer.

    offtopic_questions(docs, vocab, 150, seed=0)   # on the KB
    -> [LearnerQuestion(query="Where is World?", answer=None, family="offtopic", ...),
        ... "What is the hours of waiting?", "¿Dónde está Nueve?", "Who is Japan?" ...]

What it leaves out: questions about the examples' grammar (learner_questions.py asks those), and words that
are table keys, forms, lexicon entries, topics of its headings or name a grammatical concept (a question
about them may be one the corpus answers).
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from minirag.text.words import TERM_RE, fold

from ..select.vocabulary import Vocabulary, filler
from .learner_questions import CONSONANTS, VOWELS, LearnerQuestion

EXAMPLE_RE = re.compile(r"\*([^*\n]{8,120})\*|[\"“«]([^\"”»\n]{8,120})[\"”»]")
TEMPLATES = {
    "en": ("What is the {a} of {b}?", "Who is {A}?", "Where is {A}?", "When was {a} {b}?", "How many {a} are there in {b}?",
           "Tell me about {a} and {b}.", "What is {a}?", "Why is {a} so {b}?", "Who invented the {a}?"),
    "es": ("¿Cuál es la {a} de {b}?", "¿Quién es {A}?", "¿Dónde está {A}?", "¿Cuándo fue {a} {b}?", "¿Cuántos {a} hay en {b}?",
           "Háblame de {a} y {b}.", "¿Qué es {a}?", "¿Por qué {a} es tan {b}?", "¿Quién inventó el {a}?"),
}


def example_words(docs: list[dict], vocab: Vocabulary) -> list[list[str]]:
    """The content words (four letters or more, as written) of every quoted or emphasised example, less
    table keys, forms, question filler, words of a title or heading (the corpus's topics: "modal") and words
    naming a grammatical concept; examples with two or more."""
    topics = {fold(w) for d in docs for line in [d.get("title", "")] + d.get("text", "").split("\n")
              if line == d.get("title", "") or line.lstrip().startswith("#") for w in TERM_RE.findall(line)}
    out = []
    for d in docs:
        for line in d.get("text", "").split("\n"):
            if line.lstrip().startswith(("|", "#")):
                continue
            for m in EXAMPLE_RE.finditer(line):
                text = next(g for g in m.groups() if g)
                words = [w for w in TERM_RE.findall(text) if len(w) >= 4 and grammar_free(fold(w), vocab)
                         and fold(w) not in topics and not vocab.terms.concepts(w)]
                if len(set(words)) >= 2:
                    out.append(list(dict.fromkeys(words)))
    return out


def grammar_free(word: str, vocab: Vocabulary) -> bool:
    """Not a word a grammar question is about: no filler, table key, form or lexicon entry ("France", "museums")."""
    return (word not in filler() and word not in vocab.keys and word not in vocab.forms and word not in vocab.lexicon
            and f"to {word}" not in vocab.lexicon and "'" not in word)


def invented(rng: np.random.Generator) -> str:
    return "".join(str(rng.choice(CONSONANTS)) + str(rng.choice(VOWELS)) for _ in range(3)).capitalize()


def offtopic_questions(docs: list[dict], vocab: Vocabulary, n: int, seed: int = 0) -> list[LearnerQuestion]:
    """n unanswerable questions about the content of the corpus's examples (module docstring); seeded."""
    pool = example_words(docs, vocab)
    if not pool or n <= 0:
        return []
    rng = np.random.default_rng([seed, 31])
    out, seen = [], set()
    for _ in range(4 * n):
        if len(out) == n:
            break
        words = pool[int(rng.integers(len(pool)))]
        a, b = (str(w) for w in rng.choice(words, size=2, replace=False))
        if rng.random() < 0.3:
            b = invented(rng)
        lang = "en" if rng.random() < 0.5 else "es"
        templates = TEMPLATES[lang]
        query = templates[int(rng.integers(len(templates)))].format(a=a.lower(), b=b, A=a[:1].upper() + a[1:])
        if query in seen:
            continue
        seen.add(query)
        qid = "lq-" + hashlib.sha256(f"{query}\x1foff".encode("utf-8")).hexdigest()[:12]
        out.append(LearnerQuestion(qid, query, None, "offtopic", lang, "examples"))
    return out
