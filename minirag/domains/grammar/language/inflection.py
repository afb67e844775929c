"""A verb's lemma for a form the lexicon's form map lacks, by taking off a regular ending.

The form map (lexicon.py) holds the forms the corpus's tables write: *caught*, *hizo*, *tuve*. A
learner writes forms no table holds: a regular ending on an irregular verb (*catched*, *hació*), a
misspelt one (*watchs*, *paniced*, *buscé*), a form of a tense the tables leave out. Take off an
English ending (-ed, -ied, -s, -es, -ing, with a doubled consonant undone) or a Spanish one (-ió,
-aron, -aba, -ía, -é, ...; then put -ar, -er or -ir back, or nothing: *quereré* is *querer* + -é) and
keep the stems that are lemmas of the map:

    >>> guess_lemmas("catched", {"catch", "eat"})
    ['catch']
    >>> guess_lemmas("hacio", {"hacer", "hablar"})   # accents folded, as the KB's analyzer folds them
    ['hacer']
    >>> guess_lemmas("stopped", {"stop"}), guess_lemmas("tried", {"try"}), guess_lemmas("querere", {"querer"})
    (['stop'], ['try'], ['querer'])
    >>> guess_lemmas("table", {"catch", "eat"})     # no ending leaves a lemma: no guess
    []

A stem keeps at least `MIN_STEM` letters, so short words guess nothing (*dos* is not *do* + -s).

What it leaves out: stem changes (*pidió* → pedir is the form map's to know), person and tense (a
guess names the verb, not the slot), and edit distance: on the KB's dev split a word one edit from a
known form found no lemma the endings did not, and matched real words to verbs (*beach* → teach,
*phone* → shine, *bueno* → sueño; bench/README.md).
"""

from __future__ import annotations

MIN_STEM = 3  # letters a stem keeps once its ending is off

# (ending, what replaces it): English past, third person and -ing; y and e restored where they went
ENGLISH = (("ied", "y"), ("ies", "y"), ("ed", ""), ("d", ""), ("es", ""), ("s", ""), ("ing", ""), ("ing", "e"))
# Spanish endings of the simple tenses, participles and gerunds, as written and with accents folded
SPANISH = tuple(sorted({e for ending in """ieron aron asteis isteis aste iste ió io imos amos ábamos abamos abais aban abas
    aba íamos iamos íais iais ían ian ías ias ía ia é e í i ó o ado ido ando iendo ara aras aran iera ieras ieran ase iese
    áis ais éis eis ís is an en as es a emos""".split() for e in (ending,)}, key=lambda e: (-len(e), e)))
INFINITIVES = ("ar", "er", "ir", "")
VOWELS = set("aeiouyáéíóú")


def guess_lemmas(word: str, lemmas) -> list[str]:
    """The lemmas of `lemmas` (a set, or a dict keyed by lemma) that `word` is with a regular ending taken
    off, sorted; none when no ending leaves one. Deterministic: the same word and lemmas, the same list."""
    found: set[str] = set()
    for ending, restore in ENGLISH:
        if word.endswith(ending):
            stem = word[:len(word) - len(ending)]
            for s in (stem + restore, undouble(stem)):
                if len(s) >= MIN_STEM and s in lemmas:
                    found.add(s)
    for ending in SPANISH:
        if word.endswith(ending):
            stem = word[:len(word) - len(ending)]
            if len(stem) >= MIN_STEM:
                found.update(stem + inf for inf in INFINITIVES if stem + inf in lemmas and stem + inf != word)
    found.discard(word)
    return sorted(found)


def undouble(stem: str) -> str:
    """A doubled final consonant made single ("stopp" -> "stop"); any other stem as it is."""
    return stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in VOWELS else stem
