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
    checked_corpus,
    corpus_names,
    params_json,
)
from minirag.config.load import check_config_files, missing_source
from minirag.datasets.beir import BEIR_DATASETS
from minirag.pipeline.depends import as_input, stage_code
from minirag.pipeline.graph import CorpusGraph
from minirag.artifacts.kept import scheduler_scratch_problem, special_kept
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
    # each corpus's checked config, typed (minirag/config/typed.py)
    CORPORA = {name: checked_corpus(config, name) for name in corpus_names(config)}
    # a folder that is not there would fail curate after Snakemake cleared the last good build's documents
    for name, corpus in CORPORA.items():
        if problem := missing_source(corpus.source, name, folders_only=True):
            raise ConfigError(problem)
    REPORT = report_name(config, workflow.overwrite_configfiles or workflow.configfiles)
except (ConfigError, ValueError) as exc:
    sys.exit(f"config error: {exc}")  # one line on the terminal, no traceback
# Snakemake's job scheduler ends in its own traceback when TMPDIR is full; whether this
# run is a dry one is not known yet while the workflow is read, so any run checks it
if workflow.is_main_process:
    SCRATCH = scheduler_scratch_problem()
    if SCRATCH:
        sys.exit(f"error: {SCRATCH}")
SPECIAL = [
    line for c in CORPORA for line in special_kept(Path(RESULTS) / c)
] + special_kept(
    Path(RESULTS), tuple(p.name for p in report_paths(Path(RESULTS), REPORT))
)
if SPECIAL:
    # one line each, as every refusal
    sys.exit("\n".join(f"error: {line}" for line in SPECIAL))
# The layout as patterns: L.run("{name}") is results/{corpus}/runs/{name}.trec.
L = CorpusLayout(Path(RESULTS) / "{corpus}")


SHARDED = [name for name, c in CORPORA.items() if c.shards > 1]
WHOLE = [name for name in CORPORA if name not in SHARDED]


def corpora_pattern(names):
    """A wildcard constraint matching exactly these corpora (none: a pattern that never matches)."""
    return "|".join(names) if names else "(?!)"


wildcard_constraints:
    corpus="|".join(CORPORA),
    shard=r"\d+",
    name=r"[A-Za-z0-9][A-Za-z0-9_.@=-]*",
    reader=r"[A-Za-z0-9][A-Za-z0-9_-]*",


def code(stage_module, only=None, also=()):
    """The source files the module `python -m` runs executes (minirag.stages.<stage>, or a domain's stage),
    the domains' hooks it asks for included, the generated artifact table aside: editing one reruns the stage.
    `only`: of a package that imports its folder's modules when asked (rank/kinds/), those the job runs;
    `also`: modules it runs by name besides (a kind's `runs_also`).
    """
    key = (
        stage_module,
        tuple((k, tuple(v)) for k, v in sorted((only or {}).items())),
        tuple(also),
    )
    if key not in CODE:
        files = stage_code(
            Path(workflow.basedir) / "minirag",
            stage_module,
            cache=Path(".snakemake") / "minirag-imports.json",
            only=only,
            also=also,
        )
        CODE[key] = [as_input(f) for f in files]
    return CODE[key]


# (module, only, also) -> its files: the jobs of one retriever kind ask alike
CODE = {}


def graph(wc):
    return graph_of(wc.corpus)


GRAPHS = {}


def graph_of(corpus):
    """The corpus's graph, made once a run (it holds nothing that changes while Snakemake plans)."""
    if corpus not in GRAPHS:
        GRAPHS[corpus] = CorpusGraph(CORPORA[corpus], CorpusLayout.of(RESULTS, corpus))
    return GRAPHS[corpus]


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


# the wildcards of an output pattern, as Snakemake reads them
PATTERN = {
    w: f"{{{w}}}" for w in ("name", "shard", "reader", "swept", "param", "figure")
}


class SpecRule:
    """A spec's rule functions as bound methods (a lambda in the loop would see the last spec)."""

    def __init__(self, spec):
        self.spec = spec

    def inputs(self, wc):
        return self.spec.inputs(graph(wc), wc)

    def code(self, wc):
        return code(self.spec.runs, **self.spec.job_code(graph(wc), wc))

    def argv(self, wc):
        return self.spec.command(graph(wc), wc)

    def outputs(self):
        out = {}
        for key, paths in self.spec.outputs(L, PATTERN).items():
            value = str(paths[0]) if len(paths) == 1 else [str(p) for p in paths]
            o = self.spec.writes.get(key)
            if o is not None and o.update:
                value = update(value)
            if o is not None and o.report:
                value = report(
                    value,
                    caption=o.report["caption"],
                    category="{corpus}",
                    subcategory=o.report["subcategory"],
                )
            out[key] = value
        return out

    def constraints(self):
        corpora = {"whole": WHOLE, "sharded": SHARDED}.get(self.spec.corpora)
        extra = {"corpus": corpora_pattern(corpora)} if corpora is not None else {}
        return {**extra, **self.spec.constraints}
