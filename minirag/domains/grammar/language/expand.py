"""Query expansion from the corpus's own lexicon: a query word's translations and inflected forms.

"¿Cómo se dice 'comí' en inglés?" shares no word with the English page that answers it, and
"I had" no word with the Spanish table that holds *tuve*. The `lexicon` stage (lexicon.py, verb_forms.py)
mines the corpus for an English↔Spanish term map and a form → lemma map; this module turns
each query word into one *concept* with weighted alternatives:

    comí -> {comí: 1, comer: f, como: f, comiste: f, ..., eat: t, ate: t·f, eaten: t·f}

    f = `forms` (its lemma and the lemma's other forms)   t = `translations`

and a phrase of the query that the lexicon knows ("past participle") adds one concept of
its translation's words. A retriever scores a concept by its best alternative in a chunk,
weighted (max, not sum), so a chunk that holds a word *and* its translation does not count
the concept twice: the structured query of Pirkola (SIGIR 1998), in its weighted form.

Four options for verbs, off by default:
- `paradigm`: a word with a lemma becomes a `Paradigm` concept, whose alternatives add up in a
  chunk instead of counting once: the row "| hacer | hice | hiciste | hizo | ... |" and the arrow
  "tener → tuve" outrank a page that says *hace* in passing, since they state the verb's forms.
- `endings`: a word the form map lacks gets the lemma a regular ending leaves (inflection.py):
  *catched* → catch (caught), *hació* → hacer (hizo), *watchs* → watch.
- `tenses` (a factor, 0: off): a verb's forms in the tense the query names ("in the preterite",
  "el participio"; slots.py) or, naming none, the tense its construction calls for ("if I were", "quiero
  que", a quoted "go to the shop!"; data/constructions.txt) count that many times as much, and so do a translation's forms in the
  tense of the query's own form: "how do you say 'I gave' in Spanish" weighs up dar's past (*di*,
  *diste*, *dio*, ...) over its eight other tenses, so the past table's row outranks the present's.
  The lexicon's "paradigms" (lemma → tense → person → forms, verb_forms.py) say which form is which,
  and their endings the tense of a form they lack (*hació*: -ió ends comió, vivió: past); a verb they
  do not place in that tense keeps its forms at one weight, as without the option.
- `persons` (a factor, 0: off; with `tenses`): of those, the forms in the person the query asks about (its
  pronouns; an English one only quoted: "'I had'", "(pedir, él)"; slots.py `query_persons`) count that many
  times more again: *pidió* over *pedí, pidieron*, so the chunks holding the very form the answer is rise.

What it leaves out: mining the lexicon (lexicon.py, verb_forms.py), scoring (index/bm25/index.py
`search_concepts`), and words of indexes cut into character n-grams, whose terms are not
words (a config check refuses expansion on them).
"""

from __future__ import annotations

import os
from pathlib import Path

from minirag.text.analyze import Analyzer
from minirag.text.expansion import ExpansionSettings

from .inflection import MIN_STEM, guess_lemmas
from .slots import implied_tenses, query_persons, tenses_in

Concept = dict[str, float]  # index term -> weight of the best way to match it

MAX_PHRASE = 3  # longest lexicon key matched as a phrase of the query


class Paradigm(dict):
    """A concept whose alternatives add up in a chunk (a verb's forms), where a `Concept`'s best one counts
    (BM25Index.search_concepts reads `adds_up`)."""
    adds_up = True


Paradigms = dict[str, dict[str, dict[str, list[str]]]]  # lemma -> tense -> person -> forms (verb_forms.py)


def load_lexicon(path: str | Path, paradigms: bool = False):
    """(lexicon, forms) from a lexicon stage's file (lexicon.py `save_lexicon`), and its paradigms
    ({} in a file written before them) as a third item when `paradigms`; ValueError naming it if not."""
    from minirag.artifacts.io import read_json
    data = read_json(path)
    if not isinstance(data, dict) or not all(isinstance(data.get(k), dict) for k in ("lexicon", "forms")):
        raise ValueError(f"{path}: not a lexicon ({{\"lexicon\": {{...}}, \"forms\": {{...}}}}); re-run lexicon")
    return (data["lexicon"], data["forms"]) + ((data.get("paradigms") or {},) if paradigms else ())


class QueryExpander:
    """Concepts of a query under `analyzer`, from a lexicon {term: [translations]} and a form
    map {form: [lemmas]}, both normalised as the analyzer normalises words (case, accents)."""

    def __init__(self, analyzer: Analyzer, lexicon: dict[str, list[str]], forms: dict[str, list[str]],
                 settings: ExpansionSettings, paradigms: Paradigms | None = None):
        if analyzer.config.char_ngrams:
            raise ValueError("query expansion needs an index of words, not character n-grams")
        self.analyzer, self.s = analyzer, settings
        analyzed: dict[str, list[str]] = {}  # a lemma or translation recurs: each string is analyzed once

        def words(text: str) -> list[str]:
            if text not in analyzed:
                analyzed[text] = analyzer.words(text)
            return analyzed[text]

        self.lexicon: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
        for key, translations in lexicon.items():
            k = tuple(words(key))
            if k:
                self.lexicon.setdefault(k, set()).update(t for t in (self._content(x, words) for x in translations) if t)
        self.lemmas: dict[str, set[str]] = {}
        self.forms: dict[str, set[str]] = {}
        for form, lemmas in forms.items():
            f = words(form)
            if len(f) != 1:
                continue
            for lemma in lemmas:
                lw = words(lemma)
                if len(lw) == 1:
                    self.lemmas.setdefault(f[0], set()).add(lw[0])
                    self.forms.setdefault(lw[0], set()).update((lw[0], f[0]))
        # lemma -> tense -> its forms in that tense, lemma -> form -> the tenses it is a form of, and
        # (lemma, tense, person) -> its forms in that cell of the paradigm
        self.by_tense: dict[str, dict[str, set[str]]] = {}
        self.tenses_of: dict[str, dict[str, set[str]]] = {}
        self.by_cell: dict[tuple[str, str, str], set[str]] = {}
        for lemma, by_tense in (paradigms or {}).items() if settings.tenses > 0 else ():
            lw = words(lemma)
            if len(lw) != 1:
                continue
            for tense, by_person in by_tense.items():
                for person, forms_of in by_person.items():
                    for fw in (words(form) for form in forms_of):
                        if len(fw) == 1:
                            self.by_tense.setdefault(lw[0], {}).setdefault(tense, set()).add(fw[0])
                            self.tenses_of.setdefault(lw[0], {}).setdefault(fw[0], set()).add(tense)
                            if person:
                                self.by_cell.setdefault((lw[0], tense, person), set()).add(fw[0])
        # an ending -> the tenses it ends a form of, past the part the form shares with its lemma (comió: -ió
        # past; worked: -ed past, participle): what a form the map lacks says of its tense (hació, catched)
        self.ending_tenses: dict[str, set[str]] = {}
        for lemma, by_tense in self.by_tense.items():
            for tense, fs in by_tense.items():
                for form in fs:
                    if ending := self._ending(form, lemma):
                        self.ending_tenses.setdefault(ending, set()).add(tense)

    @classmethod
    def from_file(cls, path: str | Path, analyzer: Analyzer, settings: ExpansionSettings) -> "QueryExpander":
        """From a lexicon stage's file, checked against its receipt."""
        from minirag.artifacts.integrity import verified
        lexicon, forms, paradigms = load_lexicon(verified(path, "lexicon"), paradigms=True)
        return cls(analyzer, lexicon, forms, settings, paradigms)

    def _content(self, text: str, analyzed=None) -> tuple[str, ...]:
        """A translation's words less filler and the infinitive's "to" ("to eat" -> ("eat",)); `analyzed`:
        the analyzer's words of a text, when the caller keeps them."""
        words = (analyzed or self.analyzer.words)(text)
        if len(words) > 1 and words[0] == "to":
            words = words[1:]
        return tuple(w for w in words if not self.analyzer.is_filler(w))

    def lemmas_of(self, word: str) -> list[str]:
        """The lemmas the form map gives `word`, or with `endings` those a regular ending leaves, sorted."""
        if word in self.lemmas:
            return sorted(self.lemmas[word])
        return guess_lemmas(word, self.forms) if self.s.endings else []

    @staticmethod
    def _ending(form: str, lemma: str) -> str:
        """What `form` adds past the first letters it shares with `lemma` (at least MIN_STEM), or ""."""
        n = len(os.path.commonprefix([form, lemma]))
        return form[n:] if n >= MIN_STEM else ""

    def own_tenses(self, word: str, lemmas: list[str] | None = None) -> tuple[str, ...]:
        """The tenses `word` is a form of in the paradigms ("had": past and participle of have); for a word
        the form map lacks, those its ending ends in them (hació: -ió, past); none for a lemma or a word
        they do not place. `lemmas`: `lemmas_of(word)`, when the caller has them."""
        lemmas = self.lemmas_of(word) if lemmas is None else lemmas
        if word not in self.lemmas:
            return tuple(sorted({t for lemma in lemmas for t in self.ending_tenses.get(self._ending(word, lemma), ())}))
        return tuple(sorted({t for lemma in lemmas if lemma != word for t in self.tenses_of.get(lemma, {}).get(word, ())}))

    def forms_in(self, lemma: str, tenses: tuple[str, ...], persons: tuple[str, ...] = ()) -> dict[str, float]:
        """`lemma`'s forms, each with a factor: `tenses` (the setting) for the lemma and its forms in `tenses`,
        times `persons` (the setting) for those in `tenses` and `persons` too ("pedir, él" in the past: *pidió*);
        1 for its other forms, and for all where no tense is given or the paradigms place none there."""
        picked = {f for t in tenses for f in self.by_tense.get(lemma, {}).get(t, ())}
        if not picked:
            return dict.fromkeys(self.forms[lemma], 1.0)
        cell = {f for t in tenses for p in persons for f in self.by_cell.get((lemma, t, p), ())} if self.s.persons else set()
        # weighed up, not kept alone: an English row "write | wrote | written" holds every tense at once
        return {f: self.s.tenses * (self.s.persons if f in cell else 1.0) if f in picked or f == lemma else 1.0
                for f in self.forms[lemma]}

    def word_alternatives(self, word: str, named: tuple[str, ...] = (), persons: tuple[str, ...] = ()) -> dict[str, float]:
        """The words that count as `word`, with their weights (the word itself 1). With `tenses`, a verb's forms
        in the tenses the query names (`named`) weigh more, and so do a translation's forms in those tenses or,
        where the query names none, in the tenses `word` is a form of ("gave": dar's past). The word's own
        tense does not pick its own verb's forms ("¿trajieron o trajeron?" asks about the row, not one tense)
        unless the form map lacks it: then its ending's tense does (*hació*: hacer's past, *hice, hizo, ...*).
        With `persons`, the forms of those tenses in the persons the query asks about (`persons`) weigh more again."""
        t, f = self.s.translations, self.s.forms
        alts: dict[str, float] = {}

        def add(w: str, weight: float) -> None:
            if weight > alts.get(w, 0.0):
                alts[w] = weight

        add(word, 1.0)
        lemmas = self.lemmas_of(word)
        own = (named or self.own_tenses(word, lemmas)) if self.s.tenses > 0 else ()
        if f:  # a form the map knows asks about its row ("¿trajieron o trajeron?"); one it lacks, its ending's
            for lemma in lemmas:
                for form, x in self.forms_in(lemma, named if word in self.lemmas else own, persons).items():
                    add(form, f * x)
        if t:
            for source in [word] + lemmas:
                for translation in self.lexicon.get((source,), ()):
                    for w in translation:
                        add(w, t)
                    if f and len(translation) == 1:
                        for lemma in self.lemmas.get(translation[0], ()):
                            for form, x in self.forms_in(lemma, own, persons).items():
                                add(form, t * f * x)
        return alts

    def concepts(self, query: str) -> list[Concept]:
        """One concept per query word (filler dropped as the analyzer drops it), then one per
        phrase of 2..MAX_PHRASE words the lexicon translates; alternatives as index terms. With
        `paradigm`, the concept of a word with a lemma is a `Paradigm`; with `tenses`, the tenses the
        query names pick every verb's forms (`word_alternatives`)."""
        words = self.analyzer.query_words(query)
        named = tuple(tenses_in(query) or implied_tenses(query)) if self.s.tenses > 0 else ()
        persons = tuple(query_persons(query, self.lemmas)) if self.s.tenses > 0 and self.s.persons > 0 else ()
        concepts = [self._terms(self.word_alternatives(w, named, persons)) for w in words]
        if self.s.paradigm:
            concepts = [Paradigm(c) if self.lemmas_of(w) else c for w, c in zip(words, concepts)]
        if self.s.translations:
            for n in range(MAX_PHRASE, 1, -1):
                for i in range(len(words) - n + 1):
                    translations = self.lexicon.get(tuple(words[i:i + n]))
                    if translations:
                        concepts.append(self._terms({w: self.s.translations for tr in sorted(translations) for w in tr}))
        return concepts

    def _terms(self, group: dict[str, float]) -> Concept:
        out: Concept = {}
        for word, weight in group.items():
            for term in self.analyzer.terms([word]):
                out[term] = max(out.get(term, 0.0), weight)
        return out
