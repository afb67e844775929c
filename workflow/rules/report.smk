# The report over every corpus of the config, and the manifest of what it was built from.


rule report:
    input:
        metrics=expand("results/{corpus}/eval/metrics.json", corpus=CORPORA),
        diagnosis=expand("results/{corpus}/eval/diagnosis.csv", corpus=CORPORA),
        assertions=[f"results/{c}/eval/assertions.md" for c in CORPORA if CORPORA[c]["assertions"]],
        encoders=[f"results/{c}/encoders/{e}.json" for c in CORPORA for e, s in CORPORA[c]["embedders"].items()
                  if s["type"] == "biencoder"],
        code=src("report", "pipeline", "figures"),
    output:
        report="results/report.md",
        manifest="results/manifest.json",
        figures=[f for c in CORPORA for f in figure_paths("results", c, CORPORA[c])],
    params:
        # config order kept (not sorted): it is the order of the report's rows
        settings=lambda wc: json.dumps({"corpora": CORPORA, "results": "results"}, ensure_ascii=False),
        config=lambda wc: os.path.relpath(list(workflow.overwrite_configfiles or workflow.configfiles)[-1]),
    log:
        "results/logs/report.log",
    benchmark:
        "results/benchmarks/report.tsv"
    shell:
        "{PY} -m minirag report --settings {params.settings:q} --config {params.config:q} "
        "--out {output.report} --manifest {output.manifest} 2> {log}"
