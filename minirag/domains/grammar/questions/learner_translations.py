"""Cross-language learner questions that quote a phrase to translate: "how do you say 'I had' in Spanish?".

A Spanish table cell (tener, yo, pretérito -> tuve) is asked for the way an English speaker asks: by the
English phrase it translates. The phrase is built from the corpus itself: the lemma's English translation
from the lexicon ("tener" -> "to have"), its form from the corpus's English tables where they give it
("have", past simple -> "had"; else the regular ending), and the pronoun of the cell's person:

    preterite "I had"    present "he has"    future "we will have"    conditional "they would have"
    imperfect "I used to have"    subjunctive "that I have"    command "have!" / "don't have!"

`translation_questions(docs, terms, lexicon, n, rng)` -> [(query, answer, source)].

What it leaves out: English irregular forms the corpus does not list (the regular ending is guessed, so
"I runned" can be asked: a learner's slip, answered all the same), and the reverse direction (Spanish
phrases for English forms: the Spanish tables seldom hold the verbs the English ones do).
"""

from __future__ import annotations

import numpy as np

from minirag.answer.reading.facts import table_rows

from ..select.terms import GrammarTerms, fold

PRONOUNS = {"person:1s": "I", "person:2s": "you", "person:3s": "he", "person:1p": "we", "person:2p": "you all",
            "person:3p": "they"}
BE = {"person:1s": "am", "person:3s": "is"}
TEMPLATES = ("how do you say '{P}' in Spanish?", "'{P}' in Spanish?", "Spanish for '{P}'",
             "how would I say '{P}' in Spanish ({L})?", "what's '{P}' in Spanish?", "how do I say '{P}' using {L}?")


def regular_past(verb: str) -> str:
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + "ed"


def third_person(verb: str) -> str:
    if verb == "have":
        return "has"
    if verb.endswith(("s", "sh", "ch", "x", "o")):
        return verb + "es"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


class EnglishForms:
    """The past simple and past participle of English verbs, from the corpus's English tables."""

    def __init__(self, docs: list[dict], terms: GrammarTerms):
        self.forms: dict[tuple[str, str], str] = {}
        for doc in (d for d in docs if d.get("lang") == "en"):
            for _, _, _, header, row in table_rows(doc):
                for column, cell in zip(header[1:], row[1:]):
                    for concept in terms.labels(column):
                        word = cell.split("/")[0].strip()
                        if concept in ("tense:preterite", "form:past_participle") and word.isalpha():
                            self.forms.setdefault((fold(row[0]), concept), word)

    def phrase(self, verb: str, concepts: set[str]) -> str | None:
        """The English phrase for a Spanish cell's concepts, or None when English has none of its own."""
        person = next((c for c in concepts if c.startswith("person:")), "person:1s")
        pronoun = PRONOUNS[person]
        if "mood:imperative" in concepts:
            return f"don't {verb}!" if "polarity:negative" in concepts else f"{verb}!"
        if "mood:subjunctive" in concepts:
            return f"that {pronoun} {verb}"
        if "tense:preterite" in concepts:
            return f"{pronoun} {self.forms.get((verb, 'tense:preterite'), regular_past(verb))}"
        if "tense:future" in concepts:
            return f"{pronoun} will {verb}"
        if "tense:conditional" in concepts:
            return f"{pronoun} would {verb}"
        if "tense:imperfect" in concepts:
            return f"{pronoun} used to {verb}"
        if "tense:present" in concepts:
            if verb == "be":
                return f"{pronoun} {BE.get(person, 'are')}"
            return f"{pronoun} {third_person(verb) if person == 'person:3s' else verb}"
        return None


def english_verb(lemma: str, lexicon: dict[str, list[str]]) -> str | None:
    """A one-word English translation of a Spanish verb ("tener" -> "have"), from the lexicon."""
    for other in lexicon.get(fold(lemma), []) + lexicon.get(lemma, []):
        word = other.removeprefix("to ").strip()
        if word.isalpha() and fold(word) != fold(lemma):
            return word
    return None


def translation_questions(docs: list[dict], terms: GrammarTerms, lexicon: dict[str, list[str]], n: int,
                          rng: np.random.Generator) -> list[tuple[str, str, str]]:
    """Up to n (query, answer, source) questions quoting the English of a Spanish table cell."""
    english = EnglishForms(docs, terms)
    cells = []
    for doc in (d for d in docs if d.get("lang") == "es"):
        for _, _, heading, header, row in table_rows(doc):
            caption = f"{doc.get('title', '')} {heading}"
            for column, value in zip(header[1:], row[1:]):
                key_concepts, column_concepts = terms.labels(row[0]), terms.labels(column)
                lemma = column if key_concepts and not column_concepts else row[0]
                concepts = key_concepts | column_concepts
                dims = {c.split(":")[0] for c in concepts}
                concepts |= {c for c in terms.concepts(caption) if c.split(":")[0] not in dims}
                verb = english_verb(lemma.split("(")[0].strip(), lexicon)
                phrase = english.phrase(verb, concepts) if verb and value and len(value.split()) <= 3 else None
                if phrase:
                    cells.append((phrase, lemma.split("(")[0].strip(), value, f"{doc['doc_id']} row {row[0]} · {column}"))
    out = []
    for i in (rng.permutation(len(cells))[:n].tolist() if cells else []):
        phrase, lemma, value, source = cells[i]
        template = TEMPLATES[int(rng.integers(len(TEMPLATES)))]
        out.append((template.format(P=phrase, L=lemma), value, source))
    return out
