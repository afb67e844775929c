# A corpus with shards: N > 1 is curated, chunked, embedded and BM25-indexed one job per
# shard; the merges write chunks.jsonl, vectors/ and bm25/ with the receipts of chunk, embed
# and bm25, exactly as an unsharded build does (minirag/pipeline/shards.py, index/bm25/shards.py).


rule curate_shard:
    input:
        docs=lambda wc: graph(wc).shard_documents(int(wc.shard)),
        code=code("curate"),
    output:
        docs=L.shard_docs("{shard}"),
        receipt=L.receipt("curate_shard", "{shard}"),
    log:
        L.log("curate_shard", "{shard}"),
    benchmark:
        L.benchmark("curate_shard", "{shard}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("curate"),
        source=lambda wc: cc(wc)["source"]["path"],
        glob=lambda wc: cc(wc)["source"]["glob"],
        shards=lambda wc: cc(wc)["shards"],
    shell:
        "python -m minirag.stages.curate --settings {params.settings:q} --source {params.source:q} "
        "--glob {params.glob:q} --shard {wildcards.shard} --shards {params.shards} --out {output.docs:q} "
        "--receipt {output.receipt:q} 2> {log:q}"


rule chunk_shard:
    input:
        unpack(lambda wc: graph(wc).chunk()),
        docs=L.shard_docs("{shard}"),
        code=code("chunk"),
    output:
        chunks=L.shard_chunks("{shard}"),
        receipt=L.receipt("chunk_shard", "{shard}"),
    log:
        L.log("chunk_shard", "{shard}"),
    benchmark:
        L.benchmark("chunk_shard", "{shard}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("chunk"),
        args=lambda wc: graph(wc).chunk_args(),
    shell:
        "python -m minirag.stages.chunk --settings {params.settings:q} "
        "--docs {input.docs:q} {params.args} --out {output.chunks:q} --receipt {output.receipt:q} "
        "2> {log:q}"


rule merge_chunks:
    input:
        shards=lambda wc: graph(wc).shard_chunks(),
        docs=L.docs,
        code=code("merge_chunks"),
    output:
        chunks=L.chunks,
        receipt=L.receipt("chunk"),
    log:
        L.log("chunk"),
    benchmark:
        L.benchmark("chunk")
    wildcard_constraints:
        corpus=corpora_pattern(SHARDED),
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("chunk"),
    shell:
        "python -m minirag.stages.merge_chunks --settings {params.settings:q} --docs {input.docs:q} "
        "--shards {input.shards:q} --out {output.chunks:q} --receipt {output.receipt:q} 2> {log:q}"


rule embed_shard:
    input:
        unpack(lambda wc: graph(wc).embed_shard(wc.name)),
        docs=L.shard_docs("{shard}"),
        chunks=L.shard_chunks("{shard}"),
        code=code("embed"),
    output:
        vectors=L.shard_vectors("{shard}", "{name}"),
        sidecar=L.shard_vectors("{shard}", "{name}").with_suffix(".json"),
        receipt=L.receipt("embed_shard", "{shard}.{name}"),
    log:
        L.log("embed_shard", "{shard}.{name}"),
    benchmark:
        L.benchmark("embed_shard", "{shard}.{name}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("embed"),
        args=lambda wc: graph(wc).embed_shard_args(wc.name),
    shell:
        "python -m minirag.stages.embed --name {wildcards.name:q} --settings {params.settings:q} "
        "--docs {input.docs:q} --chunks {input.chunks:q} {params.args} --out {output.vectors:q} "
        "--receipt {output.receipt:q} 2> {log:q}"


rule merge_vectors:
    input:
        shards=lambda wc: graph(wc).shard_vectors(wc.name),
        docs=L.docs,
        chunks=L.chunks,
        code=code("merge_vectors"),
    output:
        vectors=L.vectors("{name}"),
        sidecar=L.vectors_sidecar("{name}"),
        receipt=L.receipt("embed", "{name}"),
    log:
        L.log("embed", "{name}"),
    benchmark:
        L.benchmark("embed", "{name}")
    wildcard_constraints:
        corpus=corpora_pattern(SHARDED),
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("embed"),
    shell:
        "python -m minirag.stages.merge_vectors --name {wildcards.name:q} --settings {params.settings:q} "
        "--docs {input.docs:q} --chunks {input.chunks:q} --shards {input.shards:q} --out {output.vectors:q} "
        "--receipt {output.receipt:q} 2> {log:q}"


rule bm25_shard:
    input:
        unpack(lambda wc: graph(wc).word_lists(wc.name)),
        docs=L.shard_docs("{shard}"),
        chunks=L.shard_chunks("{shard}"),
        code=code("bm25_shard"),
    output:
        index=L.shard_bm25_files("{shard}", "{name}"),
        receipt=L.receipt("bm25_shard", "{shard}.{name}"),
    log:
        L.log("bm25_shard", "{shard}.{name}"),
    benchmark:
        L.benchmark("bm25_shard", "{shard}.{name}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("bm25"),
        out_dir=lambda wc: graph(wc).layout.shard_bm25(wc.shard, wc.name),
    shell:
        "python -m minirag.stages.bm25_shard --settings {params.settings:q} --docs {input.docs:q} "
        "--chunks {input.chunks:q} --out-dir {params.out_dir:q} --receipt {output.receipt:q} 2> {log:q}"


rule merge_bm25:
    input:
        shards=lambda wc: graph(wc).shard_bm25(wc.name),
        docs=L.docs,
        chunks=L.chunks,
        code=code("merge_bm25"),
    output:
        index=L.bm25_files("{name}"),
        receipt=L.receipt("bm25", "{name}"),
    log:
        L.log("bm25", "{name}"),
    benchmark:
        L.benchmark("bm25", "{name}")
    wildcard_constraints:
        corpus=corpora_pattern(SHARDED),
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("bm25"),
        out_dir=lambda wc: graph(wc).layout.bm25(wc.name),
    shell:
        "python -m minirag.stages.merge_bm25 --settings {params.settings:q} --docs {input.docs:q} "
        "--chunks {input.chunks:q} --shards {input.shards:q} --out-dir {params.out_dir:q} "
        "--receipt {output.receipt:q} 2> {log:q}"
