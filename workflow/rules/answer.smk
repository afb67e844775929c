# Prompt, generate and evaluate: per retriever, then one evaluation per corpus.


rule prompt:
    input:
        questions="results/{corpus}/questions.jsonl",
        chunks="results/{corpus}/chunks.jsonl",
        run="results/{corpus}/runs/{name}.trec",
        code=src("prompt", "artifacts", "trec"),
    output:
        "results/{corpus}/prompts/{name}.jsonl",
    params:
        settings=settings("prompt"),
    log:
        "results/{corpus}/logs/prompt.{name}.log",
    benchmark:
        "results/{corpus}/benchmarks/prompt.{name}.tsv"
    shell:
        "{PY} -m minirag prompt --settings {params.settings:q} --questions {input.questions} "
        "--chunks {input.chunks} --run {input.run} --out {output} 2> {log}"


rule generate:
    input:
        prompts="results/{corpus}/prompts/{name}.jsonl",
        code=src("reader", "prompt"),
    output:
        "results/{corpus}/answers/{name}.jsonl",
    params:
        settings=settings("generate"),
    log:
        "results/{corpus}/logs/generate.{name}.log",
    benchmark:
        "results/{corpus}/benchmarks/generate.{name}.tsv"
    shell:
        "{PY} -m minirag generate --settings {params.settings:q} --prompts {input.prompts} --out {output} 2> {log}"


rule evaluate:
    input:
        questions="results/{corpus}/questions.jsonl",
        chunks="results/{corpus}/chunks.jsonl",
        runs=lambda wc: [results(wc, "runs", f"{r}.trec") for r in cc(wc)["retrievers"]],
        # BEIR and gold_docs questions judge documents, not answers: no reader runs there.
        answers=lambda wc: [results(wc, "answers", f"{r}.jsonl") for r in answered(cc(wc))],
        code=src("evaluate", "metrics", "trec", "artifacts"),
    output:
        multiext("results/{corpus}/eval/", "metrics.json", "per_query.csv", "slices.csv", "qrels.chunk.txt", "qrels.doc.txt"),
    params:
        answers=lambda wc, input: ("--answers " + " ".join(input.answers)) if input.answers else "",
    log:
        "results/{corpus}/logs/evaluate.log",
    benchmark:
        "results/{corpus}/benchmarks/evaluate.tsv"
    shell:
        "{PY} -m minirag evaluate --corpus {wildcards.corpus} --questions {input.questions} --chunks {input.chunks} "
        "--runs {input.runs} {params.answers} --out-dir results/{wildcards.corpus}/eval 2> {log}"
