# Figures (one job each) and the report over every corpus of the config, with its manifest.


rule sweep_figure:
    input:
        metrics=L.eval("metrics.json"),
        code=code("sweep_figure"),
    output:
        figure=report(
            L.figure("sweep-{swept}-{param}"),
            caption="../report/sweep.rst",
            category="{corpus}",
            subcategory="sweeps",
        ),
        receipt=L.receipt("sweep_figure", "{swept}-{param}"),
    log:
        L.log("sweep_figure", "{swept}-{param}"),
    benchmark:
        L.benchmark("sweep_figure", "{swept}-{param}")
    wildcard_constraints:
        swept=r"[A-Za-z0-9][A-Za-z0-9_-]*",
        param=r"[A-Za-z_]+",
    conda:
        "../envs/minirag.yaml"
    params:
        settings=lambda wc: params_json(graph(wc).sweep_settings(wc.swept, wc.param)),
    shell:
        "python -m minirag.stages.sweep_figure --settings {params.settings:q} "
        "--metrics {input.metrics:q} --out {output.figure:q} --receipt {output.receipt:q} 2> {log:q}"


rule loss_figure:
    input:
        sidecar=lambda wc: graph(wc).loss_sidecar(wc.name),
        code=code("loss_figure"),
    output:
        figure=report(
            L.figure("loss-{name}"),
            caption="../report/loss.rst",
            category="{corpus}",
            subcategory="training",
        ),
        receipt=L.receipt("loss_figure", "{name}"),
    log:
        L.log("loss_figure", "{name}"),
    benchmark:
        L.benchmark("loss_figure", "{name}")
    conda:
        "../envs/minirag.yaml"
    params:
        title=lambda wc: f"{wc.corpus}: {wc.name} training loss",
    shell:
        "python -m minirag.stages.loss_figure --title {params.title:q} --sidecar {input.sidecar:q} "
        "--out {output.figure:q} --receipt {output.receipt:q} 2> {log:q}"


rule summary_figure:
    # the three figures a corpus's report opens with: retrievers, overlap, losses
    input:
        tables=lambda wc: [
            str(graph(wc).layout.root / f) for f in SUMMARY_INPUTS[wc.figure]
        ],
        code=code("summary_figure"),
    output:
        figure=report(
            L.figure("summary-{figure}"),
            caption="../report/summary.rst",
            category="{corpus}",
            subcategory="summary",
        ),
        receipt=L.receipt("summary_figure", "{figure}"),
    log:
        L.log("summary_figure", "{figure}"),
    benchmark:
        L.benchmark("summary_figure", "{figure}")
    wildcard_constraints:
        figure="|".join(SUMMARY_INPUTS),
    conda:
        "../envs/minirag.yaml"
    params:
        settings=lambda wc: params_json(
            {"retrievers": graph(wc).main_retrievers(), "k": cc(wc)["diagnose"]["k"]}
        ),
    shell:
        "python -m minirag.stages.summary_figure --settings {params.settings:q} --figure {wildcards.figure:q} "
        "--tables {input.tables:q} --out {output.figure:q} --receipt {output.receipt:q} 2> {log:q}"


rule note_missing:
    # artifacts of a built corpus found deleted: the new note only (common.smk: deleted_artifacts;
    # an old note is a plain input, so its recorded list is never compared with today's)
    output:
        f"{RESULTS}/{{note}}.txt",
    log:
        f"{RESULTS}/{{note}}.log",
    wildcard_constraints:
        note=corpora_pattern([re.escape(note) for note in NEW_NOTES]),
    conda:
        "../envs/minirag.yaml"
    params:
        missing=lambda wc: DELETED[wc.note.split("/")[0]][1],
    shell:
        "printf 'missing, to rebuild: %s\\n' {params.missing:q} > {output:q} 2> {log:q}"


rule report:
    input:
        artifacts=[f for c in CORPORA for f in graph_of(c).artifacts()],
        benchmarks=[f for c in CORPORA for f in graph_of(c).benchmarks()],
        missing=[note for c in CORPORA for note in DELETED[c][0]],
        code=code("report"),
    output:
        report=report(
            report_paths(RESULTS, REPORT)[0],
            caption="../report/report.rst",
            category="report",
        ),
        manifest=report_paths(RESULTS, REPORT)[1],
    log:
        f"{RESULTS}/logs/{REPORT}.log",
    benchmark:
        f"{RESULTS}/benchmarks/{REPORT}.tsv"
    conda:
        "../envs/minirag.yaml"
    params:
        # config order kept (not sorted): it is the order of the report's sections
        settings=json.dumps(
            {"corpora": CORPORA, "results": RESULTS}, ensure_ascii=False
        ),
        config=config_path(),
    shell:
        "python -m minirag.stages.report --settings {params.settings:q} --config {params.config:q} "
        "--out {output.report:q} --manifest {output.manifest:q} 2> {log:q}"
