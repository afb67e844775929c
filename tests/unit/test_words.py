"""The one home of words: patterns, the fold, the stems, and the Snowball entry point."""

import pytest

from minirag.text.words import (
    LETTERS_RE,
    TERM_RE,
    WORD_RE,
    crude_stem,
    fold,
    fold_accents,
    prefix_stem,
    prefix_stems,
    snowball,
    word_set,
)


def test_the_three_patterns_keep_what_their_names_say():
    text = "Don't pay 34 EUR for a well-known_part, Señor"
    assert WORD_RE.findall(text) == ["Don", "t", "pay", "34", "EUR", "for", "a", "well", "known_part", "Señor"]
    assert LETTERS_RE.findall(text) == ["Don", "t", "pay", "EUR", "for", "a", "well", "known", "part", "Señor"]
    assert TERM_RE.findall(text) == ["Don't", "pay", "EUR", "for", "a", "well-known", "part", "Señor"]


def test_fold_casefolds_and_drops_accents_and_leaves_ascii_alone():
    assert fold("Tuvé ÑANDÚ Straße") == "tuve nandu strasse"
    assert fold_accents("trabajó") == "trabajo" and fold_accents("plain") == "plain"
    assert fold_accents("한국어") == "한국어"  # recomposed: a Hangul syllable is no letter plus marks
    assert word_set("The the THE 3") == {"the", "3"}


def test_the_crude_stems_meet_where_the_readers_need_them():
    assert prefix_stem("conjugation") == prefix_stem("conjugate") == "conjug"
    assert prefix_stems("Conjugate the conjugation") == {"conjug", "the"}
    assert crude_stem("meaning") == crude_stem("mean") and crude_stem("founded") == crude_stem("founding")
    assert crude_stem("Informaciones") == crude_stem("información") == "inform"
    assert crude_stem("is") == "is" and crude_stem("uses") == "use"  # three letters stay before an ending


def test_snowball_stems_and_names_what_it_knows_when_asked_for_an_unknown_algorithm():
    pytest.importorskip("Stemmer")
    assert snowball("english").stemWord("running") == "run"
    with pytest.raises(ValueError, match=r"unknown stemmer 'klingon' \(PyStemmer knows: .*english"):
        snowball("klingon")
