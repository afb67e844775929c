"""Fusion weights fitted on judged questions: a grid over the weight simplex, scored by hit@5 + MRR@10.

    weights = argmax over w in {0, 0.1, ..., 1}^n, sum w = 1, of  mean_q hit@5(q) + mean_q MRR@10(q)

where each question's ranking is the fusion's, with weights w, of its channels' rankings. A weight
of 1 on one channel ranks as that channel does (RRF and linear alike), so the grid holds every
channel alone and the fitted fusion does no worse than its best channel on the questions it is
fitted on. Ties go to the point nearest equal weights, then the first in grid order.

The questions are the corpus's dev split (never test) or, for a corpus without one, questions
synthesised from it that nothing feeding the fusion trained on (stages/fit_questions.py), each
judged by the chunk it was made from. Those flatter the channel trained on their templates, so
their best point sits at an edge of the simplex; `shrink` moves it towards equal weights:

    weights = (1 - shrink) * argmax + shrink * (1/n, ..., 1/n)

(off the grid for most shrinks; 0 keeps the argmax). What was fitted, on what and how well is
returned for the run's receipt, the argmax beside shrunk weights.

What it leaves out: per-query weights (the same weights serve every question) and where the
questions and rankings come from (the retrieve stage).
"""

from __future__ import annotations

from itertools import product
from typing import Callable, Sequence

import numpy as np

from .ranking import Ranking

STEP = 0.1
CUTOFF_HIT, CUTOFF_RR = 5, 10


def simplex(n: int, step: float = STEP) -> list[tuple[float, ...]]:
    """Every n-vector of multiples of `step` (>= 0) summing to 1, in lexicographic order."""
    m = int(round(1 / step))
    return [tuple(round(i / m, 6) for i in p) for p in product(range(m + 1), repeat=n) if sum(p) == m]


def question_score(ranking: Sequence[str], relevant: dict[str, int]) -> float:
    """hit@5 + reciprocal rank within the top 10 of one question."""
    hit = float(any(relevant.get(c, 0) > 0 for c in ranking[:CUTOFF_HIT]))
    rr = next((1.0 / (i + 1) for i, c in enumerate(ranking[:CUTOFF_RR]) if relevant.get(c, 0) > 0), 0.0)
    return hit + rr


def judged(qrels: dict[str, dict[str, int]]) -> list[str]:
    """The questions of `qrels` with a relevant chunk: the ones a fit scores."""
    return [q for q in qrels if any(v > 0 for v in qrels[q].values())]


def grid_scores(fuse: Callable[[list[Ranking], list[float]], Ranking], inputs: list[dict[str, Ranking]],
                qrels: dict[str, dict[str, int]]) -> tuple[list[tuple[float, ...]], np.ndarray]:
    """The weight grid and each point's per-question scores on the judged questions of `qrels`:
    (grid, scores (grid points, questions))."""
    qids = judged(qrels)
    grid = simplex(len(inputs))
    scores = np.array([[question_score([c for c, _ in fuse([r.get(q, []) for r in inputs], list(w))], qrels[q])
                        for q in qids] for w in grid], dtype=np.float64).reshape(len(grid), len(qids))
    return grid, scores


def best_point(grid: list[tuple[float, ...]], means: np.ndarray) -> int:
    """The index of the best mean score; ties go to the point nearest equal weights, then the first."""
    equal = np.full(len(grid[0]), 1.0 / len(grid[0]))
    return max(range(len(grid)), key=lambda i: (round(float(means[i]), 9),
                                                -float(np.abs(np.array(grid[i]) - equal).sum()), -i))


def shrunk(weights: Sequence[float], shrink: float) -> list[float]:
    """`weights` (on the simplex) moved `shrink` of the way to equal weights."""
    return [round((1 - shrink) * w + shrink / len(weights), 6) for w in weights]


def fit_weights(fuse: Callable[[list[Ranking], list[float]], Ranking], inputs: list[dict[str, Ranking]],
                qrels: dict[str, dict[str, int]], shrink: float = 0.0) -> dict:
    """The grid point whose fusion of `inputs` (one {qid: ranking} per channel) scores best on `qrels`,
    shrunk `shrink` of the way to equal weights.

    Returns {"weights", "score", "channels_alone", "questions"}: the mean score of the fitted weights
    and of each channel alone on the same questions; with a shrink, "argmax" (the best grid point's
    weights and score) and "shrink" too."""
    grid, scores = grid_scores(fuse, inputs, qrels)
    n, means = len(inputs), scores.mean(axis=1)  # (grid points,)
    best = best_point(grid, means)
    alone = [round(float(means[grid.index(tuple(1.0 if j == i else 0.0 for j in range(n)))]), 4) for i in range(n)]
    record = {"weights": list(grid[best]), "score": round(float(means[best]), 4), "channels_alone": alone,
              "questions": scores.shape[1], "objective": f"mean hit@{CUTOFF_HIT} + MRR@{CUTOFF_RR}"}
    if not shrink:
        return record
    weights = shrunk(grid[best], shrink)
    score = np.mean([question_score([c for c, _ in fuse([r.get(q, []) for r in inputs], weights)], qrels[q])
                     for q in judged(qrels)])
    return {**record, "weights": weights, "score": round(float(score), 4), "shrink": shrink,
            "argmax": {"weights": record["weights"], "score": record["score"]}}
