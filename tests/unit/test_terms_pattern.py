"""The grammatical terms' regex (domains/grammar/select/terms.py) written as a trie finds, everywhere, what the
alternation of the phrases sorted longest first finds: the same spans, the same phrases."""

from __future__ import annotations

import random
import re

import pytest

from minirag.domains.grammar.select.terms import DEFAULT_TERMS, GrammarTerms, fold, phrase_pattern


def alternation(phrases) -> re.Pattern:
    body = "|".join(re.escape(p) for p in sorted(phrases, key=lambda p: (-len(p), p)))
    return re.compile(rf"(?<![\w-])(?:{body})(?![\w-])")


def spans(pattern: re.Pattern, text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in pattern.finditer(text)]


def test_the_shipped_terms_match_as_their_alternation_does():
    phrases = GrammarTerms.load(DEFAULT_TERMS, {"past tense": ["pretérito indefinido"]}).phrases
    texts = ["Pretérito perfecto compuesto: he comido", "the past participle of go", "-ing form or -ing?",
             "presente de indicativo de conocer, yo", "tú / él / ella", "1st person singular, past simple"]
    rng = random.Random(0)
    words = [w for p in phrases for w in p.split()] + ["-", "x", "'", "de"]
    texts += [" ".join(rng.choice(words) for _ in range(rng.randint(1, 8))) for _ in range(2000)]
    trie, alt = phrase_pattern(phrases), alternation(phrases)
    for text in map(fold, texts):
        assert spans(trie, text) == spans(alt, text)


@pytest.mark.parametrize("seed", range(40))
def test_random_phrases_match_as_their_alternation_does(seed):
    rng = random.Random(seed)
    phrases = {"".join(rng.choice("ab -'é") for _ in range(rng.randint(1, 5))).strip() or "a"
               for _ in range(rng.randint(1, 12))}
    trie, alt = phrase_pattern(phrases), alternation(phrases)
    for _ in range(200):
        text = "".join(rng.choice([*phrases, " ", "-", "a", "b", "x"]) for _ in range(rng.randint(1, 6)))
        assert spans(trie, text) == spans(alt, text)


def test_phrases_nested_too_deeply_for_a_trie_are_matched_as_their_alternation():
    phrases = {"a" * n for n in range(1, 1500)}
    pattern = phrase_pattern(phrases)
    assert spans(pattern, "b " + "a" * 20 + " c") == [(2, 22, "a" * 20)]
