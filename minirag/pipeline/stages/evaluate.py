"""The evaluation stages: evaluate, diagnose, assertions, and the figures the report shows."""

from __future__ import annotations

from ...artifacts.registry import ARTIFACTS, FIGURE_TABLES
from ...settings import settings_to_dict
from ..stage import Out, Stage


def scored(g) -> dict:
    return {"questions": str(g.layout.questions), "docs": str(g.layout.docs), "chunks": str(g.layout.chunks),
            "runs": g.runs()}


def diagnose_settings(g, w) -> dict:
    base = g.base_retrievers()
    return {**settings_to_dict(g.corpus.diagnose), "base": base, "fused": [n for n in g.corpus.retrievers if n not in base]}


EVALUATE = [
    Stage("evaluate", per=None, names=lambda g: [{}], values=lambda g, w: {"corpus": g.layout.root.name},
          settings=lambda g, w: {"domain": g.corpus.domain},
          reads=lambda g, w: {**scored(g), "answers": g.answers(), "candidates": g.all_candidates()},
          writes={"out_dir": Out("eval", arg="folder")}),
    Stage("diagnose", per=None, names=lambda g: [{}], settings=diagnose_settings,
          reads=lambda g, w: {**scored(g), "vectors": str(g.layout.vectors(g.corpus.diagnose.embedder))},
          writes={"out_dir": Out("diagnosis", arg="folder")}),
    Stage("assertions", per=None, names=lambda g: [{}] * bool(g.corpus.assertions),
          settings=lambda g, w: {"strict": g.corpus.strict, "inputs_of": g.inputs_of()},
          reads=lambda g, w: {"assertions": g.corpus.assertions, **scored(g)},
          writes={"out": Out("assertions:assertions.md"), "table": Out("assertions:assertions.json", arg=None)}),
    Stage("sweep_figure", per="{swept}-{param}", names=lambda g: [{"swept": n, "param": p} for n, p in g.sweeps()],
          settings=lambda g, w: g.sweep_settings(w["swept"], w["param"]),
          constraints={"swept": r"[A-Za-z0-9][A-Za-z0-9_-]*", "param": r"[A-Za-z_]+"},
          reads=lambda g, w: {"metrics": str(g.layout.eval("metrics.json"))},
          writes={"out": Out("sweep_figure", report={"caption": "../report/sweep.rst", "subcategory": "sweeps"})}),
    Stage("summary_figure", per="{figure}", names=lambda g: [{"figure": f} for f in g.summary_figures()],
          settings=lambda g, w: {"retrievers": g.main_retrievers(), "k": g.corpus.diagnose.k},
          values=lambda g, w: {"figure": w["figure"]}, constraints={"figure": "|".join(FIGURE_TABLES)},
          reads=lambda g, w: {"tables": [str(ARTIFACTS[k].at(g.layout.root)) for k in FIGURE_TABLES[w["figure"]]]},
          writes={"out": Out("summary_figure", report={"caption": "../report/summary.rst", "subcategory": "summary"})}),
    Stage("loss_figure", names=lambda g: [{"name": n} for n in g.trained() + g.trained_readers()],
          values=lambda g, w: {"title": f"{g.layout.root.name}: {w['name']} training loss"},
          reads=lambda g, w: {"sidecar": g.loss_sidecar(w["name"])},
          writes={"out": Out("loss_figure", report={"caption": "../report/loss.rst", "subcategory": "training"})}),
]
