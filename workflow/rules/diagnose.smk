# Diagnosis of the runs (the seed write-up's tables) and the assertions gate.


rule diagnose:
    input:
        questions="results/{corpus}/questions.jsonl",
        chunks="results/{corpus}/chunks.jsonl",
        runs=lambda wc: [results(wc, "runs", f"{r}.trec") for r in cc(wc)["retrievers"]],
        vectors=lambda wc: results(wc, "vectors", f"{cc(wc)['diagnose']['embedder']}.npy"),
        code=src("diagnose", "evaluate", "metrics", "trec", "artifacts"),
    output:
        multiext("results/{corpus}/eval/", "diagnosis.csv", "overlap.csv", "always_on_top.csv", "diversity.csv"),
    params:
        settings=settings("diagnose"),
    log:
        "results/{corpus}/logs/diagnose.log",
    benchmark:
        "results/{corpus}/benchmarks/diagnose.tsv"
    shell:
        "{PY} -m minirag diagnose --settings {params.settings:q} --questions {input.questions} "
        "--chunks {input.chunks} --runs {input.runs} --vectors {input.vectors} "
        "--out-dir results/{wildcards.corpus}/eval 2> {log}"


rule assertions:
    input:
        assertions=lambda wc: cc(wc)["assertions"],
        questions="results/{corpus}/questions.jsonl",
        chunks="results/{corpus}/chunks.jsonl",
        runs=lambda wc: [results(wc, "runs", f"{r}.trec") for r in cc(wc)["retrievers"]],
        code=src("assertions", "evaluate", "metrics", "trec", "artifacts"),
    output:
        "results/{corpus}/eval/assertions.md",
        "results/{corpus}/eval/assertions.json",
    params:
        settings=settings("assert"),
    log:
        "results/{corpus}/logs/assertions.log",
    benchmark:
        "results/{corpus}/benchmarks/assertions.tsv"
    shell:
        "{PY} -m minirag assert --settings {params.settings:q} --assertions {input.assertions} "
        "--questions {input.questions} --chunks {input.chunks} --runs {input.runs} "
        "--out {output[0]} 2> {log}"
