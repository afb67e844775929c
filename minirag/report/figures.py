"""The report's figures: a parameter sweep and a training-loss curve, as PNG files.

matplotlib with the Agg backend (no display needed), no timestamp in the PNG metadata,
so the same numbers give the same bytes.

What it leaves out: styling beyond what makes the numbers readable.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Sequence

from ..artifacts.io import atomic_write_bytes


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_png(fig, path: str | Path) -> None:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None}, bbox_inches="tight")
    atomic_write_bytes(path, buf.getvalue())


def plot_sweep(path: str | Path, title: str, param: str, values: Sequence[float],
               series: dict[str, Sequence[float]]) -> None:
    """One line per metric (e.g. hit@5, MRR) against the swept parameter's values."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for label, ys in series.items():
        ax.plot(values, ys, marker="o", label=label)
    ax.set_xlabel(param)
    ax.set_ylabel("score (answerable questions, chunk level)")
    ax.set_title(title)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend()
    save_png(fig, path)
    plt.close(fig)


def plot_loss(path: str | Path, title: str, losses: Sequence[float], xlabel: str = "epoch",
              ylabel: str = "mean InfoNCE loss") -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    ax.plot(range(1, len(losses) + 1), losses, marker="o" if len(losses) <= 40 else None)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    save_png(fig, path)
    plt.close(fig)
