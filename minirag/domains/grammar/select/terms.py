"""Grammatical terms: which concept (a person, a tense, a mood, a form, a degree, a number) a phrase names.

`GrammarTerms.load(path, lexicon)` takes the concepts' names (concepts.py) and the synonym file
(data/grammar_terms.tsv: one concept a line, `dimension:value<TAB>English phrases<TAB>Spanish phrases`) and
adds, for every phrase, the translations the corpus's own lexicon pairs with it (the glossary's "past tense, simple past, preterite | pretérito, pretérito
indefinido"), so a term the corpus states needs no line of its own. `find(text)` returns the concepts
a text names, longest phrase first, each with the span it covers:

    >>> terms.find("presente de indicativo de conocer, yo")
    [Mention('tense:present', 0, 22, strong=True), Mention('person:1s', 34, 36, strong=True)]

A weak phrase (an English pronoun: "I", "he"; "tú" and "él", which fold to "tu" and "el") names a
person only inside quotes, written with its accent, or next to "form" / "for" / "person"; elsewhere it
is the asker ("how do I say ...") or an article, and is reported with strong=False.

What it leaves out: word senses ("will" the future and "will" the noun are one phrase) and inflection
beyond the listed phrases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from minirag.artifacts.io import read_text
from minirag.text.words import fold

from .concepts import CONCEPTS, DIMENSIONS

DEFAULT_TERMS = Path(__file__).parent.parent / "data" / "grammar_terms.tsv"
# A terms file names grammatical concepts (the shipped one: 36 lines, 2 KB); its phrases become one regex
# that every job reading it compiles (0.3 s at this bound, 6 s and 600 MB for 100,000 lines) and that
# every question and chunk is matched against, so a file past this size is refused before it is read.
MAX_TERMS_BYTES = 1 << 16
QUOTE_RE = re.compile(r"(?<![\w'’])(['‘’\"“«*])(?P<body>[^'‘’\"“”«»*\n]{1,60}?)(['’\"”»*])(?![\w'’])")
WEAK_CONTEXT_RE = re.compile(r"\b(?:form|forma|for|person|persona)\b")


@dataclass(frozen=True)
class Mention:
    """A grammatical concept a text names, and where."""
    concept: str   # "dimension:value"
    start: int     # span in the folded text
    end: int
    strong: bool

    @property
    def dimension(self) -> str:
        return self.concept.split(":", 1)[0]


def phrase_pattern(phrases) -> re.Pattern:
    """Any of the phrases as a whole word or words: where several begin, the longest (as their alternation
    sorted longest first), written as a trie (`trie_pattern`: 2.3 times faster over the KB's chunks);
    phrases nested too deeply for a trie (a thousand, each the one before and a letter) as that alternation."""
    try:
        return re.compile(rf"(?<![\w-])(?:{trie_pattern(phrases)})(?![\w-])")
    except RecursionError:
        alternation = "|".join(re.escape(p) for p in sorted(phrases, key=lambda p: (-len(p), p)))
        return re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])")


def trie_pattern(phrases) -> str:
    """The phrases as one regex trie: a position is matched against one branch per next character, not
    against every phrase; where a phrase ends and a longer one goes on, the longer is tried first (greedy)."""
    trie: dict = {}
    for phrase in phrases:
        node = trie
        for ch in phrase:
            node = node.setdefault(ch, {})
        node[""] = {}  # a phrase ends here

    def emit(node: dict) -> str:
        chain = []
        while len(node) == 1 and "" not in node:  # one way on: its characters in a row, no group
            (ch, node), = node.items()
            chain.append(re.escape(ch))
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        body = "" if not branches else branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return "".join(chain) + (f"(?:{body})?" if "" in node and body else body)

    return emit(trie)


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of every quoted or emphasised stretch of `text` ('…', "…", «…», *…*)."""
    return [(m.start("body"), m.end("body")) for m in QUOTE_RE.finditer(text)]


class GrammarTerms:
    def __init__(self, phrases: dict[str, tuple[str, bool]], by_lang: dict[str, dict[str, list[str]]] | None = None):
        self.phrases = phrases  # folded phrase -> (concept, strong)
        self.by_lang = by_lang or {}  # concept -> {"en": [phrases as written], "es": [...]}, plainest first
        self.pattern = phrase_pattern(phrases) if phrases else None

    @classmethod
    def base(cls, lexicon: dict[str, list[str]] | None = None) -> "GrammarTerms":
        """The concepts' plainest names (concepts.py), with the lexicon's translations of them."""
        return cls.load(None, lexicon)

    @classmethod
    def load(cls, path: str | Path | None = DEFAULT_TERMS, lexicon: dict[str, list[str]] | None = None
             ) -> "GrammarTerms":
        """The concepts' names (concepts.py) and the synonyms of the file at `path` (ValueError naming the
        file and line for a malformed line), each phrase's lexicon translations added as phrases of the
        same concept and strength."""
        phrases: dict[str, tuple[str, bool]] = {}
        by_lang: dict[str, dict[str, list[str]]] = {}

        def add(concept: str, lang: str, phrase: str) -> None:
            key = fold(phrase.lstrip("~"))
            if key:
                phrases.setdefault(key, (concept, not phrase.startswith("~")))
                by_lang.setdefault(concept, {"en": [], "es": []})[lang].append(phrase.lstrip("~"))

        for concept, names in CONCEPTS.items():
            for lang, listed in zip(("en", "es"), names):
                for phrase in listed:
                    add(concept, lang, phrase)
        size = Path(path).stat().st_size if path is not None and Path(path).is_file() else 0
        if size > MAX_TERMS_BYTES:
            raise ValueError(f"{path}: {size:,} bytes, at most {MAX_TERMS_BYTES:,} for a grammatical-terms file "
                             "(one concept a line, its phrases: the shipped one is 2 KB)")
        lines = read_text(path).splitlines() if path is not None else []
        for i, raw in enumerate(lines, start=1):
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            fields = raw.split("\t")
            concept = fields[0].strip()
            if len(fields) != 3 or ":" not in concept or concept.split(":", 1)[0] not in DIMENSIONS:
                raise ValueError(f"{path}:{i}: expected '<dimension>:<value>\\t<English phrases>\\t<Spanish "
                                 f"phrases>' with a dimension of {', '.join(DIMENSIONS)}, got {raw[:80]!r}")
            for lang, body in zip(("en", "es"), fields[1:]):
                for phrase in (p.strip() for p in body.split(",")):
                    add(concept, lang, phrase)
        for phrase, (concept, strong) in list(phrases.items()):
            if strong and lexicon:
                for other in lexicon.get(phrase, []):
                    phrases.setdefault(fold(other), (concept, True))
        return cls(phrases, by_lang)

    def phrase(self, concept: str, lang: str) -> str:
        """The plainest phrase for a concept in a language (its first name)."""
        return self.by_lang[concept][lang][0]

    def find(self, text: str) -> list[Mention]:
        """The concepts `text` names, left to right, longest phrase first; a weak phrase is strong
        only inside quotes or beside "form"/"for"/"person"."""
        if self.pattern is None:
            return []
        folded, lower = fold(text), text.casefold()
        accents = len(lower) == len(folded)  # spans of the two line up (no "ß" -> "ss" before them)
        quotes = quoted_spans(folded)
        out = []
        for m in self.pattern.finditer(folded):
            concept, strong = self.phrases[m.group()]
            if not strong:
                near = folded[max(0, m.start() - 12): m.end() + 12]
                strong = (any(a <= m.start() and m.end() <= b for a, b in quotes) or bool(WEAK_CONTEXT_RE.search(near))
                          or (accents and lower[m.start():m.end()] != m.group()))  # "tú", "él" as written
            out.append(Mention(concept, m.start(), m.end(), strong))
        return out

    def concepts(self, text: str) -> set[str]:
        """The concepts `text` names strongly (how a heading is read)."""
        return {m.concept for m in self.find(text) if m.strong}

    def labels(self, text: str) -> set[str]:
        """The concepts a table cell names, weak phrases included: "he / she / it" heads a column of persons."""
        return {m.concept for m in self.find(text)}


def load_terms(path: str | Path | None, lexicon: dict[str, list[str]] | None) -> GrammarTerms:
    """A terms file (None: the one minirag ships) with the lexicon's translations: the domain's "questions.terms"."""
    return GrammarTerms.load(path or DEFAULT_TERMS, lexicon or {})
