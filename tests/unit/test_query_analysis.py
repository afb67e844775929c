"""Query-side analysis: question filler dropped from queries only, never inside quotes; character n-grams."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minirag.text.analyze import QUOTED_RE, Analyzer, AnalyzerConfig, char_ngrams, load_stopwords


@pytest.fixture(scope="module")
def en():
    return Analyzer(AnalyzerConfig(query_stopwords=("en",)))


@pytest.fixture(scope="module")
def both():
    return Analyzer(AnalyzerConfig(query_stopwords=("en", "es")))


# ---------------------------------------------------------------- filler


def test_filler_is_dropped_from_a_query_and_kept_by_the_index(en):
    text = "What is the past participle of begin?"
    assert en.query_words(text) == ["past", "participle", "begin"]
    assert en.query(text) == ["past", "participle", "begin"]
    assert en(text) == ["what", "is", "the", "past", "participle", "of", "begin"]
    assert en.words(text) == en(text)


def test_without_filler_lists_a_query_is_analyzed_as_a_document():
    analyzer = Analyzer(AnalyzerConfig(stopwords=("en",)))
    text = "What is the past of 'do'?"
    assert analyzer.query(text) == analyzer(text) == ["what", "past", "do"]  # "is" and "the": index stopwords


def test_the_filler_lists_hold_question_words_but_not_the_verb_forms_questions_are_about():
    english, spanish = load_stopwords("en", "filler"), load_stopwords("es", "filler")
    assert {"what", "how", "the", "of", "does"} <= english and {"went", "been", "past"}.isdisjoint(english)
    assert {"cómo", "como", "qué", "que", "de"} <= spanish and {"fui", "es", "tuve", "por", "para"}.isdisjoint(spanish)


@pytest.mark.parametrize("opening,closing", [("'", "'"), ('"', '"'), ("«", "»"), ("‘", "’"), ("“", "”")])
def test_a_quoted_word_is_kept_even_when_it_is_filler(en, opening, closing):
    text = f"what is the past of {opening}do{closing}?"
    assert en.query_words(text) == ["past", "do"]
    assert QUOTED_RE.search(text).group(2) == "do"


def test_every_word_of_a_quoted_phrase_is_kept(both):
    assert both.query_words("what does “what is” mean") == ["what", "is"]
    assert both.query_words("¿qué significa «de que»?") == ["significa", "de", "que"]


def test_filler_between_and_after_quotes_is_still_dropped(en):
    assert en.query_words("'do' or 'does', which is it for the plural") == ["do", "does", "for", "plural"]


def test_an_apostrophe_inside_a_word_opens_no_quote(en):
    # "what's" and "it's": the apostrophe follows a letter, so the quote is 'be' alone
    assert en.query_words("what's the past of 'be' and it's forms") == ["past", "be", "forms"]
    assert en.query_words("what is the plural of 'don't'") == ["plural", "don", "t"]


def test_a_quote_that_is_never_closed_protects_nothing(en):
    assert en.query_words("what is the meaning of 'what") == []


def test_spanish_filler_goes_with_or_without_its_accent(both):
    assert both.query_words("¿Cómo se dice pretérito en inglés?") == ["pretérito", "inglés"]
    assert both.query_words("como se dice preterito en ingles") == ["preterito", "ingles"]


def test_filler_is_dropped_before_stemming_so_a_stem_that_looks_like_filler_stays():
    analyzer = Analyzer(AnalyzerConfig(query_stopwords=("en",), stemmer="porter"))
    # "tells" and "doing" are not filler though their stems "tell" and "do" are filler words
    assert analyzer.query("what tells the doing of cities") == ["tell", "do", "citi"]
    assert analyzer("what tells the doing of cities") == ["what", "tell", "the", "do", "of", "citi"]


def test_filler_matches_words_after_the_same_case_step():
    kept_case = Analyzer(AnalyzerConfig(query_stopwords=("en",), lowercase=False))
    assert kept_case.query_words("What is the past of go") == ["What", "past", "go"]
    assert Analyzer(AnalyzerConfig(query_stopwords=("en",)))("WHAT") == ["what"]


# ---------------------------------------------------------------- accent folding and the filler list


def test_folding_folds_the_filler_list_too():
    folded = Analyzer(AnalyzerConfig(query_stopwords=("es",), fold_accents=True))
    assert folded.query_words("¿CUÁL es el pretérito de IR?") == ["es", "preterito", "ir"]
    assert folded.query_words("¿Cuál es el pretérito de 'qué'?") == ["es", "preterito", "que"]  # quoted: kept
    assert folded.is_filler("cual") and not folded.is_filler("cuál")  # the list is matched as words are, folded


@pytest.mark.parametrize("word", ["sé", "dé", "él"])
def test_folding_does_not_turn_a_verb_form_into_filler(word):
    plain = Analyzer(AnalyzerConfig(query_stopwords=("es",)))
    folded = Analyzer(AnalyzerConfig(query_stopwords=("es",), fold_accents=True))
    text = f"conjugación de {word}"
    assert plain.query_words(text) == ["conjugación", word]  # without folding the accent tells them apart
    assert folded.query_words(text) == ["conjugacion", word.replace("é", "e")]


WORDS = ["what", "is", "the", "of", "past", "begin", "went", "cómo", "de", "pretérito", "dice", "x1"]
QUOTES = [("'", "'"), ('"', '"'), ("«", "»"), ("“", "”")]


@st.composite
def questions(draw):
    """Words with some runs quoted; returns (text, the words outside quotes, the words inside)."""
    parts, outside, inside = [], [], []
    for _ in range(draw(st.integers(0, 6))):
        ws = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))
        if draw(st.booleans()):
            o, c = draw(st.sampled_from(QUOTES))
            parts.append(o + " ".join(ws) + c)
            inside += ws
        else:
            parts.append(" ".join(ws))
            outside += ws
    return " ".join(parts) + draw(st.sampled_from(["", "?", "."])), outside, inside


@settings(max_examples=100, deadline=None)
@given(questions())
def test_a_query_keeps_its_quoted_words_and_its_non_filler_words_in_order(both, q):
    text, _, inside = q
    kept = both.query_words(text)
    words = both(text)
    it = iter(words)
    assert all(w in it for w in kept)  # a subsequence of the document-side words
    dropped = list(words)
    for w in kept:
        dropped.remove(w)
    assert all(both.is_filler(w) for w in dropped)
    assert [w for w in words if not both.is_filler(w)] == [w for w in kept if not both.is_filler(w)]
    assert sum(both.is_filler(w) for w in kept) == sum(both.is_filler(w) for w in inside)


# ---------------------------------------------------------------- character n-grams


def test_character_ngrams_mark_the_word_boundaries():
    assert char_ngrams(["hizo"], 3) == ["_hi", "hiz", "izo", "zo_"]
    assert char_ngrams(["ab", "c"], 2) == ["_a", "ab", "b_", "_c", "c_"]
    assert char_ngrams([], 3) == []


def test_a_word_shorter_than_n_is_one_marked_gram():
    assert char_ngrams(["a"], 3) == ["_a_"] and char_ngrams(["a"], 5) == ["_a_"]


def test_the_marks_tell_a_prefix_from_the_same_letters_inside_a_word():
    assert "_ha" in char_ngrams(["hacer"], 3) and "_ha" not in char_ngrams(["chacer"], 3)


def test_a_misspelt_form_still_shares_grams_with_the_right_one():
    assert set(char_ngrams(["hació"], 3)) & set(char_ngrams(["hacer"], 3)) == {"_ha", "hac"}


def test_ngram_queries_drop_filler_before_cutting_words():
    analyzer = Analyzer(AnalyzerConfig(query_stopwords=("en",), char_ngrams=3))
    assert analyzer.query("what is hizo") == char_ngrams(["hizo"], 3)
    assert analyzer("what is hizo") == char_ngrams(["what", "is", "hizo"], 3)


def test_ngrams_are_cut_from_stemmed_and_folded_words():
    analyzer = Analyzer(AnalyzerConfig(fold_accents=True, stemmer="porter", char_ngrams=4))
    assert analyzer("Cafés") == char_ngrams(["cafe"], 4)
