# Helpers every rule file uses: the merged per-corpus config, each stage's params as
# canonical JSON, and the minirag source files a stage runs (so editing them reruns it).
import json
import os
import sys
from pathlib import Path

from minirag.download import BEIR_DATASETS
from minirag.report import figure_paths
from minirag.depends import module_closure
from minirag.config import ConfigError, answered, corpus_config, corpus_names, params_json, stage_settings, upstream

PY = sys.executable
# One BLAS thread for the bi-encoder's matrix products: faster at these sizes on shared cores,
# and its weights are byte-identical only for a fixed thread count.
ONE_BLAS_THREAD = "OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1"
SRC = Path(workflow.basedir) / "minirag"

try:
    CORPORA = {name: corpus_config(config, name) for name in corpus_names(config)}
except ConfigError as exc:
    raise WorkflowError(f"config error: {exc}")


wildcard_constraints:
    corpus="|".join(CORPORA),
    name=r"[A-Za-z0-9_.@=-]+",


def src(*modules):
    """Source files the stage executes: the CLI entry point (its per-command lazy imports not
    followed) and the stage's modules with everything they import from minirag."""
    return [str(SRC / "__main__.py"), str(SRC / "cli.py")] + module_closure(SRC, ("io", *modules))


def settings(stage, name=None):
    return lambda wc: params_json(stage_settings(CORPORA[wc.corpus], stage, name or getattr(wc, "name", None)))


def cc(wc):
    return CORPORA[wc.corpus]


def results(wc, *parts):
    return str(Path("results", wc.corpus, *parts))
