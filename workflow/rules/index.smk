# Train the bi-encoder, embed chunks, build BM25 and IVF indexes: one job per name.


rule synth_pairs:
    input:
        unpack(lambda wc: graph(wc).synth_pairs(wc.name)),
        docs=lambda wc: graph(wc).training_docs(),
        chunks=L.chunks,
        code=code("synth_pairs"),
    output:
        pairs=L.question_pairs("{name}"),
        receipt=L.receipt("synth_pairs", "{name}"),
    log:
        L.log("synth_pairs", "{name}"),
    benchmark:
        L.benchmark("synth_pairs", "{name}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("synth_pairs"),
        args=lambda wc: graph(wc).synth_pairs_args(wc.name),
    shell:
        "python -m minirag.stages.synth_pairs --settings {params.settings:q} "
        "--docs {input.docs:q} --chunks {input.chunks:q} {params.args} --out {output.pairs:q} "
        "--receipt {output.receipt:q} 2> {log:q}"


rule train_biencoder:
    input:
        unpack(lambda wc: graph(wc).train(wc.name)),
        docs=lambda wc: graph(wc).training_docs(),
        chunks=L.chunks,
        tokenizer=L.tokenizer,
        code=code("train_biencoder"),
    output:
        encoder=L.encoder("{name}"),
        sidecar=L.encoder_sidecar("{name}"),
        receipt=L.receipt("train_biencoder", "{name}"),
    log:
        L.log("train_biencoder", "{name}"),
    benchmark:
        L.benchmark("train_biencoder", "{name}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("train_biencoder"),
        args=lambda wc: graph(wc).train_args(wc.name),
    shell:
        "python -m minirag.stages.train_biencoder --settings {params.settings:q} "
        "--docs {input.docs:q} --chunks {input.chunks:q} "
        "--tokenizer {input.tokenizer:q} {params.args} --out {output.encoder:q} "
        "--receipt {output.receipt:q} 2> {log:q}"


rule embed:
    input:
        unpack(lambda wc: graph(wc).embedder_files(wc.name)),
        docs=L.docs,
        chunks=L.chunks,
        code=code("embed"),
    output:
        vectors=L.vectors("{name}"),
        sidecar=L.vectors_sidecar("{name}"),
        receipt=L.receipt("embed", "{name}"),
        # read and rewritten by the job, so kept in place (update): vectors by (model, text) to reuse
        cache=update(L.embed_cache("{name}")),
        cache_receipt=update(L.receipt("embed_cache", "{name}")),
    log:
        L.log("embed", "{name}"),
    benchmark:
        L.benchmark("embed", "{name}")
    wildcard_constraints:
        corpus=corpora_pattern(WHOLE),
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("embed"),
        args=lambda wc: graph(wc).embed_args(wc.name),
    shell:
        "python -m minirag.stages.embed --name {wildcards.name:q} --settings {params.settings:q} "
        "--docs {input.docs:q} --chunks {input.chunks:q} {params.args} --out {output.vectors:q} "
        "--out-cache {output.cache:q} --receipt {output.receipt:q} 2> {log:q}"


rule bm25:
    input:
        unpack(lambda wc: graph(wc).bm25(wc.name)),
        docs=L.docs,
        chunks=L.chunks,
        code=code("bm25"),
    output:
        index=L.bm25_files("{name}"),
        receipt=L.receipt("bm25", "{name}"),
    log:
        L.log("bm25", "{name}"),
    benchmark:
        L.benchmark("bm25", "{name}")
    wildcard_constraints:
        corpus=corpora_pattern(WHOLE),
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("bm25"),
        out_dir=lambda wc: graph(wc).layout.bm25(wc.name),
        args=lambda wc: graph(wc).bm25_args(wc.name),
    shell:
        "python -m minirag.stages.bm25 --settings {params.settings:q} --docs {input.docs:q} "
        "--chunks {input.chunks:q} {params.args} --out-dir {params.out_dir:q} --receipt {output.receipt:q} "
        "2> {log:q}"


rule ivf:
    input:
        unpack(lambda wc: graph(wc).ivf(wc.name)),
        code=code("ivf"),
    output:
        index=L.ivf_files("{name}"),
        receipt=L.receipt("ivf", "{name}"),
    log:
        L.log("ivf", "{name}"),
    benchmark:
        L.benchmark("ivf", "{name}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("ivf"),
        out_dir=lambda wc: graph(wc).layout.ivf(wc.name),
    shell:
        "python -m minirag.stages.ivf --name {wildcards.name:q} --settings {params.settings:q} "
        "--vectors {input.vectors:q} --sidecar {input.sidecar:q} --out-dir {params.out_dir:q} "
        "--receipt {output.receipt:q} 2> {log:q}"


rule retrieve:
    input:
        unpack(lambda wc: graph(wc).retrieve(wc.name)),
        docs=L.docs,
        questions=L.questions,
        chunks=L.chunks,
        code=code("retrieve"),
    output:
        run=L.run("{name}"),
        receipt=L.receipt("retrieve", "{name}"),
    log:
        L.log("retrieve", "{name}"),
    benchmark:
        L.benchmark("retrieve", "{name}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("retrieve"),
        args=lambda wc: graph(wc).retrieve_args(wc.name),
    shell:
        "python -m minirag.stages.retrieve --name {wildcards.name:q} --settings {params.settings:q} "
        "--questions {input.questions:q} --docs {input.docs:q} "
        "--chunks {input.chunks:q} {params.args} --out {output.run:q} --receipt {output.receipt:q} "
        "2> {log:q}"


rule train_reranker:
    input:
        unpack(lambda wc: graph(wc).train_reranker(wc.name)),
        docs=L.docs,
        chunks=L.chunks,
        questions=L.questions,
        code=code("train_reranker"),
    output:
        model=L.reranker("{name}"),
        sidecar=L.reranker("{name}").with_suffix(".json"),
        receipt=L.receipt("train_reranker", "{name}"),
    log:
        L.log("train_reranker", "{name}"),
    benchmark:
        L.benchmark("train_reranker", "{name}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("train_reranker"),
        args=lambda wc: graph(wc).train_reranker_args(wc.name),
    shell:
        "python -m minirag.stages.train_reranker --name {wildcards.name:q} --settings {params.settings:q} "
        "--docs {input.docs:q} --chunks {input.chunks:q} --questions {input.questions:q} "
        "--run {input.run:q} {params.args} --out {output.model:q} --receipt {output.receipt:q} 2> {log:q}"
