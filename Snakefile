# minirag: a RAG pipeline as a Snakemake build graph. Every rule runs one stage module,
# `python -m minirag.stages.<stage>`; README.md shows the graph and where each artifact lives.
import sys

from snakemake.utils import min_version

from minirag.artifacts.safe_yaml import YAMLBudgetError, check_loaded
from minirag.config.corpus import ConfigError
from minirag.config.load import validate
from minirag.config.merge import unmerge_files
from minirag.terminal import quiet_terminal

min_version("9.11")
# A line per finished job and a failed job's own error on the terminal (minirag/terminal.py);
# the full output with --verbose or MINIRAG_VERBOSE=1.
quiet_terminal(workflow)


configfile: "workflow/config.yaml"


# Bounded before anything walks it (an alias bomb loads in a blink, then every walk expands
# it), then checked against the schema (workflow/schemas/config.schema.yaml): an error is one
# line naming the key, not the schema. A --configfile that is a folder or missing fails in
# Snakemake before this file runs: `make check-config CONFIG=...` (and `make build`) check it first.
CONFIGFILES = ", ".join(
    map(str, workflow.overwrite_configfiles or workflow.configfiles)
)
try:
    check_loaded(config, CONFIGFILES)
    # a --configfile that switches a chunk strategy or a kind replaces that section, not merges into it
    unmerge_files(config, workflow.configfiles, workflow.overwrite_configfiles or [])
    validate(config, CONFIGFILES)
except (YAMLBudgetError, ConfigError) as exc:
    sys.exit(f"config error: {exc}")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/stages.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/synth.smk"


rule all:
    input:
        report_paths(RESULTS, REPORT)[0],
