"""Guessing a verb's lemma from a form the form map lacks, by a regular ending (domains/grammar/language/inflection.py)."""

import doctest

from minirag.domains.grammar.language import inflection
from minirag.domains.grammar.language.inflection import guess_lemmas

LEMMAS = {"catch", "watch", "panic", "stop", "try", "make", "hacer", "buscar", "querer", "traer", "escribir", "teach"}


def test_a_misspelt_or_regularised_form_finds_its_lemma():
    assert guess_lemmas("catched", LEMMAS) == ["catch"]       # a regular ending on an irregular verb
    assert guess_lemmas("watchs", LEMMAS) == ["watch"]        # -s where -es belongs
    assert guess_lemmas("paniced", LEMMAS) == ["panic"]       # the k left out
    assert guess_lemmas("stopped", LEMMAS) == ["stop"]        # doubled consonant undone
    assert guess_lemmas("tried", LEMMAS) == ["try"]
    assert guess_lemmas("making", LEMMAS) == ["make"]         # -ing with the e restored
    assert guess_lemmas("hacio", LEMMAS) == ["hacer"]         # hació, accents folded
    assert guess_lemmas("hació", LEMMAS) == ["hacer"]         # and as written
    assert guess_lemmas("busce", LEMMAS) == ["buscar"]        # buscé for busqué
    assert guess_lemmas("querere", LEMMAS) == ["querer"]      # the future: infinitive + -é


def test_a_word_no_ending_reduces_to_a_lemma_finds_none():
    for word in ("beach", "table", "comida", "playa", "phone", "xyzzy"):
        assert guess_lemmas(word, LEMMAS) == [], word


def test_short_stems_and_the_word_itself_are_not_guesses():
    assert guess_lemmas("dos", {"do"}) == []          # a stem keeps MIN_STEM letters
    assert guess_lemmas("good", {"go"}) == []         # a doubled vowel is not undone
    assert guess_lemmas("catch", LEMMAS) == []        # a lemma is the form map's, not a guess


def test_guesses_are_deterministic_and_sorted():
    lemmas = {"pasar", "paser", "pasir"}
    first = guess_lemmas("paso", lemmas)
    assert first == sorted(first) == ["pasar", "paser", "pasir"]
    assert all(guess_lemmas("paso", set(sorted(lemmas, reverse=True))) == first for _ in range(3))
    assert guess_lemmas("paso", dict.fromkeys(lemmas)) == first  # a dict keyed by lemma works alike


def test_the_docstring_examples_hold():
    assert doctest.testmod(inflection).failed == 0
