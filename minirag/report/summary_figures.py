"""The three figures a corpus's report opens with, as PNG files (figures.py draws, saves them alike):

- retrievers.png: each retriever's mean per metric (hit@5, MRR) with its 95 % bootstrap interval,
  for all test questions and for each language's: which retriever is best, and whether the gap
  is more than the questions' noise.
- overlap.png: the mean top-k overlap of every pair of base channels as a heatmap (diagnose's
  overlap.csv): two channels that retrieve the same chunks have little to add to each other.
- losses.png: where each reader's answers were lost, as one stacked bar of stage shares per
  reader and run (evaluation/losses.py).

The interval is a percentile bootstrap over questions (2,000 resamples, seed 0), so the same
per-question scores give the same figure byte for byte.

What it leaves out: significance between two retrievers (the report's paired tests do that).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..evaluation.losses import STAGES
from .figures import _pyplot, save_png

METRICS = ("hit@5", "mrr")
RESAMPLES = 2000


def interval(values: np.ndarray, seed: int = 0) -> tuple[float, float]:
    """The 95 % percentile-bootstrap interval of the mean of `values` (N,)."""
    if len(values) == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), size=(RESAMPLES, len(values)))].mean(axis=1)  # (R,)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def slices_of(per_query: pd.DataFrame, langs: dict[str, str]) -> dict[str, pd.DataFrame]:
    """'all' and one slice per language, of the test split's chunk-level rows."""
    rows = per_query[per_query["level"] == "chunk"]
    if "test" in set(rows["split"]):
        rows = rows[rows["split"] == "test"]
    out = {"all questions": rows}
    lang = rows["qid"].map(langs)
    for code in sorted(set(lang.dropna())):
        out[f"lang {code}"] = rows[lang == code]
    return out


def plot_retrievers(path: str | Path, per_query: pd.DataFrame, langs: dict[str, str], retrievers: list[str]) -> None:
    plt = _pyplot()
    slices = slices_of(per_query, langs)
    fig, axes = plt.subplots(len(slices), len(METRICS), squeeze=False,
                             figsize=(4.2 * len(METRICS), 0.5 + (0.32 * len(retrievers) + 0.7) * len(slices)))
    for row, (name, rows) in enumerate(slices.items()):
        for col, metric in enumerate(METRICS):
            ax = axes[row][col]
            means, lows, highs = [], [], []
            for r in retrievers:
                values = rows.loc[rows["retriever"] == r, metric].to_numpy(dtype=float)
                low, high = interval(values)
                mean = float(values.mean()) if len(values) else float("nan")
                means.append(mean), lows.append(mean - low), highs.append(high - mean)
            y = np.arange(len(retrievers))
            best = int(np.nanargmax(means)) if not np.all(np.isnan(means)) else -1
            colors = ["#1f77b4" if i != best else "#d62728" for i in range(len(retrievers))]
            ax.barh(y, means, xerr=[lows, highs], color=colors, alpha=0.85, capsize=3)
            ax.set_yticks(y, retrievers if col == 0 else [""] * len(retrievers))
            ax.invert_yaxis()
            ax.set_xlim(0, 1)
            ax.grid(axis="x", alpha=0.3)
            n = rows.loc[rows["retriever"] == retrievers[0], "qid"].nunique() if retrievers else 0
            ax.set_title(f"{metric}, {name} (n={n})", fontsize=9)
    fig.suptitle("Retrievers: mean with 95 % bootstrap interval (chunk level, best in red)", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / fig.get_figheight()))  # room for the title above the panels
    save_png(fig, path)
    plt.close(fig)


def overlap_matrix(overlap: pd.DataFrame) -> pd.DataFrame:
    """The 'mean' row of overlap.csv (columns 'a|b') as a symmetric channel × channel matrix, 1 on the diagonal."""
    mean = overlap.set_index("qid").loc["mean"] if "mean" in set(overlap["qid"]) else pd.Series(dtype=float)
    pairs = [(c.split("|", 1), float(v)) for c, v in mean.items() if "|" in c]
    names = list(dict.fromkeys(n for (a, b), _ in pairs for n in (a, b)))
    m = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
    for (a, b), v in pairs:
        m.loc[a, b] = m.loc[b, a] = v
    return m


def plot_overlap(path: str | Path, overlap: pd.DataFrame, k: int) -> None:
    plt = _pyplot()
    m = overlap_matrix(overlap)
    size = 1.6 + 0.55 * max(len(m), 2)
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    image = ax.imshow(m.to_numpy(), vmin=0, vmax=1, cmap="viridis")
    ax.set_xticks(range(len(m)), m.columns, rotation=45, ha="right")
    ax.set_yticks(range(len(m)), m.index)
    for i in range(len(m)):
        for j in range(len(m)):
            v = m.iat[i, j]
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8, color="white" if v < 0.6 else "black")
    fig.colorbar(image, ax=ax, fraction=0.046)
    ax.set_title(f"Mean overlap of the top {k} of two channels", fontsize=10)
    save_png(fig, path)
    plt.close(fig)


def plot_losses(path: str | Path, losses: pd.DataFrame) -> None:
    plt = _pyplot()
    rows = losses[losses["split"] == "test"] if "test" in set(losses.get("split", [])) else losses
    groups = list(rows.groupby(["reader", "run"], sort=False)) if len(rows) else []
    fig, ax = plt.subplots(figsize=(7, 0.9 + 0.4 * max(len(groups), 1)))
    if not groups:
        ax.text(0.5, 0.5, "no reader's answers scored on this corpus", ha="center", va="center")
        ax.set_axis_off()
    for i, ((reader, run), part) in enumerate(groups):
        left = 0.0
        for j, stage in enumerate(STAGES):
            share = float((part["stage"] == stage).mean())
            ax.barh(i, share, left=left, color=f"C{j}", label=stage if i == 0 else None)
            left += share
    if groups:
        ax.set_yticks(range(len(groups)), [f"{reader} over {run}" for (reader, run), _ in groups])
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of answerable test questions")
        ax.legend(ncols=len(STAGES), loc="lower center", bbox_to_anchor=(0.5, 1.0), fontsize=8, frameon=False)
    ax.set_title("Where each answer was lost (first stage that dropped it)", fontsize=10, pad=22)
    save_png(fig, path)
    plt.close(fig)
