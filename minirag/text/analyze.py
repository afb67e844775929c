"""Analyzers: turn text into the terms that BM25 indexes and queries with.

One pipeline, each step but the first switched in the config (`AnalyzerConfig`):

    NFC -> lowercase -> fold accents -> Arabic normalization -> words -> CJK bigrams -> drop stopwords -> stem

The default (lowercase only) is the seed's tokenizer: `tokenize("ÉL trabajó") == ["él", "trabajó"]`.
Stopword lists live in `minirag/data/stopwords_<lang>.txt`; stemming is Snowball through
PyStemmer, cached per distinct word because stemming is the slow part of analysis.

What this module leaves out: the full UAX #29 rules ("standard" covers the joins that
change terms in English and Spanish prose: numbers, abbreviations, apostrophes), possessive
and synonym filters, positions and phrases, and any guess of the text's language: the
corpus config says which steps to run.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Literal

from ..settings import setting, settings_from_dict, settings_to_dict
from .arabic import normalize_arabic, taa_to_haa
from .words import WORD_RE, fold_accents, snowball

DATA_DIR = Path(__file__).parent / "data"

# Scripts written without spaces between words, bigrammed like Lucene's CJKBigramFilter:
# Han (with extension A and compatibility ideographs), Hiragana, Katakana, Hangul syllables.
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"


@lru_cache(maxsize=1)
def cjk_re() -> re.Pattern:
    """One CJK character; compiled on first use (its ranges take ~4 ms, and most corpora never ask)."""
    return re.compile(f"[{CJK_CHARS}]")


def word_pattern(tokenizer: str, cjk: bool) -> re.Pattern:
    """The regex that finds words.

    "word": runs of unicode word characters (the seed's \\w+).
    "standard": also joins what Lucene's StandardTokenizer (Unicode UAX #29 word breaks) keeps
    whole: letters across . : ' ’ ("e.g", "don't") and digits across . , ; ' ’ ("3.5", "1,000").
    With `cjk`, a run of CJK characters is a word of its own ("dify插件" -> "dify", "插件").
    """
    w = f"[^\\W{CJK_CHARS}]" if cjk else r"\w"
    if tokenizer == "word":
        word = f"{w}+"
    elif tokenizer == "standard":
        letter, digit = r"[^\W\d_]", r"\d"
        word = (f"{w}+(?:(?<={letter})[.:'’](?={letter}){w}+"
                f"|(?<={digit})[.,;'’](?={digit}){w}+)*")
    else:
        raise ValueError(f"unknown tokenizer {tokenizer!r} (word, standard)")
    return re.compile(f"[{CJK_CHARS}]+|{word}" if cjk else word)


def tokenize(text: str) -> list[str]:
    """The seed's tokenizer: lowercased unicode \\w+ runs, accents kept."""
    return WORD_RE.findall(text.lower())


def cjk_bigrams(words: list[str]) -> list[str]:
    """Replace each run of CJK characters by its overlapping bigrams ("如何初" -> "如何", "何初").

    A lone CJK character stays a unigram (as in Lucene's CJKBigramFilter); other words pass whole.
    """
    out = []
    for w in words:
        if len(w) > 1 and cjk_re().match(w):
            out.extend(w[i:i + 2] for i in range(len(w) - 1))
        else:
            out.append(w)
    return out


QUOTED_RE = re.compile(r"(?<!\w)(['\"«‘“])(.+?)(['\"»’”])(?!\w)")


def char_ngrams(words: list[str], n: int) -> list[str]:
    """Each word as its character n-grams with boundary marks ("hizo", 3 -> "_hi", "hiz", "izo", "zo_"),
    so a misspelt form ("hació") still shares grams with the right one ("_ha", "hac" with "hacer")."""
    out = []
    for w in words:
        marked = f"_{w}_"
        out.extend(marked[i:i + n] for i in range(max(len(marked) - n + 1, 1)))
    return out


def load_stopwords(lang: str, kind: str = "stopwords") -> frozenset[str]:
    """Read `data/<kind>_<lang>.txt` (kind: stopwords or filler): one word a line, `#` starts a comment."""
    path = DATA_DIR / f"{kind}_{lang}.txt"
    if not path.exists():
        known = sorted(p.stem.removeprefix(f"{kind}_") for p in DATA_DIR.glob(f"{kind}_*.txt"))
        raise ValueError(f"no {kind} list for language {lang!r} (known: {', '.join(known)})")
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(w.strip() for w in lines if w.strip() and not w.startswith("#"))


@dataclass(frozen=True)
class AnalyzerConfig:
    """How a text becomes index terms: tokenizer, case, stopwords, stemming, n-grams, accents."""
    tokenizer: Literal["word", "standard"] = "word"  # "word": the seed's \w+; "standard": closer to Lucene's ("3.5", "don't" whole)
    lowercase: bool = True             # the seed lowercases; off only for case-sensitive corpora
    stopwords: tuple[Literal["en", "es", "ar"], ...] = ()  # stopword list languages, e.g. ("en",) or ("es",)
    stemmer: str | None = None         # Snowball algorithm for PyStemmer ("english", "porter", "spanish", "arabic"); None = off
    query_stopwords: tuple[Literal["en", "es", "ar"], ...] = ()  # question filler dropped from queries only, never in quotes
    char_ngrams: int = setting(0, minimum=0, maximum=8)     # > 0: words become their character n-grams (misspellings)
    cjk_bigrams: bool = False          # Chinese/Japanese/Korean runs -> overlapping character bigrams
    fold_accents: bool = False         # "trabajó" -> "trabajo"; accents are kept by default
    arabic_normalize: bool = False     # أ إ آ -> ا, ى -> ي, ة -> ه, diacritics and tatweel removed (text/arabic.py)
    # "documents": the filler and stemmer of the languages docs.jsonl found (a corpus that names none), settled
    # by `settled` where the analyzer is built over the documents; an index keeps the settled one
    languages: Literal["", "documents"] = ""

    @classmethod
    def from_dict(cls, d: dict) -> "AnalyzerConfig":
        return settings_from_dict(cls, d, "analyzer")

    def to_dict(self) -> dict:
        return settings_to_dict(self)

    def data_files(self) -> list[str]:
        """The word lists this analyzer reads (data/stopwords_<lang>.txt, data/filler_<lang>.txt):
        inputs of every job that analyzes with it, so editing a list reruns them (every filler list
        when the documents' languages choose)."""
        filler = ([lang for lang in FILLER_LANGS if (DATA_DIR / f"filler_{lang}.txt").exists()]
                  if self.languages == "documents" else self.query_stopwords)
        return [str(DATA_DIR / f"{kind}_{lang}.txt") for kind, langs in
                (("stopwords", self.stopwords), ("filler", filler)) for lang in langs]

    def describe(self) -> str:
        """The steps beyond the seed's lowercased \\w+, as ", stopwords en+es, stem spanish"."""
        parts = []
        if self.tokenizer != "word":
            parts.append(f"{self.tokenizer} tokenizer")
        if self.stopwords:
            parts.append(f"stopwords {'+'.join(self.stopwords)}")
        if self.stemmer:
            parts.append(f"stem {self.stemmer}")
        if self.query_stopwords:
            parts.append(f"query filler {'+'.join(self.query_stopwords)}")
        if self.char_ngrams:
            parts.append(f"character {self.char_ngrams}-grams")
        if self.fold_accents:
            parts.append("accents folded")
        if self.arabic_normalize:
            parts.append("Arabic normalized")
        if self.cjk_bigrams:
            parts.append("CJK bigrams")
        if self.languages:
            parts.append("filler and stemmer of the documents' languages")
        if not self.lowercase:
            parts.append("case kept")
        return "".join(f", {p}" for p in parts)


# The Snowball stemmer of a corpus's language, first found first: a bilingual English/Spanish corpus stems
# Spanish (as the grammar domain does), an English one English.
LANGUAGE_STEMMERS = {"es": "spanish", "en": "english"}
FILLER_LANGS = ("en", "es", "ar")  # the question-filler lists data/ has


def language_analyzer(langs: tuple[str, ...]) -> AnalyzerConfig:
    """The analyzer a corpus in `langs` matches questions with when no domain says otherwise: the question
    filler of each of its languages minirag has a list for, the stemmer of its language (a Spanish one only
    for a corpus with Spanish documents), accents folded. The grammar domain's (rank/rerank.py
    DEFAULT_ANALYZER) is this for en+es."""
    filler = tuple(lang for lang in FILLER_LANGS if lang in langs and (DATA_DIR / f"filler_{lang}.txt").exists())
    stemmer = next((LANGUAGE_STEMMERS[lang] for lang in LANGUAGE_STEMMERS if lang in langs), None)
    return AnalyzerConfig(fold_accents=True, query_stopwords=filler, stemmer=stemmer)


def settled(config: AnalyzerConfig, langs) -> AnalyzerConfig:
    """`config` with `languages: documents` made the filler and stemmer of `langs` (the documents'
    languages, language_analyzer); any other config as it is."""
    if config.languages != "documents":
        return config
    chosen = language_analyzer(tuple(sorted(set(langs) - {""})))
    return replace(config, languages="", query_stopwords=chosen.query_stopwords, stemmer=chosen.stemmer)


class Analyzer:
    def __init__(self, config: AnalyzerConfig = AnalyzerConfig()):
        self.config = config
        self._word_re = word_pattern(config.tokenizer, config.cjk_bigrams)
        self._stopwords = self._word_list(config.stopwords, "stopwords")
        self._filler = self._word_list(config.query_stopwords, "filler")
        # Filler is recognised before accents are folded: "sé" (I know) and "él" are not the
        # filler "se" and "el", though they fold onto them.
        self._filler_as_written = self._word_list(config.query_stopwords, "filler", fold=False)
        self._unfolded: Analyzer | None = None
        self._stemmer = None
        self._stem_cache: dict[str, str] = {}
        if config.stemmer is not None:
            self._stemmer = snowball(config.stemmer)

    def _word_list(self, langs, kind: str, fold: bool = True) -> frozenset[str]:
        words: set[str] = set()
        for lang in langs:
            words |= load_stopwords(lang, kind)
        # The list is matched against analyzed words, so it goes through the same case and accent steps.
        if self.config.lowercase:
            words = {w.lower() for w in words}
        if self.config.fold_accents and fold:
            words = {fold_accents(w) for w in words}
        if self.config.arabic_normalize:
            words = {normalize_arabic(w, taa_marbuta=self.config.stemmer is None) for w in words}
        return frozenset(words)

    def _unquoted_words(self, text: str) -> list[str]:
        """Words of a query's unquoted text, less filler matched before accent folding."""
        if not self.config.fold_accents:
            return [w for w in self.words(text) if w not in self._filler]
        if self._unfolded is None:
            self._unfolded = Analyzer(replace(self.config, fold_accents=False, stopwords=(), query_stopwords=()))
        kept = [fold_accents(w) for w in self._unfolded.words(text) if w not in self._filler_as_written]
        return [w for w in kept if w not in self._stopwords]

    def words(self, text: str) -> list[str]:
        """The words of a text after case, accents and stopwords, before stemming and n-grams."""
        # NFC first, so a decomposed "ó" (o + U+0301, which \w does not match) stays in its word.
        text = unicodedata.normalize("NFC", text)
        if self.config.lowercase:
            text = text.lower()
        if self.config.fold_accents:
            text = fold_accents(text)
        if self.config.arabic_normalize:  # with a stemmer, ة is mapped on the stems (text/arabic.py)
            text = normalize_arabic(text, taa_marbuta=self.config.stemmer is None)
        words = self._word_re.findall(text)
        if self.config.cjk_bigrams:
            words = cjk_bigrams(words)
        if self._stopwords:
            words = [w for w in words if w not in self._stopwords]
        return words

    def terms(self, words: list[str]) -> list[str]:
        """Words as index terms: stemmed, or cut into character n-grams."""
        if self._stemmer is not None:
            words = self._stem(words)
            if self.config.arabic_normalize:
                words = [taa_to_haa(w) for w in words]
        if self.config.char_ngrams:
            words = char_ngrams(words, self.config.char_ngrams)
        return words

    def __call__(self, text: str) -> list[str]:
        """The terms a document is indexed by."""
        return self.terms(self.words(text))

    def query(self, text: str) -> list[str]:
        """The terms a query searches for: a document's, less the question filler outside quotes
        ("what is the past of 'do'" keeps "do": a quoted word is what the question is about)."""
        return self.terms(self.query_words(text))

    def query_words(self, text: str) -> list[str]:
        """A query's words before stemming and n-grams, less the filler outside quotes."""
        if not self._filler:
            return self.words(text)
        kept, pos = [], 0
        for m in QUOTED_RE.finditer(text):
            kept += self._unquoted_words(text[pos:m.start()]) + self.words(m.group(2))
            pos = m.end()
        return kept + self._unquoted_words(text[pos:])

    def is_filler(self, word: str) -> bool:
        return word in self._filler or word in self._stopwords

    def _stem(self, words: list[str]) -> list[str]:
        cache = self._stem_cache
        new = {w for w in words if w not in cache}
        if new:
            new = list(new)
            cache.update(zip(new, self._stemmer.stemWords(new)))
        return [cache[w] for w in words]
