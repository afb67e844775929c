# The only rule that reaches the network, and only when its output is asked for:
#   snakemake -c1 data/beir/scifact/corpus.jsonl


rule download_beir:
    input:
        code=src("download"),
    output:
        "data/beir/{dataset}/corpus.jsonl",
        "data/beir/{dataset}/queries.jsonl",
    wildcard_constraints:
        dataset="|".join(BEIR_DATASETS),
    params:
        url=lambda wc: BEIR_DATASETS[wc.dataset][0],
        md5=lambda wc: BEIR_DATASETS[wc.dataset][1],
    log:
        "data/beir/logs/download.{dataset}.log",
    benchmark:
        "data/beir/benchmarks/download.{dataset}.tsv"
    shell:
        "{PY} -m minirag download-beir --url {params.url:q} --md5 {params.md5} "
        "--out-dir data/beir/{wildcards.dataset} 2> {log}"
