"""What the corpus names, for reading questions with: its table keys, forms, translations and endings.

`Vocabulary.from_chunks(chunks, lexicon_json, terms, langs)` gathers from the chunks' tables every row key
and every header naming a verb (the lemmas a question can be about), each one-word form with the concepts
its table names it under ("gave": the preterite), the endings nearly all forms with the same concepts share
("-ió": preterite, third person), which language's pages use each word, and the lexicon stage's forms
(form -> lemma) and translations. `near(word)` finds the keys a misspelt or invented form comes from.

What it leaves out: reading a question (analysis.py).
"""

from __future__ import annotations

import re
from functools import cached_property, lru_cache

from minirag.answer.evidence import QUESTION_WORDS
from minirag.answer.select.candidates import candidates_of
from minirag.artifacts.vocab_record import FORMAT
from minirag.text.analyze import load_stopwords
from minirag.text.words import TERM_RE, snowball

from .concepts import PERSONS
from .terms import GrammarTerms, fold

TERM_OR_ENDING_RE = re.compile(TERM_RE.pattern + r"|-[^\W\d_]+")  # words, and endings such as "-ar"


@lru_cache(maxsize=1)
def stemmers() -> tuple:
    return snowball("english"), snowball("spanish")


def stems(word: str) -> set[str]:
    """The word's English and Spanish Snowball stems of three letters or more."""
    return {s for st in stemmers() if len(s := st.stemWord(word)) >= 3}


@lru_cache(maxsize=1)
def filler() -> frozenset[str]:
    return frozenset(fold(w) for w in QUESTION_WORDS | load_stopwords("en", "filler") | load_stopwords("es", "filler"))


def deletions(word: str) -> set[str]:
    """The word and the word less each one of its letters."""
    return {word} | {word[:i] + word[i + 1:] for i in range(len(word))}


def edits1(a: str, b: str) -> bool:
    """a and b differ by at most one insertion, deletion, substitution or swap of neighbours."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return a == b
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = next((i for i in range(len(short)) if short[i] != long_[i]), len(short))
    return short[i:] == long_[i + 1:]


class Vocabulary:
    """What the corpus names: its table keys (folded), the lexicon's forms and translations, its terms."""

    def __init__(self, keys: set[str], words: set[str], forms: dict[str, list[str]], lexicon: dict[str, list[str]],
                 terms: GrammarTerms):
        self.keys, self.words, self.terms = keys, words, terms
        self.form_concepts: dict[str, set[str]] = {}  # a form -> the concepts its table names (from_chunks)
        self.suffix_concepts: dict[str, set[str]] = {}  # an ending -> what nearly every form with it is
        self.word_langs: dict[str, dict[str, int]] = {}  # a word -> its uses in each language's documents
        self.forms = {fold(k): sorted({fold(v) for v in vs}) for k, vs in forms.items()}
        self.lexicon: dict[str, list[str]] = {}
        for k, vs in lexicon.items():
            self.lexicon.setdefault(fold(k), [])
            self.lexicon[fold(k)] = sorted(set(self.lexicon[fold(k)]) | {fold(v) for v in vs})

    # The lookups `near` reads, built on its first call: most questions name words the corpus has
    # and never ask for one, and building them is most of reading a stored vocabulary.
    @cached_property
    def by_deletion(self) -> dict[str, list[str]]:
        """A word less one letter -> the keys and forms it is."""
        out: dict[str, list[str]] = {}
        for k in sorted(self.keys | set(self.forms)):
            if " " not in k:
                for d in deletions(k):
                    out.setdefault(d, []).append(k)
        return out

    @cached_property
    def longest(self) -> int:
        """The length of the longest key or form `by_deletion` holds."""
        return max(map(len, self.by_deletion), default=0)

    @cached_property
    def by_stem(self) -> dict[str, list[str]]:
        """A stem -> the keys with it."""
        out: dict[str, list[str]] = {}
        for k in sorted(self.keys):
            if " " not in k and len(k) >= 3:
                for s in stems(k):
                    out.setdefault(s, []).append(k)
        return out

    @cached_property
    def language_shares(self) -> dict[str, list[tuple[str, float]]]:
        """A word -> its uses' share in each language, filled by `language` as it meets words."""
        return {}

    @staticmethod
    def key_variants(cell: str) -> set[str]:
        """A table cell as the keys it states: "tener (to have)" -> tener, to have; "ser / ir" -> ser, ir."""
        text = fold(cell)
        parts = {text, re.sub(r"\([^)]*\)", " ", text)}
        parts |= {p for p in re.split(r"\s*/\s*|\s*,\s*", text) if p}
        parts |= {m.group(1) for m in re.finditer(r"\(([^)]*)\)", text)}
        return {" ".join(p.split()).strip(" .:;*") for p in parts if p.strip(" .:;*")}

    @classmethod
    def from_chunks(cls, chunks, lexicon_json: dict, terms: GrammarTerms, langs: dict[str, str] | None = None
                    ) -> "Vocabulary":
        """Keys: the first cell of every table row and every header cell that names no concept (a
        column per verb: "| Persona | tener | venir |"). Form concepts: what the column, row key and
        caption of every one-word cell name ("gave" under "Past simple": the preterite)."""
        keys: set[str] = set()
        words: set[str] = set()
        named: dict[str, dict[str, set[str]]] = {}
        by_lang: dict[str, dict[str, int]] = {}
        for c in chunks:
            found = TERM_OR_ENDING_RE.findall(fold(c.text))
            words |= set(found)
            lang = (langs or {}).get(c.doc_id, "")
            for w in found:
                by_lang.setdefault(w, {}).setdefault(lang, 0)
                by_lang[w][lang] += 1
            for cand in candidates_of(c, 1, slots=PERSONS):
                if cand.kind != "cell":
                    continue
                for cell in (cand.key, cand.column.split(" (")[0]):
                    if cell and (cell == cand.key or not terms.concepts(cell)) and len(cell.split()) <= 4:
                        keys |= {v for v in cls.key_variants(cell) if v not in filler()}
                concepts = terms.labels(f"{cand.column} | {cand.key}") | terms.concepts(cand.caption)
                if len(cand.text.split()) == 1 and cand.text != cand.key and concepts:
                    for concept in concepts:
                        named.setdefault(fold(cand.text), {}).setdefault(concept.split(":")[0], set()).add(concept)
        vocab = cls(keys, words, lexicon_json.get("forms", {}), lexicon_json.get("lexicon", {}), terms)
        # a dimension a form is named under twice ("put": present and past) says nothing about it
        vocab.form_concepts = {f: {next(iter(v)) for v in dims.values() if len(v) == 1} for f, dims in named.items()}
        vocab.suffix_concepts = suffix_concepts(vocab.form_concepts)
        vocab.word_langs = by_lang
        return vocab

    def to_record(self) -> dict:
        """What `from_chunks` found, as JSON (the terms aside: they load from their file), every mapping
        in the order it was built in, so `from_record` gives the same vocabulary."""
        return {"format": FORMAT, "keys": sorted(self.keys), "words": sorted(self.words), "forms": self.forms,
                "lexicon": self.lexicon, "form_concepts": {f: sorted(c) for f, c in self.form_concepts.items()},
                "suffix_concepts": {e: sorted(c) for e, c in self.suffix_concepts.items()},
                "word_langs": self.word_langs}

    @classmethod
    def from_record(cls, record: dict, terms: GrammarTerms) -> "Vocabulary":
        """The vocabulary `to_record` wrote (ValueError for another format)."""
        if not isinstance(record, dict) or record.get("format") != FORMAT:
            raise ValueError(f"not a vocabulary of format {FORMAT!r}")
        vocab = cls.__new__(cls)
        vocab.keys, vocab.words, vocab.terms = set(record["keys"]), set(record["words"]), terms
        vocab.forms, vocab.lexicon = record["forms"], record["lexicon"]
        vocab.form_concepts = {f: set(c) for f, c in record["form_concepts"].items()}
        vocab.suffix_concepts = {e: set(c) for e, c in record["suffix_concepts"].items()}
        vocab.word_langs = record["word_langs"]
        return vocab

    def language(self, text: str) -> str:
        """The language whose documents use the text's words most (per word, its share of uses), or ""
        when they do not lean one way: "escrito" is Spanish even in an English page's table."""
        score: dict[str, float] = {}
        shares = self.language_shares
        for w in TERM_OR_ENDING_RE.findall(fold(text)):
            if w not in shares:  # each word's shares taken once, then added in the same order as ever
                counts = self.word_langs.get(w, {})
                total = sum(counts.values())
                shares[w] = [(lang, k / total) for lang, k in counts.items() if lang]
            for lang, share in shares[w]:
                score[lang] = score.get(lang, 0.0) + share
        if not score:
            return ""
        best = max(score, key=lambda lang: (score[lang], lang))
        return best if score[best] > 0.6 * sum(score.values()) else ""

    def used_in(self, text: str) -> dict[str, float]:
        """For each language, the share of the text's words (of three letters or more, if it has any: "he"
        and "a" are words of both) its documents use at all: no Spanish page writes "broke" or "gone", so
        they are no Spanish answer (English pages about Spanish quote Spanish words, so this says less the
        other way)."""
        words = TERM_OR_ENDING_RE.findall(fold(text))
        words = [w for w in words if len(w) >= 3] or words
        out: dict[str, float] = {}
        for w in words:
            for lang, k in self.word_langs.get(w, {}).items():
                if lang and k:
                    out[lang] = out.get(lang, 0.0) + 1.0 / len(words)
        return out

    def near(self, word: str) -> list[str]:
        """Keys and forms one edit away, and keys with the word's stem ("catched" -> catch, "hació" -> hacer)."""
        # two words one edit apart share a deletion of each (or one is the other's): look those up, then check;
        # a word two letters longer than every key is one edit of none, and its deletions (quadratic in its
        # length: a 100,000-letter query word was 10^10 characters) are never made
        near = [] if len(word) > self.longest + 1 else \
            sorted({k for d in deletions(word) for k in self.by_deletion.get(d, []) if edits1(word, k)})
        return list(dict.fromkeys(near + [k for s in stems(word) for k in self.by_stem.get(s, [])]))


def suffix_concepts(form_concepts: dict[str, set[str]], min_forms: int = 8, share: float = 0.8) -> dict[str, set[str]]:
    """For each ending of 2-4 letters that at least `min_forms` one-word forms share, the concepts at least
    `share` of them are named under: "-ió" -> preterite, third person; "-ed" -> past."""
    counts: dict[str, dict[str, int]] = {}
    totals: dict[str, int] = {}
    for form, concepts in form_concepts.items():
        for n in (2, 3, 4):
            if len(form) > n + 1:
                end = form[-n:]
                totals[end] = totals.get(end, 0) + 1
                for c in concepts:
                    counts.setdefault(end, {})[c] = counts.setdefault(end, {}).get(c, 0) + 1
    return {end: {c for c, k in counts.get(end, {}).items() if k >= share * total}
            for end, total in totals.items() if total >= min_forms and any(
                k >= share * total for k in counts.get(end, {}).values())}
