"""An English↔Spanish term lexicon, mined from the knowledge base itself, and the file it is saved in.

`extract_lexicon` pairs what the documents pair: rows of tables whose header names the languages
("English | Español", "Spanish word | What it means"), equation cells ("library = biblioteca") under
a header naming both, and an English page's glosses: "*ayer* (yesterday)", "hablar (to speak)" in a
verb table, "ser — to be", "*tener* 'to have'", "*Éxito* means success". A side is a short term (at
most 4 words, no sentence or formula); a gloss, or a column paired by position only, must be English
against Spanish by a guess from the corpus's own word counts. Both directions share one map.
`save_lexicon` writes it with the verb forms verb_forms.py mines (form → lemma, lemma → tense → forms).

What it leaves out: example sentences, tables that gloss without naming a language ("with ser |
with estar"), plurals and comparatives, English arrows in prose ("work → worked"), accent folding
(the caller's choice) and word senses: "actual", "once" carry the translations of both languages.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import Counter, defaultdict

from minirag.artifacts.io import atomic_write_text
from minirag.text.analyze import load_stopwords
from minirag.text.structure import LIST_ITEM_RE, SEPARATOR_RE, DocumentStructure
from minirag.text.words import TERM_RE, fold_accents

MAX_WORDS = 4  # a side longer than this is a phrase or a sentence, not a term
PRIOR = 5      # pseudo-count a stopword list gives its words in the language guess
MARGIN = 0.5   # log-odds a phrase needs to be called English or Spanish
EMPHASIS_RE = re.compile(r"\*\*[^*\n]+\*\*|\*[^*\n]+\*")
TABLE_ROW_RE = re.compile(r"^\s*\|.*$", re.MULTILINE)
PAREN_RE = re.compile(r"\(([^()]*)\)")
GENDER_RE = re.compile(r"(\w)/(?:as|os|a|o)\b")  # "nosotros/as", "avergonzado/a": one term, not a slash list
QUOTED_RE = re.compile(r"\*{1,2}([^*\n]+)\*{1,2},?\s+(?:(?:\w+\s+)?means?\s+)?[\"“'‘]([^\"”'’\n]+)[\"”'’]")
MEANS_RE = re.compile(r"\*{1,2}([^*\n]+)\*{1,2},?\s+(?:\w+\s+)?means?\s+([^\"“'‘.,;:(\n][^.,;:(\n]*)")
# the term is one space or ends in a non-space (the shortest term is one of these): each of its ends
# inside a run of spaces rescanned the run, quadratic in its length
DASH_RE = re.compile(r"^([^\S\n]|.*?\S)\s+[—–]\s+(.+)$")
EN_HEAD_RE = re.compile(r"\b(?:english|inglés|ingles)\b")
ES_HEAD_RE = re.compile(r"\b(?:spanish|español|espanol|castellano)\b")
GLOSS_HEAD_RE = re.compile(r"\b(?:translation|traducción|meaning|significado|what it means)\b")
ARTICLES = {"en": {"the"}, "es": {"el", "la", "los", "las"}}  # "una vez" is "once", not "vez"
OTHER = {"en": "es", "es": "en"}


def clean(text: str) -> str:
    """Lowercase NFC text without emphasis, backticks, double quotes or (annotations)."""
    text = GENDER_RE.sub(r"\1", PAREN_RE.sub(" ", unicodedata.normalize("NFC", text).replace("*", "").replace("`", "")))
    return " ".join(re.sub(r"[\"“”«»]", "", text).lower().split()).strip(" .,;:!?¿¡'‘’")


def row_cells(line: str) -> list[str]:
    line = line.strip()
    return [c.strip() for c in line[1 if line.startswith("|") else 0:-1 if line.endswith("|") else None].split("|")]


def tables(text: str) -> list[tuple[list[str], list[list[str]], list[str]]]:
    """(header cells, body rows, heading path outermost first) of each markdown table."""
    s = DocumentStructure(text)
    return [(row_cells(t.header), [row_cells(line) for line in text[t.rows_start:t.end].split("\n") if line.strip()],
             s.heading_path(t.rows_start)) for t in s.tables]


def segments(text: str) -> list[str]:
    """Table cells and prose lines (heading and list marks dropped): where an inline pair lives."""
    lines = [line.strip() for line in text.split("\n") if line.strip() and not SEPARATOR_RE.match(line)]
    return [seg for line in lines for seg in
            (row_cells(line) if line.startswith("|") else [LIST_ITEM_RE.sub("", line.lstrip("#").strip())])]


class LanguageGuess:
    """English or Spanish, for a short phrase, from word counts: Spanish pages against English prose
    without tables and emphasis (the guides' Spanish), stopword lists as a prior, accents for the unseen."""

    def __init__(self, docs: list[dict]):
        self.counts = {"es": Counter(), "en": Counter()}
        for doc in docs:
            if doc.get("lang") in self.counts:
                text = doc["text"] if doc["lang"] == "es" else EMPHASIS_RE.sub(" ", TABLE_ROW_RE.sub("", doc["text"]))
                self.counts[doc["lang"]].update(TERM_RE.findall(text.lower()))
        # totals before the prior, so the Spanish list being ten times the English one tilts no word
        self.totals = {lang: sum(c.values()) + len(c) + 1 for lang, c in self.counts.items()}
        stopwords = {lang: load_stopwords(lang) for lang in self.counts}
        self.shared = stopwords["es"] & stopwords["en"]  # "a", "no": evidence of neither
        for lang, counts in self.counts.items():
            counts.update({w: PRIOR for w in stopwords[lang]})

    def score(self, word: str) -> float:
        es, en = self.counts["es"][word], self.counts["en"][word]
        if es == en == 0:
            return 2 * MARGIN if re.search(r"[ñáéíóúü]", word) else 0.0
        return math.log((es + 1) / self.totals["es"]) - math.log((en + 1) / self.totals["en"])

    def __call__(self, phrase: str) -> str | None:
        """"es" or "en" when the words lean that way and none leans the other ("but reloj": neither)."""
        scores = [self.score(w) for w in TERM_RE.findall(phrase.lower()) if w not in self.shared] or [0.0]
        total, low, high = sum(scores), min(scores), max(scores)
        return "es" if total > MARGIN and low >= -MARGIN else "en" if total < -MARGIN and high <= MARGIN else None


def is_term(term: str, written: str) -> bool:
    """Short, no formula (+ = → : / digits) or "no direct equivalent", no sentence or name as written (a
    final stop, an opening capital: a gloss's term is lowercased first, its capital may open a sentence)."""
    n, written = len(term.split()), written.replace("*", "").strip(" \"“”'‘’¿¡")
    if not 0 < n <= MAX_WORDS or len(term) < 2 or re.search(r"[+=→:/…\d]|\bequivalent\b", term):
        return False
    return not (written.endswith((".", "!", "?")) or written[:1].isupper())


def term_pairs(left: list[str], right: list[str]) -> list[tuple[str, str]]:
    """Every clean (left, right) pair of terms two sides' alternatives give; slash lists pair in order
    ("ser / ir" with "to be / to go"), or not at all when their shapes differ ("caer bien / mal")."""
    pairs = []
    for sides in ([GENDER_RE.sub(r"\1", PAREN_RE.sub(" ", x)).split("/") for x in (a, b)] for a in left for b in right):
        if len(sides[0]) == len(sides[1]) and all(len({len(p.split()) for p in side}) == 1 for side in sides):
            pairs += zip(*sides)
    return [(clean(x), clean(y)) for x, y in pairs if is_term(clean(x), x) and is_term(clean(y), y)]


def items(cell: str) -> list[str]:
    """A cell's alternatives: "sexually aroused, or agitated" -> "sexually aroused", "agitated"."""
    return [re.sub(r"^\s*(?:or|o)\s+", "", i) for i in re.split(r"[,;]", PAREN_RE.sub(" ", cell))]


def table_pairs(header: list[str], rows: list[list[str]], doc_lang, guess) -> list[tuple[str, str]]:
    """(en, es) pairs of a table whose header names a column's language ("en=es": equation cells); a meaning
    column is in the page's language unless another is; a column paired by position must pass the guess."""
    langs, out = [], []
    for h in map(clean, header):
        en, es = EN_HEAD_RE.search(h), ES_HEAD_RE.search(h)
        langs.append(("en=es" if en.start() < es.start() else "es=en") if en and es else
                     "en" if en else "es" if es else None)
    for i, h in enumerate(map(clean, header)):
        if langs[i] is None and doc_lang in ("en", "es") and GLOSS_HEAD_RE.search(h):
            langs[i] = doc_lang if doc_lang not in langs else OTHER[doc_lang]
    known = [lang for lang in langs if lang in ("en", "es")]
    partner = next((i for i, lang in enumerate(langs) if lang is None), None)
    for row in (r for r in rows if len(r) == len(langs)):
        for cell, lang in zip(row, langs):
            if lang in ("en=es", "es=en") and cell.count("=") == 1:
                a, b = cell.split("=")
                out += [(x, y) if lang == "en=es" else (y, x) for x, y in term_pairs(items(a), items(b))]
        if set(known) == {"en", "es"}:
            out += term_pairs(items(row[langs.index("en")]), items(row[langs.index("es")]))
        elif known and partner is not None:
            pairs = term_pairs(items(row[langs.index(known[0])]), items(row[partner]))
            pairs = pairs if known[0] == "en" else [(b, a) for a, b in pairs]
            out += [(en, es) for en, es in pairs if guess(en) == "en" and guess(es) == "es"]
    return out


def term_before(before: str, guess) -> str:
    """The term a parenthesis glosses: the emphasised span just before it, else the words since the
    last punctuation, cut to the trailing run of words in the last word's language."""
    if m := re.search(r"\*{1,2}([^*]+)\*{1,2}$", before.rstrip()):
        return m.group(1)
    chunk, run = re.split(r"[.,;:!?¿¡—–()\"“”*]", before)[-1].split(), []
    lang = guess(chunk[-1]) if len(chunk) > MAX_WORDS else None
    while lang and chunk and guess(chunk[-1]) == lang:
        run.insert(0, chunk.pop())
    return " ".join(run if lang else chunk)


def inline_pairs(seg: str, guess) -> list[tuple[str, str]]:
    """(en, es) pairs glossed in a line or cell: a Spanish term, its English gloss ("the preterite (*comí*)" is
    an example), or the other way round where the gloss says so: "the written accent (Spanish *tilde*)"."""
    found = [(m.group(1), [m.group(2)], "es") for m in (*QUOTED_RE.finditer(seg), *MEANS_RE.finditer(seg))]
    found += [(m.group(1), [m.group(2)], "es") for m in [DASH_RE.match(seg)] if m]
    for m in PAREN_RE.finditer(seg):
        label = re.match(r"\s*spanish\s+(.*)", m.group(1), flags=re.I | re.S)
        glosses = items(label.group(1) if label else m.group(1))  # the first, and "to …" senses: "can, to be able"
        glosses = glosses[:1] + [g for g in glosses[1:] if g.strip().startswith("to ")]
        found.append((term_before(seg[:m.start()], guess), glosses, "en" if label else "es"))
    return [(a, b) if lang == "en" else (b, a) for term, glosses, lang in found
            for a, b in term_pairs([term.lower()], glosses) if (guess(a), guess(b)) == (lang, OTHER[lang])]


def extract_lexicon(docs: list[dict]) -> dict[str, list[str]]:
    """English↔Spanish term map, both directions in one: term -> sorted translations."""
    guess, lexicon = LanguageGuess(docs), defaultdict(set)
    for doc in docs:
        pairs = [p for head, rows, _ in tables(doc["text"]) for p in table_pairs(head, rows, doc.get("lang"), guess)]
        if doc.get("lang") != "es":  # a Spanish page's parentheses are Spanish comments ("cerrar (cierro)")
            pairs += [p for seg in segments(doc["text"]) for p in inline_pairs(seg, guess)]
        for en, es in pairs:  # both ways, articles dropped, "to eat" also as "eat"; "plural" = "plural" is nothing
            en, es = (t.partition(" ")[2] if t.partition(" ")[0] in ARTICLES[lang] and " " in t else t
                      for t, lang in ((en, "en"), (es, "es")))
            for e in {en, en.removeprefix("to ")} if fold_accents(en) != fold_accents(es) else ():
                lexicon[e].add(es)
                lexicon[es].add(e)
    return {k: sorted(v) for k, v in sorted(lexicon.items())}


def save_lexicon(path, lexicon: dict[str, list[str]], forms: dict[str, list[str]],
                 paradigms: dict[str, dict[str, dict[str, list[str]]]] | None = None) -> None:
    """Write {"lexicon", "forms"} and, when given, "paradigms" (`extract_paradigms`) as one JSON file
    (sorted keys, UTF-8 kept), replaced atomically. A reader of the first two keys reads it as before."""
    data = {"lexicon": lexicon, "forms": forms} | ({"paradigms": paradigms} if paradigms is not None else {})
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1)
    atomic_write_text(path, text + "\n")  # a temp file beside `path`, then os.replace

