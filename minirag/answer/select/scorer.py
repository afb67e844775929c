"""The answer scorer: a listwise logistic regression (or a one-hidden-layer MLP) over a question's candidates.

Each question's candidates compete in one softmax together with a "none of them" option, whose score
comes from question-level features (`null_features`: how much of the question the best candidates
cover, whether it names a language the corpus does not teach):

    s_i = f(x_i)                      f(x) = w·x + b, or w·tanh(W x + c) + b with `hidden` > 0
    s_0 = u·z                         the "none of them" option
    P(i) = exp(s_i) / Σ_j exp(s_j)    j over the question's candidates and the none option

Training maximises (a weighted mean over questions of) log Σ_{i ∈ right} P(i) — the probability of the right answer, whichever of its
copies (the same form in two tables) — or log P(0) when no candidate is right (an unanswerable
question, or one whose answer retrieval did not bring), with an L2 penalty, by full-batch Adam over
all questions at once (segment sums: `np.add.reduceat`). Features are standardised with the training
set's mean and deviation, stored with the weights. With `bags`, the weights are the mean of fits on bootstrap
samples of the questions (`fit_bagged`). Seeded: the same data give the same bytes.

What it leaves out: features (features.py), and calibration (train_selector.py picks the threshold).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

EXTRA = "similar_"  # the prefix of the arrays a weights file keeps for the features, not the scorer


@dataclass
class Group:
    """One question: its candidates' features, which are right, and its none-option features."""
    X: np.ndarray      # (m, F)
    right: np.ndarray  # (m,) bool
    z: np.ndarray      # (G,)
    weight: float = 1.0  # how much the question counts in the loss


def segment_logsumexp(s: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """log Σ exp over each segment of s (segments begin at `starts`, none empty)."""
    m = np.maximum.reduceat(s, starts)                               # (Q,)
    lengths = np.diff(np.append(starts, len(s)))
    e = np.exp(s - np.repeat(m, lengths))
    return m + np.log(np.add.reduceat(e, starts))


class AnswerScorer:
    def __init__(self, n_features: int, n_null: int, hidden: int = 0, seed: int = 0):
        self.hidden = hidden
        self.mean, self.std = np.zeros(n_features, np.float32), np.ones(n_features, np.float32)
        params = {"u": np.zeros(n_null), "b": np.zeros(1)}
        if hidden:  # numpy.random only here: a linear scorer (and every load) never imports it
            rng = np.random.default_rng(seed)
            params |= {"W": rng.normal(0, 1 / np.sqrt(n_features), (n_features, hidden)), "c": np.zeros(hidden),
                       "w": rng.normal(0, 1 / np.sqrt(hidden), hidden)}
        else:
            params["w"] = np.zeros(n_features)
        self.params = {k: v.astype(np.float32) for k, v in params.items()}  # float32: the data are
        # arrays kept beside the weights that the features need (similarity.py's line vectors), by name
        self.extra: dict[str, np.ndarray] = {}

    # ------------------------------------------------------------ scoring
    def candidate_scores(self, X: np.ndarray) -> np.ndarray:
        """s_i of each row of X (m, F) -> (m,)."""
        Xs = (X - self.mean) / self.std
        p = self.params
        if self.hidden:
            return np.tanh(Xs @ p["W"] + p["c"]) @ p["w"] + p["b"][0]
        return Xs @ p["w"] + p["b"][0]

    def probabilities(self, X: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, float]:
        """(P(i) for each candidate (m,), P(none)) for one question."""
        s = np.append(self.candidate_scores(X), z @ self.params["u"])  # (m + 1,)
        e = np.exp(s - s.max())
        p = e / e.sum()
        return p[:-1], float(p[-1])

    # ------------------------------------------------------------ training
    def fit(self, groups: list[Group], steps: int = 300, lr: float = 0.05, l2: float = 1e-3) -> list[float]:
        """Full-batch Adam on the listwise loss; returns the loss per step."""
        X = np.concatenate([g.X for g in groups]).astype(np.float32)     # (M, F)
        right = np.concatenate([g.right for g in groups])                # (M,)
        Z = np.stack([g.z for g in groups]).astype(np.float32)           # (Q, G)
        sizes = np.array([len(g.right) for g in groups])
        weights = np.array([g.weight for g in groups], dtype=np.float64)
        weights /= weights.sum()
        self.mean = X.mean(axis=0, dtype=np.float64).astype(np.float32)
        std = X.std(axis=0, dtype=np.float64)
        self.std = np.where(std > 1e-6, std, 1.0).astype(np.float32)
        Xs = (X - self.mean) / self.std
        owner = np.repeat(np.arange(len(groups)), sizes)                 # (M,) question of each candidate
        # each segment: the none option first, then the question's candidates
        starts = np.concatenate([[0], np.cumsum(sizes + 1)[:-1]])        # (Q,)
        is_null = np.zeros(int((sizes + 1).sum()), dtype=bool)
        is_null[starts] = True
        answerable = np.zeros(len(groups), dtype=bool)
        np.logical_or.at(answerable, owner, right)
        target_mask = np.zeros(len(is_null), dtype=bool)
        target_mask[~is_null] = right
        target_mask[starts] = ~answerable
        moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in self.params.items()}
        losses = []
        for t in range(1, steps + 1):
            p = self.params
            h = np.tanh(Xs @ p["W"] + p["c"]) if self.hidden else None   # (M, H)
            s_cand = (h @ p["w"] if self.hidden else Xs @ p["w"]) + p["b"][0]
            s = np.empty(len(is_null), dtype=np.float32)
            s[is_null], s[~is_null] = Z @ p["u"], s_cand
            lse = segment_logsumexp(s, starts)                           # (Q,)
            lse_right = segment_logsumexp(np.where(target_mask, s, -np.inf), starts)
            losses.append(float(weights @ (lse - lse_right)))
            seg = np.repeat(np.arange(len(groups)), sizes + 1)
            prob = np.exp(s - lse[seg])
            q_right = np.where(target_mask, np.exp(s - lse_right[seg]), 0.0)
            d = (prob - q_right) * weights[seg]                          # dLoss/ds
            d_cand, d_null = d[~is_null], d[is_null]
            d_cand, d_null = d_cand.astype(np.float32), d_null.astype(np.float32)
            grads = {"u": Z.T @ d_null, "b": np.array([d_cand.sum()], dtype=np.float32)}
            if self.hidden:
                grads["w"] = h.T @ d_cand + l2 * p["w"]
                dh = np.outer(d_cand, p["w"]) * (1 - h * h)              # (M, H)
                grads["W"], grads["c"] = Xs.T @ dh + l2 * p["W"], dh.sum(axis=0)
            else:
                grads["w"] = Xs.T @ d_cand + l2 * p["w"]
            for k, g in grads.items():
                m, v = moments[k]
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                p[k] -= lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        return losses

    def fit_bagged(self, groups: list[Group], bags: int, steps: int = 300, lr: float = 0.05, l2: float = 1e-3,
                   seed: int = 0) -> list[float]:
        """`fit`, then, with `bags` > 1 (a linear scorer), the mean of that many fits each on a bootstrap
        sample of the questions (Breiman 1996, bagging): a question more or less then moves the weights far
        less. The weights are averaged over the raw features (w / std, b - mean · w / std) and put back on
        this fit's standardisation; the none option's weights (its features are not standardised) as they are."""
        losses = self.fit(groups, steps, lr, l2)
        if bags <= 1 or self.hidden:
            return losses
        rng = np.random.default_rng(seed)
        ws, bs, us = [], [], []
        for _ in range(bags):
            counts = rng.multinomial(len(groups), np.full(len(groups), 1 / len(groups)))  # (Q,) draws of each
            one = AnswerScorer(len(self.mean), len(self.params["u"]))
            one.fit([replace(g, weight=g.weight * c) for g, c in zip(groups, counts) if c], steps, lr, l2)
            w = one.params["w"].astype(np.float64) / one.std                 # (F,) per raw unit
            ws.append(w)
            bs.append(one.params["b"][0] - one.mean @ w)
            us.append(one.params["u"])
        w = np.mean(ws, axis=0)
        self.params["w"] = (w * self.std).astype(np.float32)
        self.params["b"] = np.array([np.mean(bs) + self.mean @ w], dtype=np.float32)
        self.params["u"] = np.mean(us, axis=0).astype(np.float32)
        return losses

    # ------------------------------------------------------------ files
    def save_atomic(self, path: str | Path) -> None:
        """The weights and standardisation as an .npz, written atomically."""
        from ...artifacts.io import save_npz
        save_npz(path, mean=self.mean, std=self.std, hidden=np.array([self.hidden]), **self.params, **self.extra)

    @classmethod
    def load(cls, path: str | Path) -> "AnswerScorer":
        from ...artifacts import content
        from ...artifacts.io import load_npz
        arrays = load_npz(path)
        content.weights(arrays, path)  # numbers, every one finite
        try:
            extra = {k: arrays.pop(k) for k in [k for k in arrays if k.startswith(EXTRA)]}
            hidden = int(arrays.pop("hidden")[0])
            mean, std = arrays.pop("mean"), arrays.pop("std")
            scorer = cls(len(mean), len(arrays["u"]), hidden)
        except (KeyError, IndexError, TypeError) as exc:
            raise content.ContentError(f"{path}: not an answer scorer's weights ({exc!r} missing or empty)") from None
        shapes = {k: v.shape for k, v in scorer.params.items()}
        if {k: v.shape for k, v in arrays.items()} != shapes or std.shape != mean.shape:
            raise content.ContentError(f"{path}: answer scorer weights of shapes "
                                       f"{ {k: v.shape for k, v in arrays.items()} }, expected {shapes}")
        scorer.mean, scorer.std, scorer.params, scorer.extra = mean, std, arrays, extra
        return scorer

    def describe(self, names: tuple[str, ...]) -> dict:
        """The linear weights by feature name (per standard deviation), for the sidecar a person reads."""
        if self.hidden:
            return {"hidden": self.hidden}
        return {n: round(float(w), 4) for n, w in zip(names, self.params["w"])}

