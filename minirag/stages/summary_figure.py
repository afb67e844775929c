"""summary_figure: eval tables -> figures/summary-<figure>.png, one of the three a corpus's report opens
with (report/summary_figures.py): retrievers (intervals), overlap (heatmap), losses (stage shares)."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import load_records, verified
from ..pipeline.stage import Out, Stage
from ..text.corpus import FOLDERS
from .common import run_stage

# what each figure is drawn from, as artifact kinds, in the order the stage reads them
FIGURE_TABLES = {"retrievers": ("eval:per_query_metrics.csv", "questions"), "overlap": ("diagnosis:overlap.csv",),
                 "losses": ("eval:losses.csv",)}


def csv(path: Path):
    import pandas as pd  # here, not above: every dry run imports this module for its spec
    return pd.read_csv(verified(path, "evaluation table"), keep_default_na=False)


def summary_figure(settings: dict, figure: str, tables: list[Path], out: Path) -> list[Path]:
    """Draw `figure` from its tables (in FIGURE_TABLES order)."""
    # here, not above: matplotlib and pandas cost a dry run, which imports this module for its spec
    from ..report.summary_figures import plot_losses, plot_overlap, plot_retrievers
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


def summary_figures(g) -> list[str]:
    """The figures the report opens with; none with no questions to score."""
    scored = g.source.format not in FOLDERS or bool(g.source.questions)
    return list(FIGURE_TABLES) if scored else []


STAGES = (
    Stage("summary_figure", phase="evaluate", step=50, per="{figure}",
          names=lambda g: [{"figure": f} for f in summary_figures(g)],
          settings=lambda g, w: {"retrievers": g.main_retrievers(), "k": g.corpus.diagnose.k},
          values=lambda g, w: {"figure": w["figure"]}, constraints={"figure": "|".join(FIGURE_TABLES)},
          reads=lambda g, w: {"tables": [str(g.layout.at(k)) for k in FIGURE_TABLES[w["figure"]]]},
          writes={"out": Out("summary_figure", at="figures/summary-{figure}.png", check="figure",
                             report={"caption": "../report/summary.rst", "subcategory": "summary"})}),
)


if __name__ == "__main__":
    run_stage(summary_figure)
