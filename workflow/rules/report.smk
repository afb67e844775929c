# The report over every corpus of the config, with its manifest; the note of deleted artifacts.


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
        code=code("minirag.stages.report"),
    # update(): a report job that fails leaves the last good report and manifest in place (Snakemake keeps
    # a copy of each, a few KB, and puts it back), instead of deleting both
    output:
        report=update(
            report(
                report_paths(RESULTS, REPORT)[0],
                caption="../report/report.rst",
                category="report",
            )
        ),
        manifest=update(report_paths(RESULTS, REPORT)[1]),
    log:
        f"{RESULTS}/logs/{REPORT}.log",
    benchmark:
        f"{RESULTS}/benchmarks/{REPORT}.tsv"
    conda:
        "../envs/minirag.yaml"
    params:
        # config order kept (not sorted): it is the order of the report's sections
        settings=json.dumps(
            {
                "corpora": {name: dict(c.config) for name, c in CORPORA.items()},
                "results": RESULTS,
            },
            ensure_ascii=False,
        ),
        config=config_path(),
    shell:
        "python -m minirag.stages.report --settings {params.settings:q} --config {params.config:q} "
        "--out {output.report:q} --manifest {output.manifest:q} 2> {log:q}"
