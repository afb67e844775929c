# The only rule that reaches the network, and only when its output is asked for:
#   snakemake -c1 data/beir/scifact/corpus.jsonl


rule download_beir:
    input:
        code=code("minirag.stages.download_beir"),
    output:
        corpus="data/beir/{dataset}/corpus.jsonl",
        queries="data/beir/{dataset}/queries.jsonl",
    log:
        "data/beir/logs/download.{dataset}.log",
    benchmark:
        "data/beir/benchmarks/download.{dataset}.tsv"
    wildcard_constraints:
        dataset="|".join(BEIR_DATASETS),
    conda:
        "../envs/minirag.yaml"
    params:
        url=lambda wc: BEIR_DATASETS[wc.dataset][0],
        md5=lambda wc: BEIR_DATASETS[wc.dataset][1],
        out_dir=lambda wc: f"data/beir/{wc.dataset}",
    shell:
        "python -m minirag.stages.download_beir --url {params.url:q} --md5 {params.md5:q} "
        "--out-dir {params.out_dir:q} 2> {log:q}"
