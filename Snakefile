# minirag: a RAG pipeline as a Snakemake build graph. Every rule runs one stage module,
# `python -m minirag.stages.<stage>`; README.md shows the graph and where each artifact lives.
from snakemake.utils import min_version, validate

from minirag.artifacts.safe_yaml import YAMLBudgetError, check_loaded

min_version("9.11")


configfile: "workflow/config.yaml"


# Bounded before anything walks it (an alias bomb loads in a blink, then every walk expands
# it). A --configfile that is a folder or missing fails in Snakemake before this file runs:
# `make check-config CONFIG=...` (and `make build`) check it first.
try:
    check_loaded(
        config,
        ", ".join(map(str, workflow.overwrite_configfiles or workflow.configfiles)),
    )
except YAMLBudgetError as exc:
    raise WorkflowError(f"config error: {exc}")


validate(config, "workflow/schemas/config.schema.yaml")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/stages.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/synth.smk"


rule all:
    input:
        report_paths(RESULTS, REPORT)[0],
