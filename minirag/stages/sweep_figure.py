"""sweep_figure: eval/metrics.json -> figures/sweep-<retriever>-<param>.png (hit@5 and MRR per point)."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import load_json
from ..pipeline.stage import Out, Stage
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


def sweep_settings(g, swept: str, param: str) -> dict:
    """What the figure of `swept` over `param` plots: its points (run, value) in value order."""
    value = g.corpus.swept_value
    points = sorted([swept] + g.corpus.sweep_groups()[(swept, param)], key=lambda r: value(r, param))
    return {"title": f"{g.layout.root.name}: {swept}, sweeping {param}", "param": param,
            "points": [[r, value(r, param)] for r in points]}


STAGES = (
    Stage("sweep_figure", phase="evaluate", step=40, per="{swept}-{param}",
          names=lambda g: [{"swept": n, "param": p} for n, p in g.sweeps()],
          settings=lambda g, w: sweep_settings(g, w["swept"], w["param"]),
          constraints={"swept": r"[A-Za-z0-9][A-Za-z0-9_-]*", "param": r"[A-Za-z_]+"},
          reads=lambda g, w: {"metrics": str(g.layout.eval("metrics.json"))},
          writes={"out": Out("sweep_figure", at="figures/sweep-{swept}-{param}.png", check="figure",
                             report={"caption": "../report/sweep.rst", "subcategory": "sweeps"})}),
)


if __name__ == "__main__":
    run_stage(sweep_figure)
