# minirag: a RAG pipeline as a Snakemake build graph. Read ../shared/DESIGN.md for the
# graph and artifact contracts; every rule calls `python -m minirag <stage>`.
from snakemake.utils import min_version, validate

min_version("9.11")


configfile: "workflow/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/corpus.smk"
include: "workflow/rules/index.smk"
include: "workflow/rules/answer.smk"
include: "workflow/rules/diagnose.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/download.smk"


rule all:
    input:
        "results/report.md",
