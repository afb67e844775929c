"""The files the grammar's jobs read besides the corpus's chunks: its terms file and its word lists.

What it leaves out: reading them (select/terms.py, language/slots.py).
"""

from __future__ import annotations

from minirag.artifacts.io import as_input

from .language.slots import CONSTRUCTION_LISTS, PARADIGM_LISTS, QUERY_TENSE_LISTS, list_files
from .select.terms import DEFAULT_TERMS


def reader_files(corpus) -> dict:
    """What the answer selector reads of the grammar ("reader.files", of a config/typed.py `Corpus`): the terms
    file (candidates.terms, else the one the domain ships) and the word lists it reads a question's
    construction with."""
    return {"terms": corpus.candidates.terms or as_input(DEFAULT_TERMS), "lists": list_files(*CONSTRUCTION_LISTS)}


def expansion_lists(expand) -> tuple[str, ...]:
    """The word lists a query expansion reads ("query.word_lists"): a query's tense with `tenses`, its person
    with `persons` too."""
    return list_files(*QUERY_TENSE_LISTS, *(("persons",) if expand.persons > 0 else ()))


def paradigm_lists() -> tuple[str, ...]:
    """The tense and person lists the lexicon stage reads its paradigms with."""
    return list_files(*PARADIGM_LISTS)
