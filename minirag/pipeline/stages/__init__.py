"""Every stage of the graph as a spec, in graph order: the one list the rules, jobs, artifacts,
receipts and command lines are derived from (`python -m minirag.pipeline.stages` prints it).

Each module of minirag/stages/ declares its stages beside its function, as `STAGES`; a domain's
stages come from its `Domain.stages` (minirag/domain.py: the grammar's lexicon). They are found,
not listed: every module of the stages package is imported by name (as the domains are, by
minirag/domain.py) and the specs are ordered by their `phase` and `step` (pipeline/stage.py), so
a new stage is its module alone. Importing the modules is part of every dry run: a stage module
imports its heavy libraries inside its function.

What it leaves out: the rules whose shape is their own (the report, note_missing, the downloads
and generated corpora in workflow/rules/) and what any stage does (minirag/stages/).
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from ...domain import domains
from ..stage import Stage

# minirag/stages/, found beside this package rather than imported: the stages stand above the pipeline
STAGE_PACKAGE = "minirag.stages"
STAGE_FOLDER = Path(__file__).resolve().parents[2] / "stages"


def stage_modules() -> list[str]:
    """The stage package's modules, by name."""
    return sorted(m.name for m in pkgutil.iter_modules([str(STAGE_FOLDER)]))


def found() -> list[Stage]:
    """Every stage module's specs and every domain's, in graph order."""
    specs = [s for m in stage_modules() for s in getattr(importlib.import_module(f"{STAGE_PACKAGE}.{m}"), "STAGES", ())]
    specs += [s for d in domains() for s in d.stage_specs()]
    return sorted(specs, key=lambda s: s.order)


STAGES = found()
BY_RULE = {spec.rule: spec for spec in STAGES}


def settings_of(graph, rule: str, **wildcards) -> dict | None:
    """The config values one job of `rule` reads, e.g. settings_of(graph, "retrieve", name="bm25")."""
    spec = BY_RULE[rule]
    return spec.settings(graph, wildcards) if spec.settings else None
