"""Features of an answer candidate for a question: does it sit in the row and the column the question names?

`Featurizer(terms).matrix(analysis, candidates)` -> (m, F) float32, one row per candidate, columns
named by FEATURES. Each says one thing a reader would check:

- the row: the question's lemma is the cell's row key or column header (a table a verb per column),
  weighted by how the lemma was found (analysis.py: exact 1.0, a form 0.8, a translation 0.7, a
  misspelling 0.5), or sits in the caption or the line;
- the column: for each dimension (person, tense, mood, form, degree, number, polarity) the concept
  the question names is among the cell's (column header, row key, caption: "yo", "Pretérito", "Past
  participle") — a match — or the cell names another value of that dimension and not it — a conflict;
  and the concepts the cell names that the question does not ask for;
- the options a question offers ("sank or sunk?"): the candidate is one, or part of exactly one;
- the candidate: its kind, length and language (its words', by the corpus's use of them) against the one
  the question asks for; whether it is
  the question's own word (the key is never the answer to "past of go") or a label ("yo", "plural");
- the shares of the question's words in its line, caption and text; its chunk's retrieval rank.

The candidates of one chunk are prepared once into a `ChunkBlock` (their folded texts and keys, their
concepts, indexes from each key, concept and word to the candidates holding it); a question's features
are then a few array operations per chunk, whatever the number of candidates.

What it leaves out: weights (scorer.py), and the candidates no features could make an answer (ruled_out.py).
"""

from __future__ import annotations

import math
from typing import Callable, Iterable

import numpy as np

from minirag.answer.select.candidates import Candidate
from minirag.answer.select.keys import answer_key
from minirag.text.words import TERM_RE, fold

from .analysis import QuestionAnalysis
from .terms import DIMENSIONS, GrammarTerms
from .vocabulary import Vocabulary

KINDS = ("cell", "arrow", "gloss", "quote", "clause", "item", "sentence")
PROSE = {"clause", "item", "sentence"}
FEATURES = (
    ("inv_rank", "top1", "top3", "log_rank")
    + ("key_lemma", "column_lemma", "caption_lemma", "line_lemma", "text_is_lemma", "text_is_form",
       "text_in_question", "text_is_concept", "is_row_key")
    + tuple(f"{d}_{v}" for d in DIMENSIONS for v in ("match", "conflict"))
    + ("weak_person_match", "unasked_concepts", "asked_concepts_met", "cell_concepts_met", "no_concepts_asked",
       "row_and_column", "row_and_column_clean", "first_person_unasked")
    + ("option_exact", "option_part", "option_line", "in_quoted")
    + tuple(f"kind_{k}" for k in KINDS)
    + ("rule_prose", "form_short", "meaning_cell", "choice_option")
    + ("log_words", "long", "lang_match", "lang_mismatch")
    + ("q_in_line", "q_in_caption", "q_in_text", "q_in_column", "q_text_rule")
)
INDEX = {name: i for i, name in enumerate(FEATURES)}
STATIC = ("text_is_concept", "is_row_key", *(f"kind_{k}" for k in KINDS), "log_words", "long")


def words(text: str) -> set[str]:
    return set(TERM_RE.findall(fold(text)))


def holds_phrase(haystack: str, phrase: str) -> bool:
    return bool(phrase) and f" {phrase} " in f" {haystack} "


class Phrases:
    """The runs of words of word-joined texts, as a container: `phrase in Phrases([t])` is
    `holds_phrase(t, phrase)` for some t. It keeps the texts, not their runs: memory grows with the
    question's length, not with its cube (every run of a 10 KB question would be gigabytes)."""
    __slots__ = ("padded",)

    def __init__(self, texts: Iterable[str]):
        self.padded = [f" {' '.join(t.split())} " for t in texts]

    def __contains__(self, phrase: str) -> bool:
        return bool(phrase) and any(f" {phrase} " in t for t in self.padded)


def ngrams(text: str) -> Phrases:
    """Every run of words of a word-joined text: `phrase in ngrams(t)` is `holds_phrase(t, phrase)`."""
    return Phrases([text])


def joined_words(text: str) -> str:
    return " ".join(TERM_RE.findall(fold(text)))


class Prepared:
    """What the features read of one candidate, folded once. `memo` keeps what is read of the strings
    a chunk's candidates share (a row's key and line, a column's header, the caption) from one
    candidate to the next; nothing here changes what it returns, so sharing them changes nothing."""
    __slots__ = ("text", "text_words", "n_words", "keys", "columns", "caption", "caption_words", "line",
                 "line_words", "column_words", "concepts", "text_concept", "own", "lang")

    def __init__(self, c: Candidate, terms: GrammarTerms, language: Callable[[str], str] | None,
                 memo: dict | None = None):
        def once(fn: Callable, text: str):
            if (fn, text) not in memo:
                memo[fn, text] = fn(text)
            return memo[fn, text]

        memo = {} if memo is None else memo
        self.text = answer_key(c.text)
        self.lang = (language(c.text) if language else "") or c.lang  # the words' language, else the page's
        self.text_words = set(self.text.split())
        self.n_words = len(self.text.split())
        self.keys = once(Vocabulary.key_variants, c.key) if c.key else set()
        self.columns = once(Vocabulary.key_variants, c.column) if c.column else set()
        self.caption = once(joined_words, c.caption)
        self.caption_words = set(self.caption.split())
        self.line = once(joined_words, c.line)
        self.line_words = set(self.line.split())
        self.column_words = once(words, c.column)
        # the cell's own column and row say more than the caption above the table: "conoces" under
        # "tú" is second person even in a section headed "Verbos con la primera persona irregular"
        self.own = once(terms.labels, c.column) | once(terms.labels, c.key) if c.kind == "cell" else set()
        self.concepts: dict[str, set[str]] = {}
        for concept in self.own:
            self.concepts.setdefault(concept.split(":", 1)[0], set()).add(concept)
        own_dims = set(self.concepts)  # a dimension the caption names is the cell's unless its row or column names it
        for concept in once(terms.concepts, c.caption):
            if concept.split(":", 1)[0] not in own_dims:
                self.concepts.setdefault(concept.split(":", 1)[0], set()).add(concept)
        mentions = terms.find(c.text)  # "yo", "tú", "Past simple": a label, not an answer
        self.text_concept = self.n_words <= 3 and sum(m.end - m.start for m in mentions) >= 0.8 * len(self.text)


def index_of(items: Iterable[tuple[str, int]]) -> dict[str, list[int]]:
    """{value: the candidate positions holding it, ascending, each once} from (value, position) pairs: lists,
    which index an array as an array of them does (a chunk makes some hundred, and a question reads a few)."""
    out: dict[str, list[int]] = {}
    for value, i in items:
        out.setdefault(value, []).append(i)
    return {k: sorted(set(v)) for k, v in out.items()}


class ChunkBlock:
    """The candidates of one chunk, prepared and indexed for computing their features together."""

    def __init__(self, candidates: list[Candidate], prepared: list[Prepared]):
        self.candidates = candidates
        n = self.n = len(candidates)
        self.static = np.zeros((n, len(FEATURES)), dtype=np.float32)  # (n, F): what no question changes
        for i, (c, p) in enumerate(zip(candidates, prepared)):
            row = self.static[i]
            row[INDEX["text_is_concept"]] = p.text_concept
            row[INDEX["is_row_key"]] = c.kind == "cell" and p.text in p.keys
            if f"kind_{c.kind}" in INDEX:  # a span (generic.py) is none of the grammar's kinds
                row[INDEX[f"kind_{c.kind}"]] = 1.0
            row[INDEX["log_words"]] = math.log1p(p.n_words)
            row[INDEX["long"]] = p.n_words > 6
        self.texts = [p.text for p in prepared]
        self.text_idx = index_of((p.text, i) for i, p in enumerate(prepared))
        self.key_idx = index_of((k, i) for i, p in enumerate(prepared) for k in p.keys)
        self.column_idx = index_of((k, i) for i, p in enumerate(prepared) for k in p.columns)
        self.text_word_idx = index_of((w, i) for i, p in enumerate(prepared) for w in p.text_words)
        self.column_word_idx = index_of((w, i) for i, p in enumerate(prepared) for w in p.column_words)
        self.concept_idx = index_of((c, i) for i, p in enumerate(prepared) for v in p.concepts.values() for c in v)
        self.own_idx = index_of((c, i) for i, p in enumerate(prepared) for c in p.own)
        has_dim = [[d in p.concepts for d in DIMENSIONS] for p in prepared]
        self.has_dim = np.array(has_dim, dtype=bool).reshape(n, len(DIMENSIONS))  # (n, D), (0, D) for no candidates
        self.captions, self.caption_of = self.distinct([p.caption for p in prepared])
        self.lines, self.line_of = self.distinct([p.line for p in prepared])
        self.caption_words = [set(c.split()) for c in self.captions]
        self.line_words = [set(ln.split()) for ln in self.lines]
        self.langs = np.array([p.lang for p in prepared], dtype=object)
        self.short = np.array([p.n_words <= 3 for p in prepared], dtype=bool)
        self.prose = np.array([c.kind in PROSE for c in candidates], dtype=bool)
        self.cellish = np.array([c.kind in ("cell", "gloss") for c in candidates], dtype=bool)

    @staticmethod
    def distinct(values: list[str]) -> tuple[list[str], np.ndarray]:
        """(the distinct values in first-seen order, each candidate's position among them)."""
        order = list(dict.fromkeys(values))
        where = {v: i for i, v in enumerate(order)}
        return order, np.array([where[v] for v in values], dtype=np.int64)


class QuestionView:
    """What a question's features compare candidates with, computed once per question."""

    def __init__(self, a: QuestionAnalysis):
        self.a = a
        self.asked: dict[str, set[str]] = {}
        for concept in a.concepts:
            self.asked.setdefault(concept.split(":", 1)[0], set()).add(concept)
        self.weak_persons = {c for c in a.weak if c.startswith("person:")}
        self.options = [" ".join(TERM_RE.findall(o)) for o in a.options]
        self.option_grams = [ngrams(o) for o in self.options]
        self.quoted_grams = Phrases(" ".join(TERM_RE.findall(q)) for q in a.quoted)
        self.question_grams = ngrams(" ".join(TERM_RE.findall(a.asked_text())))  # its own words, not its forms
        self.qwords = set(a.words)
        self.written = ngrams(" ".join(TERM_RE.findall(a.query.casefold())))  # as written: accents kept


def scatter_max(column: np.ndarray, idx: list[int] | None, value: float) -> None:
    if idx is not None:
        column[idx] = np.maximum(column[idx], value)


def mask_of(index: dict[str, list[int]], keys: Iterable[str], n: int) -> np.ndarray:
    """(n,) which candidates `index` lists under any of the keys."""
    out = np.zeros(n, dtype=bool)
    for k in keys:
        if k in index:
            out[index[k]] = True
    return out


def concept_features(X: np.ndarray, q: QuestionView, b: ChunkBlock) -> None:
    """The concept columns of X (n, F), in place: each asked concept a candidate meets or conflicts with,
    and the cell where the question's row and column cross (reads the lemma columns, written before)."""
    n, I = b.n, INDEX
    met = np.zeros(n, dtype=np.float32)
    met_own = np.zeros(n, dtype=np.float32)
    conflicts = np.zeros(n, dtype=bool)
    for j, d in enumerate(DIMENSIONS):
        want = q.asked.get(d)
        if not want:
            continue
        match = mask_of(b.concept_idx, want, n) & b.has_dim[:, j]
        X[:, I[f"{d}_match"]] = match
        X[:, I[f"{d}_conflict"]] = b.has_dim[:, j] & ~match
        conflicts |= b.has_dim[:, j] & ~match
        met += match
        met_own += mask_of(b.own_idx, want, n)
    X[:, I["weak_person_match"]] = mask_of(b.concept_idx, q.weak_persons, n)
    unasked = [j for j, d in enumerate(DIMENSIONS) if d not in q.asked]
    X[:, I["unasked_concepts"]] = b.has_dim[:, unasked].sum(axis=1)
    if q.asked:
        X[:, I["asked_concepts_met"]] = met / len(q.asked)
        X[:, I["cell_concepts_met"]] = met_own / len(q.asked)
    X[:, I["no_concepts_asked"]] = not q.asked
    if "person" not in q.asked:  # "how do you conjugate poner in the preterite?" is answered with the yo form
        X[:, I["first_person_unasked"]] = mask_of(b.own_idx, ["person:1s"], n)
    # the cell where the question's row and column cross: the conjunction a linear score cannot form
    lemma = np.maximum(X[:, I["key_lemma"]], X[:, I["column_lemma"]])
    X[:, I["row_and_column"]] = lemma * X[:, I["asked_concepts_met"]]
    X[:, I["row_and_column_clean"]] = (lemma >= 0.7) & (X[:, I["asked_concepts_met"]] == 1) & ~conflicts


def block_features(q: QuestionView, b: ChunkBlock, rank: int) -> np.ndarray:
    """(n, F) features of one chunk's candidates, the chunk ranked `rank`-th (FEATURES names the columns)."""
    a, n, I = q.a, b.n, INDEX
    X = b.static.copy()
    X[:, I["inv_rank"]], X[:, I["top1"]], X[:, I["top3"]] = 1.0 / rank, rank == 1, rank <= 3
    X[:, I["log_rank"]] = math.log(rank)
    for lemma, s in a.lemmas.items():
        scatter_max(X[:, I["key_lemma"]], b.key_idx.get(lemma), s)
        scatter_max(X[:, I["column_lemma"]], b.column_idx.get(lemma), s)
        scatter_max(X[:, I["text_is_lemma"]], b.text_idx.get(lemma), s)
    for name, distinct, of in (("caption_lemma", b.captions, b.caption_of), ("line_lemma", b.lines, b.line_of)):
        best = np.array([max((s for w, s in a.lemmas.items() if holds_phrase(t, w)), default=0.0) for t in distinct])
        X[:, I[name]] = best[of]
    X[:, I["text_is_form"]] = mask_of(b.text_idx, a.forms, n)
    X[:, I["text_in_question"]] = mask_of(b.text_idx, (t for t in b.text_idx if t in q.question_grams), n)
    concept_features(X, q, b)
    hits = np.zeros(n, dtype=np.int64)
    for grams in q.option_grams:
        hits += mask_of(b.text_idx, (t for t in b.text_idx if t in grams), n)
    X[:, I["option_exact"]] = mask_of(b.text_idx, q.options, n)
    X[:, I["option_part"]] = (hits == 1) & (len(q.options) > 1)
    if q.options:
        per_line = np.array([sum(holds_phrase(ln, o) for o in q.options) == 1 for ln in b.lines])
        X[:, I["option_line"]] = per_line[b.line_of]
    X[:, I["in_quoted"]] = mask_of(b.text_idx, (t for t in b.text_idx if t in q.quoted_grams), n)
    X[:, I["rule_prose"]] = (a.asks == "rule") & b.prose
    X[:, I["form_short"]] = (a.asks in ("form", "choice")) & b.short
    X[:, I["meaning_cell"]] = (a.asks == "meaning") & b.cellish
    X[:, I["choice_option"]] = (a.asks == "choice") & (hits > 0)
    if a.target_lang:
        X[:, I["lang_match"]] = b.langs == a.target_lang
        X[:, I["lang_mismatch"]] = (b.langs != "") & (b.langs != a.target_lang)
    if q.qwords:
        share = len(q.qwords)
        X[:, I["q_in_line"]] = np.array([len(q.qwords & w) / share for w in b.line_words])[b.line_of]
        X[:, I["q_in_caption"]] = np.array([len(q.qwords & w) / share for w in b.caption_words])[b.caption_of]
        in_text = np.zeros(n, dtype=np.float32)
        for w in q.qwords & b.text_word_idx.keys():
            in_text[b.text_word_idx[w]] += 1
        X[:, I["q_in_text"]] = in_text / share
        X[:, I["q_in_column"]] = mask_of(b.column_word_idx, q.qwords, n)
        X[:, I["q_text_rule"]] = X[:, I["q_in_text"]] * (a.asks == "rule")
    return X


class Featurizer:
    def __init__(self, terms: GrammarTerms, language: Callable[[str], str] | None = None):
        self.terms, self.language = terms, language

    def block(self, candidates: list[Candidate]) -> ChunkBlock:
        memo: dict = {}  # one chunk's shared strings, read once (Prepared)
        return ChunkBlock(candidates, [Prepared(c, self.terms, self.language, memo) for c in candidates])

    def matrix(self, a: QuestionAnalysis, blocks: list[tuple[ChunkBlock, int]]) -> np.ndarray:
        """(m, F) features of the candidates of the ranked chunks' blocks, in block order."""
        q = QuestionView(a)
        parts = [block_features(q, b, rank) for b, rank in blocks if b.n]
        return np.concatenate(parts) if parts else np.zeros((0, len(FEATURES)), dtype=np.float32)
