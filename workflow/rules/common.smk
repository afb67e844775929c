# Helpers every rule file uses; rule files hold rules only. The config is checked here
# (schema, then minirag's own checks with key paths) before any job is planned.
import json
import os
import sys
from pathlib import Path

from minirag.config.corpus import (
    ConfigError,
    corpus_config,
    corpus_names,
    params_json,
    stage_settings,
)
from minirag.beir import BEIR_DATASETS
from minirag.depends import module_closure
from minirag.graph import CorpusGraph
from minirag.layout import CorpusLayout, report_paths


# Stages run with the interpreter that runs Snakemake, on PATH or not (a venv need not be active);
# envvars passes PATH on to jobs that run elsewhere (a cluster node).
envvars:
    "PATH",


os.environ["PATH"] = os.pathsep.join(
    [str(Path(sys.executable).parent), os.environ.get("PATH", "")]
)

RESULTS = "results"
try:
    CORPORA = {name: corpus_config(config, name) for name in corpus_names(config)}
except ConfigError as exc:
    raise WorkflowError(f"config error: {exc}")
REPORT = config.get("report", "report")
# The layout as patterns: L.run("{name}") is results/{corpus}/runs/{name}.trec.
L = CorpusLayout(Path(RESULTS) / "{corpus}")


wildcard_constraints:
    corpus="|".join(CORPORA),
    name=r"[A-Za-z0-9][A-Za-z0-9_.@=-]*",


def code(stage):
    """The source files the stage's module executes: editing one reruns the stage."""
    return module_closure(Path(workflow.basedir) / "minirag", [f"stages.{stage}"])


def settings(stage):
    """The config values the stage reads, as canonical JSON (the rule's params)."""
    return lambda wc: params_json(
        stage_settings(CORPORA[wc.corpus], stage, getattr(wc, "name", None))
    )


def graph(wc):
    return graph_of(wc.corpus)


def cc(wc):
    return CORPORA[wc.corpus]


def graph_of(corpus):
    return CorpusGraph(CORPORA[corpus], CorpusLayout.of(RESULTS, corpus))


def config_path():
    """The config file the run was given last (what the report says it was built from)."""
    return os.path.relpath(
        list(workflow.overwrite_configfiles or workflow.configfiles)[-1]
    )
