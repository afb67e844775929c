"""The grammar features of the "none of them" option: how well the best candidates fit, and what the question is.

    null_features(analysis, X)  -> (G,) float, one value per name in NULL_FEATURES

A question that names no lemma, concept or option at all ("What is the capital of France?") and whose words
the corpus never writes is likely one the corpus does not answer, whatever its best candidate.

What it leaves out: the generic set's own "none" features (generic.py NULL_GENERIC).
"""

from __future__ import annotations

import numpy as np

from .analysis import QuestionAnalysis
from .features import FEATURES, INDEX

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
