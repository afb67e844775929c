# Helpers every rule file uses; rule files hold rules only. The config is checked here
# (schema, then minirag's own checks with key paths) before any job is planned.
import json
import os
import re
import sys
import time
from pathlib import Path

from minirag.config.corpus import (
    ConfigError,
    corpus_config,
    corpus_names,
    params_json,
    stage_settings,
)
from minirag.config.load import check_config_files
from minirag.datasets.beir import BEIR_DATASETS
from minirag.pipeline.depends import as_input, module_closure
from minirag.pipeline.graph import CorpusGraph
from minirag.artifacts.kept import special_kept
from minirag.artifacts.layout import CorpusLayout, report_name, report_paths


# Stages run with the interpreter that runs Snakemake, on PATH or not (a venv need not be active);
# envvars passes PATH on to jobs that run elsewhere (a cluster node).
envvars:
    "PATH",


os.environ["PATH"] = os.pathsep.join(
    [str(Path(sys.executable).parent), os.environ.get("PATH", "")]
)

RESULTS = "results"
try:
    check_config_files([*workflow.configfiles, *(workflow.overwrite_configfiles or [])])
    CORPORA = {name: corpus_config(config, name) for name in corpus_names(config)}
except ConfigError as exc:
    raise WorkflowError(f"config error: {exc}")
SPECIAL = [line for c in CORPORA for line in special_kept(Path(RESULTS) / c)]
if SPECIAL:
    raise WorkflowError("\n".join(SPECIAL))
REPORT = config.get("report") or report_name(
    workflow.overwrite_configfiles or workflow.configfiles
)
# The layout as patterns: L.run("{name}") is results/{corpus}/runs/{name}.trec.
L = CorpusLayout(Path(RESULTS) / "{corpus}")


SHARDED = [name for name, c in CORPORA.items() if c["shards"] > 1]
WHOLE = [name for name in CORPORA if name not in SHARDED]


def corpora_pattern(names):
    """A wildcard constraint matching exactly these corpora (none: a pattern that never matches)."""
    return "|".join(names) if names else "(?!)"


wildcard_constraints:
    corpus="|".join(CORPORA),
    shard=r"\d+",
    name=r"[A-Za-z0-9][A-Za-z0-9_.@=-]*",
    reader=r"[A-Za-z0-9][A-Za-z0-9_-]*",


def code(stage):
    """The source files the stage's module executes: editing one reruns the stage."""
    files = module_closure(
        Path(workflow.basedir) / "minirag",
        [f"stages.{stage}"],
        cache=Path(".snakemake") / "minirag-imports.json",
    )
    return [as_input(f) for f in files]


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


def deleted_artifacts(corpus):
    """(the report's note input, the artifacts to name in it): Snakemake does not rebuild a
    deleted intermediate while the files made after it exist (snakemake/snakemake#1978), and
    a touched intermediate does not count as changed. So when a built corpus has an artifact
    missing, the report also reads a note that does not exist yet, results/<corpus>/missing/
    <n+1>.txt, which note_missing writes: the report is out of date, and Snakemake plans
    the deleted file's job and everything after it. Otherwise the report reads the newest note
    (none before the first deletion), so the inputs it was built from stay the same. Nothing is
    written while the Snakefile is read (a dry run or --lint writes nothing)."""
    graph = graph_of(corpus)
    notes = graph.layout.missing_notes()
    built = report_paths(RESULTS, REPORT)[0].exists()
    missing = graph.missing() if built else []
    if missing:
        return [
            str(graph.layout.missing_note((notes[-1] if notes else 0) + 1))
        ], missing
    return ([str(graph.layout.missing_note(notes[-1]))] if notes else []), []


DELETED = {corpus: deleted_artifacts(corpus) for corpus in CORPORA}
# the notes to write, as <corpus>/missing/<n> (rule note_missing's only outputs)
NEW_NOTES = [
    os.path.relpath(DELETED[c][0][0], RESULTS)[: -len(".txt")]
    for c in CORPORA
    if DELETED[c][1]
]
