"""The report's paired comparisons: two runs' scores on the same test questions, tested.

Every difference the report states (a fusion against its best channel, a mechanism against
the run without it, a target "X pp above its best input", a reader on a run against the same
reader on its best run) is a mean over questions of a per-question score. `PairedScores`
reads those scores from the evaluate stage's per-question files (eval/per_query_metrics.csv,
eval/answers.csv; each checked against its receipt), lines two runs up question by question
and compares them (evaluation/significance.py: Fisher's randomization test, a bootstrap
interval). `holm_cells` then adjusts one table's comparisons together and writes each as
"+3.3 pp [−1.2, +7.8], p = 0.16", with " *" where the difference is significant.

What it leaves out: the statistics (evaluation/significance.py), which rows a table has
(tables.py) and the prose around it (markdown.py).
"""

from __future__ import annotations

from functools import cached_property
from typing import Sequence

import pandas as pd

from ..evaluation.assertion_file import load_assertions
from ..evaluation.assertions import in_slice
from ..evaluation.significance import Comparison, SignificanceSettings, compare, with_holm

NOTE = ("Δ: the difference of the means, in percentage points, with its {level:.0%} paired bootstrap interval and the "
        "two-sided p of Fisher's paired randomization test ({permutations:,} seeded sign flips), over {questions}; "
        "* = significant at {alpha:g} after Holm's correction over the table's "
        "{m} comparison{s}.")


class PairedScores:
    """Per-question scores of a corpus's test split, by run (and by reader for answers), and the
    comparisons the report's tables make from them."""

    def __init__(self, tables, settings: SignificanceSettings = SignificanceSettings()):
        self.t, self.settings = tables, settings

    @cached_property
    def metrics(self) -> pd.DataFrame:
        """eval/per_query_metrics.csv, test split: qid, retriever, level and one column per metric."""
        df = self.t.csv("per_query_metrics.csv")
        return df[df["split"] == "test"].astype({"qid": str})

    @cached_property
    def answers(self) -> pd.DataFrame:
        """eval/answers.csv, answerable test questions: whether each reader's answer holds the gold."""
        df = self.t.csv("answers.csv").astype({"qid": str})
        answerable = {q["qid"] for q in self.t.test_questions if q["answerable"]}
        return df[df["qid"].isin(answerable)]

    def scores(self, run: str, metric: str = "hit@5", level: str = "chunk") -> pd.Series:
        """One run's per-question metric, indexed by qid."""
        df = self.metrics
        rows = df[(df["retriever"] == run) & (df["level"] == level)]
        return rows.set_index("qid")[metric].astype(float)

    def compare(self, run: str, control: str, metric: str = "hit@5", level: str = "chunk",
                qids: Sequence[str] | None = None) -> Comparison:
        """`run` against `control` on their shared questions (or on `qids` only)."""
        return self.pair(self.scores(run, metric, level), self.scores(control, metric, level), qids)

    def pair(self, a: pd.Series, b: pd.Series, qids: Sequence[str] | None = None) -> Comparison:
        shared = a.index.intersection(b.index, sort=False)
        if qids is not None:
            shared = shared[shared.isin(list(qids))]
        return compare(a.loc[shared].to_numpy(), b.loc[shared].to_numpy(), self.settings)

    def answer_scores(self, reader: str, run: str) -> pd.Series:
        df = self.answers
        rows = df[(df["reader"] == reader) & (df["retriever"] == run)]
        return rows.set_index("qid")["correct"].astype(str).eq("True").astype(float)

    def against_best(self, reader: str, run: str, by_run: dict) -> Comparison | str:
        """A reader's contains-the-answer on `run` against the same reader's on its best run
        (`by_run`: the reader's metrics per run); "best" for the best run itself."""
        best = max(by_run, key=lambda r: by_run[r]["contains_answer"])  # the first wins a tie
        if run == best:
            return "best"
        return self.pair(self.answer_scores(reader, run), self.answer_scores(reader, best))

    def flips(self, qids: pd.Series, inside: pd.Series, before: pd.Series) -> Comparison:
        """A mechanism's "in the top k" per question (with it: `inside`, without: `before`), over
        the questions its table counts fixed and broken (eval/diagnosis.csv's)."""
        index = pd.Index(qids.astype(str))
        return self.pair(pd.Series(inside.to_numpy(float), index), pd.Series(before.to_numpy(float), index))

    def controls(self, df: pd.DataFrame) -> pd.DataFrame:
        """A trained encoder's runs against their untrained controls (tables.controls_of), with the
        paired test of chunk hit@5 in a "Δ hit@5" column (Holm over the encoder's rows)."""
        if not len(df):
            return df
        df = df.assign(**{"Δ hit@5": [self.compare(t, c) for t, c in zip(df["trained"], df["control"])]})
        return holm_cells(df, "Δ hit@5")

    def target(self, result: dict) -> Comparison | None:
        """None but for an `above_inputs` target: its run against its best input (the input with the
        best mean, as the check chose it), on the target's metric, level and slice of the test split."""
        if result["check"] != "above_inputs":
            return None
        a = next((x for x in load_assertions(self.t.corpus.assertions)
                  if not x.gate and x.index == result["index"]), None)
        if a is None or a.above_inputs is None or result["retriever"] not in self.t.corpus.retrievers:
            return None
        qids = [q["qid"] for q in self.t.test_questions if in_slice(q, a.slice)]
        upstream = self.t.corpus.retrievers[result["retriever"]].upstream()
        means = {r: self.scores(r, a.metric, a.level).loc[lambda s: s.index.isin(qids)].mean() for r in upstream}
        best = max(upstream, key=lambda r: means[r])
        return self.compare(result["retriever"], best, a.metric, a.level, qids)


def holm_cells(df: pd.DataFrame, column: str, drop_empty: bool = False) -> pd.DataFrame:
    """The column's Comparisons adjusted together (Holm) and written out; other cells stay.
    `drop_empty`: a column with no comparison at all is left out."""
    if column not in df or not len(df):
        return df
    if drop_empty and df[column].isna().all():
        return df.drop(columns=column)
    cells = list(df[column])
    found = [c if isinstance(c, Comparison) else None for c in cells]
    adjusted = with_holm(found)
    df = df.copy()
    df[column] = [a.text() if a is not None else c for a, c in zip(adjusted, cells)]
    return df


def note(df: pd.DataFrame, column: str, questions: str = "the test questions both runs are scored on",
         settings: SignificanceSettings = SignificanceSettings()) -> str:
    """The paragraph under a table that says how its Δ column was tested ("" without one)."""
    found = [c for c in df.get(column, []) if isinstance(c, str) and " pp [" in c]
    if not found:
        return ""
    return "\n" + NOTE.format(level=settings.level, permutations=settings.permutations, alpha=settings.alpha,
                              questions=questions,
                       m=len(found), s="s" * (len(found) != 1)) + "\n"
