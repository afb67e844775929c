"""Answer selection: from a question and its ranked chunks to the answers the candidates support, best first.

    selector = AnswerSelector(vocab, scorer, depth=20)
    picked = selector.select(query, chunks, langs)      # chunks in rank order
    picked.answers[0] -> Answer("vine", p=0.91, best=<the cell it comes from>)

The steps, each a module: candidates.py lists every cell and piece of prose of the top `depth` chunks
(and, for a question asking an attribute in its own words, of the chunks beyond the run that state it:
stating.py), generic.py and a domain's feature set describe each candidate, scorer.py gives each a
probability and "none of them" one; pooling.py pools the candidates giving the same answer, cited
from the candidate the scorer likes best; selection.py holds what was read and chosen, and the answer's
shape after scoring (a sentence, a rule's verdict). The reader abstains as the threshold calibrated at training
time says (readers.py). A domain's feature set (minirag/domain.py, point "select.features") is
imported only by a selector that has it.

What it leaves out: retrieval (the chunks come ranked) and writing the answer (readers.py).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from ...domain import hook
from ...text.chunks import Chunk
from .candidates import candidates_of
from .explain import WordWeights, asked_stems, explanation, rule_sentence
from .generic import GENERIC, NULL_GENERIC, GenericBlock, GenericFeaturizer, SpanBlock, span_key
from .polar import question_stems, verdict
from .pooling import pool
from .scorer import AnswerScorer
from .selection import POLAR_TOP, Read, Selection, as_sentences, keyed, reasoned
from .similarity import NULL_SIMILAR, SIMILAR, Similarity
from .stated import Stated
from .stating import StatingIndex
from .unnamed import Names

LINES = 6  # generic: the candidates of a question's six best-covering sentences compete
BEYOND = 3  # generic: chunks beyond the run read for a question asking an attribute the run may not state
SIMILAR_LINES = 2  # generic, with similarity: the candidates of the two sentences closest in meaning compete too (dev)
SIMILARITY = "similarity"  # the feature set of pretrained similarity (similarity.py), on top of the generic one
UNSURE = 0.5  # a domain's choice question gets its rule sentence only when the best answer is less likely (dev)


def best_lines(X: np.ndarray, lines: int) -> np.ndarray:
    """The rows of candidates whose sentence is among the `lines` best-covering ones (ties kept). When the
    question asks for an attribute in its own words ("how heavy") and some candidates state a value of it
    where it is named (a *Weight* row's "3.1 kg") or in the table row the question names (*Swim only*'s
    "€29" under *Monthly*, for "how much is swim-only a month"), only those compete."""
    col = GENERIC.index
    own = X[:, col("g_all_in_q")] > 0  # never what the question already says (its row key, its names)
    in_row = (X[:, col("g_attr_unit")] > 0) & (X[:, col("g_row_q")] > 0)
    typed = ((X[:, col("g_attr_both")] > 0) | in_row) & ~own
    counted = (X[:, col("g_counted")] > 0) & ~own  # "how much butter": the numbers that count butter
    pool = typed if typed.any() else counted if counted.any() else ~own
    cov = X[:, col("g_cov")] + 1e-4 * X[:, col("g_inv_rank")]  # ties: the better chunk's
    distinct = np.unique(cov[pool])[::-1]
    floor = distinct[min(lines, len(distinct)) - 1] if len(distinct) else 0.0
    keep = (cov >= max(floor, 1e-3)) & pool
    if X.shape[1] > len(GENERIC) + SIMILAR.index("s_line"):  # and the sentences closest in meaning
        close = X[:, len(GENERIC) + SIMILAR.index("s_line")]
        top = np.unique(close[pool])[::-1][:SIMILAR_LINES]
        keep |= pool & np.isin(close, top)
    keep = np.flatnonzero(keep)
    return keep if len(keep) else np.flatnonzero(pool)


def feature_names(features: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(candidate feature names, none-option feature names) of a set of feature sets, in column order."""
    names, null = (GENERIC, NULL_GENERIC) if "generic" in features else ((), ())
    if SIMILARITY in features:
        names, null = names + SIMILAR, null + NULL_SIMILAR
    if (fs := domain_feature_set(features)) is not None:
        names, null = names + fs.names, null + fs.null_names
    return names, null


def domain_feature_set(features: tuple[str, ...]):
    """The class of the one feature set a domain provides among `features` (every one but the core's
    `generic` and `similarity`; its columns follow theirs), or None."""
    extra = [f for f in features if f not in ("generic", SIMILARITY)]
    if len(extra) > 1:
        raise ValueError(f"one domain feature set at a time, not {extra}")
    return hook("select.features", extra[0]) if extra else None


class AnswerSelector:
    """`features`: "generic" (spans, answer types, rows and columns: any corpus), a domain's feature set
    (the grammar's: the KB's concepts, read through `vocab`, the corpus's vocabulary: None without it), or
    both (the domain's on top); `generic` holds the corpus's IDF the generic features weigh by."""

    def __init__(self, vocab: Any, scorer: AnswerScorer | None, depth: int = 20,
                 features: tuple[str, ...] = ("grammar",), generic: GenericFeaturizer | None = None,
                 corpus: list[Chunk] | None = None, similarity: Similarity | None = None):
        self.vocab, self.scorer, self.depth, self.features = vocab, scorer, depth, tuple(features)
        self.similarity = similarity if "generic" in self.features else None
        if (SIMILARITY in self.features) != (self.similarity is not None):
            raise ValueError("the similarity features need a Similarity (and one needs them)")
        # generic: the corpus's chunks that state an attribute, read beyond the run (stating.py)
        self.stating = StatingIndex(corpus) if corpus is not None and "generic" in self.features else None
        fs = domain_feature_set(self.features)  # imported only for a selector that has one
        self.featurizer = fs(vocab) if fs is not None else None
        self.generic = generic if "generic" in self.features else None
        # generic alone: what the corpus names, to abstain on questions naming what it never does (unnamed.py)
        self.names = Names([c.text for c in corpus]) if corpus is not None and generic and fs is None else None
        self.stated = Stated(generic) if self.names is not None else None  # and what it states
        self._rule_corpus = corpus if fs is not None else None  # a domain's rule questions read its word weights
        self.lines = LINES
        if "generic" in self.features and generic is None:
            raise ValueError("generic features need the corpus's IDF (GenericFeaturizer)")
        self._blocks: dict[tuple[str, str], object] = {}

    def block(self, chunk: Chunk, lang: str):
        """A chunk's candidates prepared for each feature set (generic: spans too, keys keep numbers)."""
        cands = candidates_of(chunk, 1, lang, spans=self.generic is not None,
                              slots=self.featurizer.cell_slots if self.featurizer is not None else ())
        if self.featurizer is None:
            return SpanBlock(cands)
        b = self.featurizer.block(cands)
        if self.generic is not None:
            b.generic = GenericBlock(cands)
            b.texts = [span_key(c.text) for c in cands]
        return b

    def blocks(self, chunks: list[Chunk], langs: dict[str, str], beyond: list[Chunk] = ()) -> list[tuple]:
        """(the candidates of a chunk, its rank) for the top `depth` chunks, then those `beyond` them (each
        chunk read once per selector)."""
        out = []
        for n, chunk in enumerate(list(chunks[: self.depth]) + list(beyond), start=1):
            key = (chunk.id, chunk.text)
            if key not in self._blocks:
                self._blocks[key] = self.block(chunk, langs.get(chunk.doc_id, ""))
            out.append((self._blocks[key], n))
        return out

    @cached_property
    def weights(self) -> WordWeights | None:
        """The corpus's word weights, for the sentence that states a rule (explain.py), with a domain's feature
        set; made when the first rule question comes (training and form questions never ask), or by `prepare`."""
        return WordWeights.from_texts([c.text for c in self._rule_corpus]) if self._rule_corpus is not None else None

    def prepare(self, chunks: list[Chunk], langs: dict[str, str]) -> None:
        """Read every chunk's candidates and the word weights now (a server does, so no question waits)."""
        for i in range(0, len(chunks), self.depth):
            self.blocks(chunks[i:i + self.depth], langs)
        self.weights  # made now, not when the first rule question comes

    def use_similarity(self, similarity: Similarity) -> None:
        """Read with pretrained similarity from now on (training makes it from the prepared blocks)."""
        self.features, self.similarity = self.features + (SIMILARITY,), similarity

    def prepared(self) -> list:
        """Every chunk's candidates read so far (after `prepare`, the corpus's)."""
        return list(self._blocks.values())

    def read(self, query: str, chunks: list[Chunk], langs: dict[str, str]) -> Read:
        a = None
        if self.featurizer is not None:
            a = self.featurizer.analyze(query)
        q = self.generic.question(query) if self.generic is not None else None
        beyond = []
        if q is not None and q.attrs and self.stating is not None:
            beyond = self.stating.beyond(q.attrs, set(q.stems), {c.id for c in chunks[: self.depth]}, BEYOND)
        blocks = self.blocks(chunks, langs, beyond)
        parts, nulls = [], []
        rows = None
        if q is not None:
            Xg, zg = self.generic.matrix(q, [(b.generic, n) for b, n in blocks])
            if self.similarity is not None:
                Xs = self.similarity.features(query, [b.generic for b, _ in blocks if b.generic.n])
                Xg, zg = np.concatenate([Xg, Xs], axis=1), np.concatenate([zg, self.similarity.null(Xs)])
            rows = best_lines(Xg, self.lines)
            parts.append(Xg[rows])
            nulls.append(zg)
        if self.featurizer is not None:
            X = self.featurizer.matrix(a, blocks)
            out = self.featurizer.ruled_out(a, blocks)  # e.g. never what the question quotes
            if out.any():  # the rows kept so far (all, or the generic lines'), less those ruled out
                keep = ~out if rows is None else ~out[rows]
                rows = np.flatnonzero(keep) if rows is None else rows[keep]
                parts = [part[keep] for part in parts]
            kept = X if rows is None else X[rows]
            parts.append(kept)
            nulls.append(self.featurizer.null_features(a, kept))
        return Read(query, a, blocks, np.concatenate(parts, axis=1), np.concatenate(nulls).astype(np.float32),
                    feature_names(self.features)[0], rows, q)

    def select(self, query: str, chunks: list[Chunk], langs: dict[str, str]) -> Selection:
        if self.scorer is None:
            raise ValueError("an answer selector needs a trained scorer")
        r = self.read(query, chunks, langs)
        p, p_none = self.scorer.probabilities(r.X, r.z) if len(r.X) else (np.zeros(0), 1.0)
        selection = Selection(r, p, p_none, pool(r.texts, p, r.keys, r.analysis))
        if self.names is not None and (unnamed := self.names.unnamed(query)):  # the corpus never names what it asks
            return replace(selection, p_none=1.0, rule="unnamed", why=f"the documents never name {' or '.join(unnamed)}")
        if r.question is not None and (table_selection := keyed(selection)) is not None:
            return table_selection
        polar = self.generic is not None and bool(question_stems(query))
        if polar and (v := verdict(query, list(r.top_lines(POLAR_TOP)))) is not None:
            return selection.decided_by(v, "polar")
        if asked_stems(query):
            if (v := explanation(query, list(r.top_lines(POLAR_TOP, cells=False)))) is not None:
                return selection.decided_by(v, "explain")
        unsure = not selection.answers or selection.answers[0].p < UNSURE
        if self._rule_corpus is not None and (quoted := self.featurizer.rule_question(r.analysis, unsure)) is not None:
            chunk_of = r.top_lines(POLAR_TOP, cells=False)
            if (v := rule_sentence(query, quoted, list(chunk_of), self.weights, chunk_of)) is not None:
                return selection.decided_by(v, "rule")
        # a yes/no question no sentence decides: the sentence that holds the best span, not a phrase cut from it
        if r.question is not None and (r.question.wants_sentence or polar):
            selection = as_sentences(selection)
            if r.question.type == "reason" and (reasoned_selection := reasoned(selection)) is not None:
                return reasoned_selection
        if self.stated is not None:
            return self.stated.marked(selection)
        return selection


def load_selector(model, chunks: list[Chunk], langs: dict[str, str], lexicon, terms, depth: int,
                  files: dict | None = None) -> AnswerSelector:
    """The selector of trained weights (checked against their receipt) with the sidecar's feature sets, over
    the corpus's chunks (and their documents' languages); a domain's feature set reads its vocabulary too
    (over `lexicon` and `terms`, the domain's reader files: None without one)."""
    from ...artifacts.integrity import verified
    sidecar = selector_sidecar(model)
    fs = domain_feature_set(tuple(sidecar.get("feature_sets", ("grammar",))))
    vocab = fs.stored_vocabulary(model, chunks, langs, lexicon, terms, files) if fs is not None else None
    return trained_selector(sidecar, AnswerScorer.load(verified(model, "answer selector weights")), chunks, depth,
                            vocab, str(model))


def trained_selector(report: dict, scorer: AnswerScorer, chunks: list[Chunk], depth: int, vocab: Any = None,
                     where: str = "the answer selector") -> AnswerSelector:
    """The selector a training `report` (the sidecar) describes, with its scorer, over the corpus's chunks."""
    features = tuple(report.get("feature_sets", ("grammar",)))
    generic = GenericFeaturizer.from_texts([c.text for c in chunks]) if "generic" in features else None
    similarity = Similarity.load(report["similarity"], scorer.extra, where) if SIMILARITY in features else None
    return AnswerSelector(vocab, scorer, depth, features, generic, chunks, similarity)


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
