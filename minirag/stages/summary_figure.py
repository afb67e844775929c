"""summary_figure: eval tables -> figures/summary-<figure>.png, one of the three a corpus's report opens
with (report/summary_figures.py): retrievers (intervals), overlap (heatmap), losses (stage shares)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..artifacts.integrity import load_records, verified
from ..artifacts.registry import FIGURE_TABLES
from ..report.summary_figures import plot_losses, plot_overlap, plot_retrievers
from .common import run_stage


def csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(verified(path, "evaluation table"), keep_default_na=False)


def summary_figure(settings: dict, figure: str, tables: list[Path], out: Path) -> list[Path]:
    """Draw `figure` from its tables (in FIGURE_TABLES order)."""
    if figure == "retrievers":
        langs = {q["qid"]: q["lang"] for q in load_records(tables[1], "questions")}
        plot_retrievers(out, csv(tables[0]), langs, settings["retrievers"])
    elif figure == "overlap":
        plot_overlap(out, csv(tables[0]), settings["k"])
    elif figure == "losses":
        plot_losses(out, csv(tables[0]))
    else:
        raise ValueError(f"summary_figure: unknown figure {figure!r} (known: {', '.join(FIGURE_TABLES)})")
    return [out]


if __name__ == "__main__":
    run_stage(summary_figure)
