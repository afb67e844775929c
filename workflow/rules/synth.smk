# Corpora of any size for the cost curve (bench/scale.py), as BEIR folders a config's
# `source: {format: beir, path: ...}` reads:
#   snakemake -c1 data/synth/100000/corpus.jsonl           10^5 synthetic passages
#   snakemake -c1 data/synth/scifact/100000/corpus.jsonl   SciFact replicated to 10^5 passages
# Settings: the config's optional `synth:` section (minirag/datasets/synth_corpus.py, SynthSettings);
# a replica copies synth.sources.<dataset>, else data/beir/<dataset> (the download rule's).
from minirag.datasets.replicate_corpus import (
    REPLICA_SETTINGS,
    replica_inputs,
    replica_source,
    synth_config,
)

try:
    SYNTH, SYNTH_SOURCES = synth_config(config)
except ValueError as exc:
    raise WorkflowError(f"config error: {exc}")


rule synth_corpus:
    input:
        code=code("minirag.stages.synth_corpus"),
    output:
        corpus="data/synth/{n}/corpus.jsonl",
        queries="data/synth/{n}/queries.jsonl",
        test="data/synth/{n}/qrels/test.tsv",
        train="data/synth/{n}/qrels/train.tsv",
        manifest="data/synth/{n}/synth.json",
    log:
        "data/synth/logs/synth.{n}.log",
    benchmark:
        "data/synth/benchmarks/synth.{n}.tsv"
    wildcard_constraints:
        n=r"[1-9][0-9]*",
    conda:
        "../envs/minirag.yaml"
    params:
        settings=params_json(SYNTH),
        out_dir=lambda wc: f"data/synth/{wc.n}",
    shell:
        "python -m minirag.stages.synth_corpus --settings {params.settings:q} --n {wildcards.n:q} "
        "--out-dir {params.out_dir:q} 2> {log:q}"


rule replicate_corpus:
    input:
        unpack(lambda wc: replica_inputs(SYNTH_SOURCES, wc.dataset)),
        code=code("minirag.stages.synth_corpus"),
    output:
        corpus="data/synth/{dataset}/{n}/corpus.jsonl",
        queries="data/synth/{dataset}/{n}/queries.jsonl",
        test="data/synth/{dataset}/{n}/qrels/test.tsv",
        manifest="data/synth/{dataset}/{n}/synth.json",
    log:
        "data/synth/logs/replicate.{dataset}.{n}.log",
    benchmark:
        "data/synth/benchmarks/replicate.{dataset}.{n}.tsv"
    wildcard_constraints:
        dataset=r"[A-Za-z][A-Za-z0-9_-]*",
        n=r"[1-9][0-9]*",
    conda:
        "../envs/minirag.yaml"
    params:
        settings=params_json({k: SYNTH[k] for k in REPLICA_SETTINGS}),
        source=lambda wc: replica_source(SYNTH_SOURCES, wc.dataset),
        out_dir=lambda wc: f"data/synth/{wc.dataset}/{wc.n}",
    shell:
        "python -m minirag.stages.synth_corpus --settings {params.settings:q} --n {wildcards.n:q} "
        "--source {params.source:q} --out-dir {params.out_dir:q} 2> {log:q}"
