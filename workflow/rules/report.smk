# The report over every corpus of the config, and the manifest of what it was built from.


rule report:
    input:
        metrics=expand("results/{corpus}/eval/metrics.json", corpus=CORPORA),
        code=src("report", "pipeline"),
    output:
        report="results/report.md",
        manifest="results/manifest.json",
    params:
        settings=lambda wc: params_json({"corpora": CORPORA, "results": "results"}),
        config=lambda wc: str(list(workflow.overwrite_configfiles or workflow.configfiles)[-1]),
    log:
        "results/logs/report.log",
    benchmark:
        "results/benchmarks/report.tsv"
    shell:
        "{PY} -m minirag report --settings {params.settings:q} --config {params.config:q} "
        "--out {output.report} --manifest {output.manifest} 2> {log}"
