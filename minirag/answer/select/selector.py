"""Answer selection: from a question and its ranked chunks to the answers the candidates support, best first.

    selector = AnswerSelector(vocab, scorer, depth=20)
    picked = selector.select(query, chunks, langs)      # chunks in rank order
    picked.answers[0] -> Answer("vine", p=0.91, best=<the cell it comes from>)

The steps, each a module: analysis.py reads the question, candidates.py lists every cell and piece of
prose of the top `depth` chunks, features.py describes each candidate, scorer.py gives each a
probability (and "none of them" one). Candidates giving the same answer pool their probability — the
same form in two tables is one answer, cited from the candidate the scorer likes best. The selector
abstains when "none" is likelier than the best answer or the best answer's probability is under the
threshold (calibrated on the dev questions at training time).

What it leaves out: retrieval (the chunks come ranked) and writing the answer (readers.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from ...text.chunks import Chunk
from .analysis import QuestionAnalysis, analyze
from .candidates import Candidate, candidates_of, shown_line
from .features import FEATURES, INDEX, ChunkBlock, Featurizer
from .generic import GENERIC, NULL_GENERIC, GenericBlock, GenericFeaturizer, span_key
from .ruled_out import ruled_out_of
from .scorer import AnswerScorer
from .terms import GrammarTerms, answer_key
from .vocabulary import Vocabulary

LINES = 6  # generic: the candidates of a question's six best-covering sentences compete
NULL_FEATURES = ("bias", "best_key_lemma", "best_column_lemma", "best_concepts_met", "best_option", "lemma_found",
                 "concepts_asked", "other_language", "asks_rule", "asks_meaning", "asks_choice", "no_candidates",
                 "names_nothing", "unknown_words", "best_cover")


def null_features(a: QuestionAnalysis, X: np.ndarray) -> np.ndarray:
    """z of the "none of them" option: how well the best candidates fit, and what the question is — whether
    it names no lemma, concept or option at all ("What is the capital of France?"), the share of its words
    the corpus never writes, and how much of it the best-covering line holds."""
    best = X.max(axis=0) if len(X) else np.zeros(len(FEATURES))
    nothing = not a.lemmas and not a.concepts and not a.options
    unknown = len(a.unknown) / len(a.words) if a.words else 0.0
    return np.array([1.0, best[INDEX["key_lemma"]], best[INDEX["column_lemma"]], best[INDEX["asked_concepts_met"]],
                     best[INDEX["option_exact"]], max(a.lemmas.values(), default=0.0), bool(a.concepts),
                     a.target_lang == "other", a.asks == "rule", a.asks == "meaning", a.asks == "choice", not len(X),
                     nothing, unknown, best[INDEX["q_in_line"]]])


def best_lines(X: np.ndarray, lines: int) -> np.ndarray:
    """The rows of candidates whose sentence is among the `lines` best-covering ones (ties kept)."""
    cov = X[:, GENERIC.index("g_cov")] + 1e-4 * X[:, GENERIC.index("g_inv_rank")]  # ties: the better chunk's
    distinct = np.unique(cov)[::-1]
    floor = distinct[min(lines, len(distinct)) - 1] if len(distinct) else 0.0
    own = X[:, GENERIC.index("g_all_in_q")] > 0  # never what the question already says (its row key, its names)
    keep = np.flatnonzero((cov >= max(floor, 1e-3)) & ~own)
    return keep if len(keep) else np.flatnonzero(~own)


def feature_names(features: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(candidate feature names, none-option feature names) of a set of feature sets, in column order."""
    names = (GENERIC if "generic" in features else ()) + (FEATURES if "grammar" in features else ())
    null = (NULL_GENERIC if "generic" in features else ()) + (NULL_FEATURES if "grammar" in features else ())
    return names, null


@dataclass(frozen=True)
class Answer:
    """One distinct answer of a selection, its probability and best candidate."""
    text: str
    p: float
    best: int  # index of the candidate it is cited from


@dataclass
class Read:
    """A question read against its ranked chunks: the analysis, each chunk's candidates with its rank,
    their features (m, F) and the "none of them" features (G,)."""
    analysis: QuestionAnalysis
    blocks: list[tuple[ChunkBlock, int]]
    X: np.ndarray
    z: np.ndarray
    names: tuple[str, ...] = FEATURES  # the columns of X
    rows: np.ndarray | None = None  # the candidates kept (generic: those of the best-covering sentences); None: all

    def kept(self, values: list) -> list:
        return values if self.rows is None else [values[i] for i in self.rows]

    @property
    def keys(self) -> list[str]:
        """Each candidate's answer key, in feature-row order."""
        return self.kept([t for b, _ in self.blocks for t in b.texts])

    @property
    def texts(self) -> list[str]:
        return self.kept([c.text for b, _ in self.blocks for c in b.candidates])

    def candidate(self, i: int) -> Candidate:
        """The i-th candidate (feature row i) with its chunk's rank."""
        i = int(self.rows[i]) if self.rows is not None else i
        for b, rank in self.blocks:
            if i < b.n:
                return replace(b.candidates[i], n=rank)
            i -= b.n
        raise IndexError(i)


@dataclass
class Selection:
    """What the selector read of a question and the answers it found."""
    read: Read
    p: np.ndarray                 # (m,) probabilities
    p_none: float
    answers: list[Answer]         # pooled by answer, best first

    @property
    def analysis(self) -> QuestionAnalysis:
        return self.read.analysis

    def answer_records(self, keep: int) -> list[dict]:
        """The `keep` best answers, each with the candidate it is cited from, the line that shows it and
        that candidate's features."""
        answers = []
        for a in self.answers[:keep]:
            c = self.read.candidate(a.best)
            features = {name: round(float(v), 4) for name, v in zip(self.read.names, self.read.X[a.best]) if v}
            answers.append({"text": a.text, "p": round(a.p, 4), **c.to_record(), "evidence": shown_line(c),
                            "features": features})
        return answers

    def to_record(self, qid: str, keep: int) -> dict:
        """What the candidates artifact holds of a question: the analysis, the `keep` best answers, and
        every candidate answer's key."""
        answers, keys = self.answer_records(keep), self.read.keys
        return {"qid": qid, "query": self.analysis.query, "analysis": self.analysis.to_record(),
                "depth": len(self.read.blocks), "candidates": len(keys), "p_none": round(self.p_none, 4),
                "answers": answers, "keys": sorted(set(keys) - {""})}


def pool(texts: list[str], p: np.ndarray, keys: list[str], analysis: QuestionAnalysis | None = None
         ) -> list[Answer]:
    """Answers by `keys` (the candidates' folded texts), probabilities summed, best first (ties: first
    seen), each shown as the text of its likeliest candidate. Given the question's analysis, a candidate
    that names one of the options the question offers ("an" of "a hour or an hour?") gives that option."""
    options = {}
    if analysis is not None and analysis.options:
        for k in set(keys):
            if (option := analysis.option_of(k)):
                options[k] = option
    keys = [answer_key(options[k]) if k in options else k for k in keys]
    if not keys:
        return []
    distinct, of = np.unique(np.array(keys, dtype=object), return_inverse=True)  # (K,), (m,)
    total = np.bincount(of, weights=p, minlength=len(distinct))                  # (K,)
    order_in = np.lexsort((-p, of))  # by key, likeliest candidate first (ties: the first seen)
    first = np.ones(len(order_in), dtype=bool)
    first[1:] = of[order_in[1:]] != of[order_in[:-1]]
    best = np.empty(len(distinct), dtype=np.int64)
    best[of[order_in[first]]] = order_in[first]                                 # (K,) each key's likeliest
    shown = {answer_key(o): o for o in options.values()}
    ranked = sorted(range(len(distinct)), key=lambda j: (-total[j], best[j]))
    return [Answer(shown.get(distinct[j], texts[best[j]]), float(total[j]), int(best[j])) for j in ranked]


class AnswerSelector:
    """`features`: "generic" (spans, answer types, rows and columns: any corpus), "grammar" (the KB's
    concepts), or both (grammar on top); `generic` holds the corpus's IDF the generic features weigh by."""

    def __init__(self, vocab: Vocabulary, scorer: AnswerScorer | None, depth: int = 20,
                 features: tuple[str, ...] = ("grammar",), generic: GenericFeaturizer | None = None):
        self.vocab, self.scorer, self.depth, self.features = vocab, scorer, depth, tuple(features)
        self.featurizer = Featurizer(vocab.terms, vocab.language)
        self.generic = generic if "generic" in self.features else None
        self.lines = LINES
        if "generic" in self.features and generic is None:
            raise ValueError("generic features need the corpus's IDF (GenericFeaturizer)")
        self._blocks: dict[tuple[str, str], ChunkBlock] = {}

    def block(self, chunk: Chunk, lang: str) -> ChunkBlock:
        """A chunk's candidates prepared for each feature set (generic: spans too, keys keep numbers)."""
        cands = candidates_of(chunk, 1, lang, spans=self.generic is not None)
        b = self.featurizer.block(cands)
        if self.generic is not None:
            b.generic = GenericBlock(cands)
            b.texts = [span_key(c.text) for c in cands]
        return b

    def blocks(self, chunks: list[Chunk], langs: dict[str, str]) -> list[tuple[ChunkBlock, int]]:
        """(the candidates of a chunk, its rank) for the top `depth` chunks (each chunk read once per selector)."""
        out = []
        for n, chunk in enumerate(chunks[: self.depth], start=1):
            key = (chunk.id, chunk.text)
            if key not in self._blocks:
                self._blocks[key] = self.block(chunk, langs.get(chunk.doc_id, ""))
            out.append((self._blocks[key], n))
        return out

    def prepare(self, chunks: list[Chunk], langs: dict[str, str]) -> None:
        """Read every chunk's candidates now (a server does, so no question waits for it)."""
        for i in range(0, len(chunks), self.depth):
            self.blocks(chunks[i:i + self.depth], langs)

    def read(self, query: str, chunks: list[Chunk], langs: dict[str, str]) -> Read:
        a = analyze(query, self.vocab)
        blocks = self.blocks(chunks, langs)
        parts, nulls = [], []
        rows = None
        if self.generic is not None:
            Xg, zg = self.generic.matrix(self.generic.question(query), [(b.generic, n) for b, n in blocks])
            rows = best_lines(Xg, self.lines)
            parts.append(Xg[rows])
            nulls.append(zg)
        if "grammar" in self.features:
            X = self.featurizer.matrix(a, blocks)
            out = ruled_out_of(a, blocks, self.vocab)  # never what the question quotes (ruled_out.py)
            if out.any():  # the rows kept so far (all, or the generic lines'), less those ruled out
                keep = ~out if rows is None else ~out[rows]
                rows = np.flatnonzero(keep) if rows is None else rows[keep]
                parts = [part[keep] for part in parts]
            kept = X if rows is None else X[rows]
            parts.append(kept)
            nulls.append(null_features(a, kept))
        return Read(a, blocks, np.concatenate(parts, axis=1), np.concatenate(nulls).astype(np.float32),
                    feature_names(self.features)[0], rows)

    def select(self, query: str, chunks: list[Chunk], langs: dict[str, str]) -> Selection:
        if self.scorer is None:
            raise ValueError("an answer selector needs a trained scorer")
        r = self.read(query, chunks, langs)
        p, p_none = self.scorer.probabilities(r.X, r.z) if len(r.X) else (np.zeros(0), 1.0)
        return Selection(r, p, p_none, pool(r.texts, p, r.keys, r.analysis))


def load_selector(model, chunks: list[Chunk], langs: dict[str, str], lexicon, terms, depth: int,
                  files: dict | None = None) -> AnswerSelector:
    """The selector of trained weights (checked against their receipt), over the corpus's chunks (and
    their documents' languages), lexicon.json and terms file. `files` names the docs and chunks files
    `chunks` and `langs` come from: when train_reader built the vocabulary from those very files (and
    this lexicon and terms file), the one in its sidecar is read (milliseconds), else it is rebuilt
    from the chunks (a second on the KB). Its feature sets are the sidecar's."""
    from ...artifacts.integrity import load_json, verified
    lex = load_json(lexicon, "lexicon")
    grammar = GrammarTerms.load(terms, lex.get("lexicon", {}))
    record = stored_vocabulary(model, {**(files or {}), "lexicon": lexicon, "terms": terms}) if files else None
    vocab = Vocabulary.from_record(record, grammar) if record else Vocabulary.from_chunks(chunks, lex, grammar, langs)
    features = tuple(selector_sidecar(model).get("feature_sets", ("grammar",)))
    generic = GenericFeaturizer.from_texts([c.text for c in chunks]) if "generic" in features else None
    return AnswerSelector(vocab, AnswerScorer.load(verified(model, "answer selector weights")), depth, features, generic)


def stored_vocabulary(model, files: dict) -> dict | None:
    """The vocabulary train_reader wrote in the selector's sidecar, if built from `files` (name -> path:
    docs, chunks, lexicon, terms, compared by sha256), else None."""
    from pathlib import Path

    from ...artifacts.content import fail
    from ...artifacts.io import sha256_file
    from ...artifacts.vocab_record import vocabulary_problem
    sidecar = Path(model).with_suffix(".json")
    record = selector_sidecar(model).get("vocabulary")
    if record is None:
        return None
    if (problem := vocabulary_problem(record)):
        fail(sidecar, problem)
    built_from = record["built_from"]
    if set(built_from) != set(files):
        return None
    return record if all(built_from[k] == sha256_file(path) for k, path in files.items()) else None


def selector_sidecar(model) -> dict:
    """The selector's sidecar (readers/<name>.json), checked against its receipt and read once per
    version of the file: the reader takes its threshold from it, the selector its vocabulary. Read only."""
    from pathlib import Path

    from ...artifacts.missing import require
    path = require(Path(model).with_suffix(".json"), "answer selector sidecar")
    st = path.stat()
    return _sidecar(str(path), st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=4)
def _sidecar(path: str, size: int, mtime_ns: int) -> dict:
    from ...artifacts.integrity import load_json
    return load_json(path, "answer selector sidecar")
