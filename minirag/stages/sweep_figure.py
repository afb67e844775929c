"""sweep_figure: eval/metrics.json -> figures/sweep-<retriever>-<param>.png (hit@5 and MRR per point)."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import load_json
from ..report.figures import plot_sweep
from .common import run_stage


def sweep_figure(settings: dict, metrics: Path, out: Path) -> list[Path]:
    """One line per metric against the swept parameter; points are [run, value] in value order."""
    retrieval = load_json(metrics, "metrics")["retrieval"]
    runs = [run for run, _ in settings["points"]]
    plot_sweep(out, settings["title"], settings["param"], [value for _, value in settings["points"]],
               {"hit@5": [retrieval[r]["chunk"]["hit@5"] for r in runs],
                "MRR": [retrieval[r]["chunk"]["mrr"] for r in runs]})
    return [out]


if __name__ == "__main__":
    run_stage(sweep_figure)
