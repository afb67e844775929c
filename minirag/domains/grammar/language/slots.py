"""The tenses and grammatical persons a piece of text names: a table's header, a heading, a query.

A verb's form fills a slot of its paradigm, a tense and a person: *tuve* is tener's past, first
person singular. The lexicon stage (verb_forms.py) reads the slots off the headers of the conjugation
tables it mines ("Pretérito indefinido irregular", "Past participle", "yo", "él / ella / usted"), and
query expansion (expand.py) off the query ("how do you say 'I had' in the preterite"). Both sides
name them with the labels of two small word lists, data/tenses.txt and data/persons.txt, so that an
English table's "Past simple" and a Spanish one's "Pretérito indefinido" are the same `past`:

    >>> tenses_in("Pretérito imperfecto de subjuntivo"), tenses_in("Base form | Past participle")
    (['subjunctive-imperfect'], ['participle'])
    >>> tenses_in("Pretérito indefinido o imperfecto"), persons_in("él / ella / usted"), persons_in("I had")
    (['imperfect', 'past'], ['3sg'], ['1sg'])

A query may also call for a tense without naming it: "if I were rich", "quiero que me lo ___" (`implied_tenses`,
data/constructions.txt); its persons are its pronouns, the English ones only where quoted (`query_persons`).

What it leaves out: where the text comes from (which header a form sits under is verb_forms.py's to know),
moods and aspects as such (a label is one row of tenses.txt), and any other language.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Container

from minirag.text.words import LETTERS_RE, fold_accents

DATA_DIR = Path(__file__).parent.parent / "data"  # the grammar domain's word lists

QUOTED_RE = re.compile(r"['‘\"“«(]([^'’\"”»)]{1,80})['’\"”»)]")  # a quoted or bracketed stretch
IMPERATIVE_RE = re.compile(r"¡|\w!")  # an opening ¡, or ! right after a word: "go to the shop!", not "?!"


def list_files(*names: str) -> tuple[str, ...]:
    """The files of these word lists (data/<name>.txt): inputs of the jobs that read them, so editing one reruns
    them (pipeline/kind_files.py)."""
    return tuple(str(DATA_DIR / f"{name}.txt") for name in names)


# which lists each reader of this module reads: the lexicon stage the headers' (verb_forms.py), query
# expansion a query's tense (and person: expand.py), the answer selector a construction's (analysis.py)
PARADIGM_LISTS, QUERY_TENSE_LISTS, CONSTRUCTION_LISTS = ("tenses", "persons"), ("tenses", "constructions"), ("constructions",)


def read_labels(name: str) -> dict[str, list[str]]:
    """`label<TAB>phrase | phrase` lines of data/<name>.txt as {label: [phrases]}; `#` starts a comment."""
    out: dict[str, list[str]] = {}
    for line in (DATA_DIR / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            label, _, phrases = line.partition("\t")
            out[label.strip()] = [p.strip() for p in phrases.split("|") if p.strip()]
    return out


@lru_cache(maxsize=2)
def tense_phrases(name: str = "tenses") -> list[tuple[tuple[str, ...], str]]:
    """(words of a phrase, its tense) of data/<name>.txt, longest phrase first (ties in file order, so the
    list is fixed)."""
    pairs = [(tuple(phrase.split()), tense) for tense, phrases in read_labels(name).items() for phrase in phrases]
    return sorted(pairs, key=lambda p: -len(p[0]))


@lru_cache(maxsize=1)
def person_words() -> dict[str, str]:
    """pronoun -> person, every pronoun of data/persons.txt (its ~ mark dropped)."""
    return {word.lstrip("~"): person for person, words in read_labels("persons").items() for word in words}


@lru_cache(maxsize=1)
def weak_person_words() -> frozenset[str]:
    """The pronouns marked ~ in data/persons.txt: in a query, a person only inside quotes or brackets."""
    return frozenset(word[1:] for words in read_labels("persons").values() for word in words if word.startswith("~"))


def tenses_in(text: str, phrases: str = "tenses") -> list[str]:
    """The tenses `text` names, sorted; a longer phrase takes its words first ("past participle": participle).
    `phrases`: the word list that names them (data/<phrases>.txt)."""
    words = LETTERS_RE.findall(fold_accents(text.lower()))
    taken, found, present = [False] * len(words), set(), set(words)
    for phrase, tense in (p for p in tense_phrases(phrases) if p[0][0] in present):  # the same order, fewer tried
        n = len(phrase)
        for i in range(len(words) - n + 1):
            if tuple(words[i:i + n]) == phrase and not any(taken[i:i + n]):
                taken[i:i + n] = [True] * n
                found.add(tense)
    return sorted(found)


def implied_tenses(text: str) -> list[str]:
    """The tenses the constructions of `text` call for when it names none (data/constructions.txt): "if I were
    rich" the imperfect subjunctive, "quiero que me lo ___" the present subjunctive, a quoted order ("go to the
    shop!", "¡ven!") the imperative; sorted."""
    found = set(tenses_in(text, "constructions"))
    if IMPERATIVE_RE.search(text):
        found.add("imperative")
    return sorted(found)


def person_list(text: str) -> list[str]:
    """The persons of `text`'s pronouns in the order written, one per pronoun ("yo / él": 1sg, 3sg)."""
    table = person_words()
    return [table[w] for w in LETTERS_RE.findall(text.lower()) if w in table]


def persons_in(text: str) -> list[str]:
    """The persons `text` names, sorted, each once."""
    return sorted(set(person_list(text)))


def query_persons(query: str, verb_forms: Container[str] = ()) -> list[str]:
    """The persons a query asks about, sorted: its strong pronouns anywhere ("pedir, él"), its weak ones
    (English: data/persons.txt's ~) only where it quotes or brackets them ("'I had'", "(salir, I form)"), since
    "how do I say" names the asker; and not a weak one that is also one of `verb_forms` (the corpus's: «he
    hacido» is haber's *he*, not "he")."""
    table, weak = person_words(), weak_person_words()
    found = {table[w] for w in LETTERS_RE.findall(query.lower()) if w in table and w not in weak}
    for m in QUOTED_RE.finditer(query.lower()):
        found.update(table[w] for w in LETTERS_RE.findall(m.group(1)) if w in table and w not in verb_forms)
    return sorted(found)
