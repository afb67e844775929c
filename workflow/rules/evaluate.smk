# Evaluate every run and answer file, diagnose the runs, check the assertions: one job each per corpus.


rule evaluate:
    input:
        docs=L.docs,
        questions=L.questions,
        chunks=L.chunks,
        runs=lambda wc: graph(wc).runs(),
        answers=lambda wc: graph(wc).answers(),
        candidates=lambda wc: graph(wc).all_candidates(),
        code=code("evaluate"),
    output:
        metrics=L.eval("metrics.json"),
        tables=[
            L.eval(f)
            for f in (
                "per_query.csv",
                "slices.csv",
                "qrels.chunk.txt",
                "qrels.doc.txt",
                "answers.csv",
                "per_query_metrics.csv",
                "losses.csv",
            )
        ],
        receipt=L.receipt("evaluate"),
    log:
        L.log("evaluate"),
    benchmark:
        L.benchmark("evaluate")
    conda:
        "../envs/minirag.yaml"
    params:
        out_dir=lambda wc: graph(wc).layout.eval_dir,
    shell:
        "python -m minirag.stages.evaluate --corpus {wildcards.corpus:q} "
        "--questions {input.questions:q} --docs {input.docs:q} --chunks {input.chunks:q} "
        "--runs {input.runs:q} --answers {input.answers:q} --candidates {input.candidates:q} "
        "--out-dir {params.out_dir:q} "
        "--receipt {output.receipt:q} 2> {log:q}"


rule diagnose:
    input:
        docs=L.docs,
        questions=L.questions,
        chunks=L.chunks,
        runs=lambda wc: graph(wc).runs(),
        vectors=lambda wc: graph(wc).layout.vectors(cc(wc)["diagnose"]["embedder"]),
        code=code("diagnose"),
    output:
        tables=[
            L.eval(f)
            for f in (
                "diagnosis.csv",
                "overlap.csv",
                "always_on_top.csv",
                "diversity.csv",
            )
        ],
        receipt=L.receipt("diagnose"),
    log:
        L.log("diagnose"),
    benchmark:
        L.benchmark("diagnose")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("diagnose"),
        out_dir=lambda wc: graph(wc).layout.eval_dir,
    shell:
        "python -m minirag.stages.diagnose --settings {params.settings:q} "
        "--questions {input.questions:q} --docs {input.docs:q} --chunks {input.chunks:q} "
        "--runs {input.runs:q} --vectors {input.vectors:q} --out-dir {params.out_dir:q} "
        "--receipt {output.receipt:q} 2> {log:q}"


rule assertions:
    input:
        docs=L.docs,
        assertions=lambda wc: cc(wc)["assertions"],
        questions=L.questions,
        chunks=L.chunks,
        runs=lambda wc: graph(wc).runs(),
        code=code("assertions"),
    output:
        results=L.eval("assertions.md"),
        table=L.eval("assertions.json"),
        receipt=L.receipt("assertions"),
    log:
        L.log("assertions"),
    benchmark:
        L.benchmark("assertions")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("assertions"),
    shell:
        "python -m minirag.stages.assertions --settings {params.settings:q} "
        "--assertions {input.assertions:q} --questions {input.questions:q} --docs {input.docs:q} "
        "--chunks {input.chunks:q} --runs {input.runs:q} --out {output.results:q} "
        "--receipt {output.receipt:q} 2> {log:q}"
