"""Training the answer selector: learner questions from the corpus, the dev questions, candidates, a scorer.

    selector, report = train_selector(docs, chunks, lexicon, terms, questions, SelectorSettings())

1. Questions: `settings.questions` synthesized from the corpus (generic ones from its sentences and tables,
   reading/cloze.py; a domain feature set's own, such as the grammar's learner questions) and the corpus's
   dev questions (never its test ones), each dev question counting `dev_weight` times.
2. Candidates: each question's top `depth` chunks by a BM25 over the chunks (analyzed as the corpus's
   languages, or as a domain feature set says), the candidates of those chunks and their features.
   The right candidates are those whose text is the answer (for a dev question whose answer no candidate
   states exactly, the shortest ones that contain it). An answerable question whose answer retrieval did
   not bring is left out: it says nothing about which candidate answers.
3. The scorer (scorer.py) fitted on all of them; then the abstention threshold: the scorer is refitted
   twice (from its weights, a third of the steps), each time without one half of the dev questions, and
   the threshold is the one whose answers on the left-out halves do best (the share answered right plus
   the share of unanswerable ones abstained).

What it leaves out: answering (selector.py, readers.py).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..evaluation.answers import contains
from ..evaluation.squad import f1 as squad_f1
from ..index.bm25.index import BM25Index, BM25Params
from ..text.analyze import Analyzer, AnalyzerConfig, language_analyzer
from ..text.chunks import Chunk, index_text
from .reading.cloze import synthesize_generic
from .reading.synthesized import LearnerQuestion
from .select.generic import GenericFeaturizer, span_key
from .select.keys import answer_key
from .select.pooling import pool
from .select.scorer import AnswerScorer, Group
from .select.selector import AnswerSelector, domain_feature_set, feature_names
from .select.settings import SelectorSettings
from .select.similarity import Similarity

THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(19))


@dataclass(frozen=True)
class Example:
    query: str
    answer: str | None
    weight: float
    fold: int       # -1: always trained on; 0 or 1: the held-out half it belongs to (dev, else synthetic)
    answerable: bool
    answers: tuple[str, ...] = ()  # every accepted answer (a SQuAD question's crowd answers)
    real: bool = False             # a dev question of the corpus, not a synthesized one


def right_answers(keys: list[str], texts: list[str], answer: str | None, exact_only: bool,
                  answers: tuple[str, ...] = (), generic: bool = False) -> np.ndarray:
    """(m,) which candidates give the answer: the same words, else (dev) the shortest that contain it; with
    generic keys, the same words as any accepted answer, else the candidates of best SQuAD F1 (>= 0.5)."""
    if answer is None:
        return np.zeros(len(keys), dtype=bool)
    if generic:
        wants = {span_key(a) for a in (answers or (answer,))}
        right = np.array([k in wants for k in keys], dtype=bool)
        if right.any() or exact_only or not len(keys):
            return right
        f1 = np.array([squad_f1(t, list(answers or (answer,))) for t in texts])
        return (f1 >= max(0.5, f1.max())) if f1.max() >= 0.5 else right
    want = answer_key(answer)
    right = np.array([k == want for k in keys], dtype=bool)
    if right.any() or exact_only:
        return right
    holding = [i for i, t in enumerate(texts) if contains(t, answer)]
    if holding:
        shortest = min(len(keys[i].split()) for i in holding)
        right[[i for i in holding if len(keys[i].split()) == shortest]] = True
    return right


def dev_fold(qid: str) -> int:
    return int(hashlib.sha256(qid.encode("utf-8")).hexdigest()[:8], 16) % 2


def examples(learner: list[LearnerQuestion], questions: list[dict], dev_weight: float,
             hold_synthetic: bool = False) -> list[Example]:
    """The synthesized questions and the dev ones. A third of the synthesized ones are held out in two
    halves for the threshold too when there are no dev questions, or always with `hold_synthetic` (the
    generic reader's: 25-30 dev questions are too few to set a threshold alone)."""
    dev = [q for q in questions if q.get("split") == "dev"]
    held = hold_synthetic or not dev
    out = [Example(q.query, q.answer, 1.0, dev_fold(q.qid) if held and not i % 3 else -1, q.answer is not None)
           for i, q in enumerate(learner)]
    out += [Example(q["query"], q.get("answer"), dev_weight, dev_fold(q["qid"]), bool(q.get("answerable", True)),
                    tuple(q.get("answers") or ()), True) for q in dev]
    return out


def training_analyzer(features: tuple[str, ...], langs: set[str]) -> AnalyzerConfig:
    """How a training question's chunks are found: as a domain's feature set says (the grammar's: English and
    Spanish question filler dropped, Spanish stems, accents folded); else as the corpus's own languages
    are read (text/analyze.py `language_analyzer`: no Spanish stemmer for a corpus without Spanish)."""
    if (fs := domain_feature_set(features)) is not None:
        return fs.training_analyzer
    return language_analyzer(tuple(sorted(langs)))


def bm25_over(chunks: list[Chunk], analyzer: AnalyzerConfig) -> BM25Index:
    """The BM25 a training question's chunks come from."""
    return BM25Index.build([index_text(c) for c in chunks], Analyzer(analyzer), BM25Params(title_weight=1.0),
                           [c.title for c in chunks])


def synthesized(docs: list[dict], terms: Any, lexicon: dict, s: SelectorSettings, vocab: Any = None
                ) -> list[LearnerQuestion]:
    """The questions the selector learns from besides dev: a domain feature set's (the grammar's: learner
    questions and, given the corpus's vocabulary, off-topic ones about its examples' content), and questions
    from the corpus's sentences and tables, answerable and not (generic ones)."""
    out = []
    if (fs := domain_feature_set(s.features)) is not None:
        out += fs.questions(docs, terms, lexicon, s.questions, s.seed, vocab)
    return out + (synthesize_generic(docs, s.questions, s.seed, s.minimal_edits) if "generic" in s.features else [])


def similarity_for(s: SelectorSettings, selector: AnswerSelector, chunks: list[Chunk], langs: dict[str, str],
                   log: Callable[[str], None]) -> tuple[Similarity | None, list[str], dict]:
    """The pretrained similarity the generic features get (`s.similarity`: null = where the model is
    installed; true: it must be; false: never), its texts encoded, the signals the selector reads and, when
    it goes without similarity, why: for the report."""
    signals = [f"{f} features" for f in s.features if f != "generic"]  # a domain's feature set
    if "generic" not in s.features:
        return None, signals, {}
    signals = ["words", "attribute cues"] + signals
    if s.similarity is False:
        return None, signals, {"similarity_off": "similarity: false"}
    from ..index.bert import SentenceEncoder
    from ..index.bert_folder import folder_hash
    from ..index.embedders import resolve_model_path
    try:
        folder = resolve_model_path(s.similarity_model)
    except ValueError as exc:
        if s.similarity:
            raise ValueError(f"similarity: true, but {exc}") from None
        log(f"train_reader: pretrained similarity off, its model is not installed ({exc})")
        return None, signals, {"similarity_off": f"{s.similarity_model} is not installed"}
    selector.prepare(chunks, langs)
    texts = [t for b in selector.prepared() for t in b.generic.line_texts + b.generic.header_texts]
    t0 = time.perf_counter()
    sim = Similarity.train(SentenceEncoder.from_folder(folder), folder_hash(folder), texts)
    log(f"train_reader: pretrained similarity: {len(sim.texts)} sentences and headers encoded in "
        f"{time.perf_counter() - t0:.0f} s")
    return sim, signals + ["pretrained similarity"], {}


def decide(p_best: float, p_none: float, threshold: float, rule: str = "best") -> bool:
    """Answer (True) or abstain. Rule "best": the best answer must beat "none of them" and the threshold;
    rule "none" (generic features, hundreds of spans sharing the probability): "none of them" must be
    at most the threshold."""
    if rule == "none":
        return p_none <= threshold
    return p_best >= threshold and p_best > p_none


def calibrate(outcomes: list[tuple[bool, float, float, float]], rule: str = "best") -> tuple[float, dict]:
    """The threshold whose decisions do best on (answerable, best answer right (or its F1), p_best, p_none)
    outcomes: mean of the share of answerable questions answered right and of unanswerable ones abstained."""
    def score(th: float) -> tuple[float, float, float]:
        ans = [r for a, r, pb, pn in outcomes if a and decide(pb, pn, th, rule)]
        right = sum(ans) / max(1, sum(a for a, *_ in outcomes))
        unans = [not decide(pb, pn, th, rule) for a, _, pb, pn in outcomes if not a]
        abstained = sum(unans) / len(unans) if unans else 1.0
        return (right + abstained) / 2, right, abstained
    grid = THRESHOLDS if rule == "best" else tuple(round(0.025 * i, 3) for i in range(1, 41))
    best = max(grid, key=lambda th: (score(th)[0], -th))
    total, right, abstained = score(best)
    return best, {"threshold": best, "answered_right": round(right, 4), "unanswerable_abstained": round(abstained, 4),
                  "questions": len(outcomes)}


def heldout_outcomes(scorer: AnswerScorer, groups: list, items: list, s: SelectorSettings, generic: bool) -> list:
    """(answerable, how right, the best answer's p, p of none) for each question, answered by a scorer
    that did not see its fold: what the threshold is calibrated on. Each fold's scorer is trained from
    scratch: one started from the whole scorer's weights has already seen the fold it is scored on."""
    outcomes = []
    for k in (0, 1):
        held = AnswerScorer(len(scorer.mean), len(scorer.params["u"]), s.hidden, s.seed)
        held.fit_bagged([g for g, (ex, *_) in zip(groups, items) if ex.fold != k], s.bag_count(), s.steps, s.lr, s.l2, s.seed)
        for ex, r, right in (it for it in items if it[0].fold == k):
            p, p_none = held.probabilities(r.X, r.z) if len(r.X) else (np.zeros(0), 1.0)
            answers = pool(r.texts, p, r.keys, r.analysis)
            best = answers[0] if answers else None
            said = best.text if best else ""
            ok = (squad_f1(said, list(ex.answers or (ex.answer,))) if generic
                  else float(right[best.best] or contains(said, ex.answer))) if best and ex.answer else 0.0
            outcomes.append((ex.answerable, ok, best.p if best else 0.0, p_none))
    return outcomes


def train_selector(docs: list[dict], chunks: list[Chunk], lexicon: dict, terms: Any, questions: list[dict],
                   s: SelectorSettings, log: Callable[[str], None] = lambda m: None
                   ) -> tuple[AnswerScorer, list[LearnerQuestion], dict]:
    """(scorer, the learner questions, what the sidecar records) for the corpus (module docstring)."""
    t0 = time.perf_counter()
    langs = {d["doc_id"]: d.get("lang", "") for d in docs}
    fs = domain_feature_set(s.features)
    vocab = fs.vocabulary(chunks, lexicon, terms, langs) if fs is not None else None
    generic = "generic" in s.features
    selector = AnswerSelector(vocab, None, s.depth, s.features,
                              GenericFeaturizer.from_texts([c.text for c in chunks]) if generic else None, chunks)
    similarity, signals, off = similarity_for(s, selector, chunks, langs, log)
    if similarity is not None:
        selector.use_similarity(similarity)
    names, null_names = feature_names(selector.features)
    bm25 = bm25_over(chunks, training_analyzer(s.features, set(langs.values()) - {""}))
    learner = synthesized(docs, terms, lexicon, s, vocab)
    items, groups = [], []
    every = examples(learner, questions, s.dev_weight, hold_synthetic=generic)
    if similarity is not None:
        similarity.questions([ex.query for ex in every])
    for i, ex in enumerate(every, start=1):
        idx, _ = bm25.search(ex.query, s.depth)
        r = selector.read(ex.query, [chunks[j] for j in idx], langs)
        right = right_answers(r.keys, r.texts, ex.answer, not ex.real, ex.answers, generic)
        if i % 500 == 0:
            log(f"train_reader: {i}/{len(every)} questions read ({time.perf_counter() - t0:.0f} s)")
        if ex.answerable and not right.any():
            continue  # retrieval missed its answer: nothing to learn about choosing
        items.append((ex, r, right))
        groups.append(Group(r.X, right, r.z, ex.weight))
    log(f"train_reader: {len(groups)} questions with candidates, {sum(len(g.right) for g in groups)} candidates")
    scorer = AnswerScorer(len(names), len(null_names), s.hidden, s.seed)
    losses = scorer.fit_bagged(groups, s.bag_count(), s.steps, s.lr, s.l2, s.seed)
    outcomes = heldout_outcomes(scorer, groups, items, s, generic)
    rule = "none" if generic else "best"
    threshold, dev = calibrate(outcomes, rule)
    real = sum(ex.real for ex, *_ in items)
    dev["calibrated_on"] = ("dev+synthetic" if generic else "dev") if real else "synthetic"
    if not real:
        dev["warning"] = ("no real question: the threshold was calibrated on held-out synthesized questions; "
                          "add dev questions (split: dev) to calibrate it on questions people ask")
        log(f"train_reader: warning: {dev['warning']}")
    log(f"train_reader: fitted in {time.perf_counter() - t0:.0f} s; dev (held out) at threshold {threshold}: {dev}")
    if similarity is not None:
        scorer.extra = similarity.arrays()
    report = {"threshold": threshold, "rule": rule, "dev_heldout": dev, "calibrated_on": dev["calibrated_on"],
              "feature_sets": list(selector.features), "signals": signals, **off,
              "features": list(names), "null_features": list(null_names),
              "weights": scorer.describe(names),
              "training": {"learner_questions": len(learner),  # its wall time is the job's benchmark file's
                           "dev_questions": sum(q.get("split") == "dev" for q in questions),
                           "questions_trained": len(groups), "candidates": int(sum(len(g.right) for g in groups)),
                           "steps": s.steps, "bags": s.bag_count()},
              "loss_curve": {"window": 10, "label": "listwise cross-entropy",
                             "values": [round(float(np.mean(losses[i:i + 10])), 5) for i in range(0, len(losses), 10)]},
              # last: what answering reads instead of rebuilding it (selector.py); the grammar features' alone
              **({"similarity": similarity.record(s.similarity_model)} if similarity is not None else {}),
              **({"vocabulary": vocab.to_record()} if vocab is not None else {})}
    return scorer, learner, report
