# Curate documents, validate questions, train the tokenizer, chunk.


rule curate:
    input:
        docs=lambda wc: graph(wc).documents(),
        code=code("curate"),
    output:
        docs=L.docs,
        receipt=L.receipt("curate"),
    log:
        L.log("curate"),
    benchmark:
        L.benchmark("curate")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("curate"),
        source=lambda wc: cc(wc)["source"]["path"],
        glob=lambda wc: cc(wc)["source"]["glob"],
    shell:
        "python -m minirag.stages.curate --settings {params.settings:q} --source {params.source:q} "
        "--glob {params.glob:q} --out {output.docs:q} --receipt {output.receipt:q} 2> {log:q}"


rule questions:
    input:
        docs=L.docs,
        questions=lambda wc: graph(wc).question_files(),
        code=code("questions"),
    output:
        questions=L.questions,
        receipt=L.receipt("questions"),
    log:
        L.log("questions"),
    benchmark:
        L.benchmark("questions")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("questions"),
        args=lambda wc: graph(wc).question_args(),
    shell:
        "python -m minirag.stages.questions --settings {params.settings:q} {params.args} "
        "--docs {input.docs:q} --out {output.questions:q} --receipt {output.receipt:q} 2> {log:q}"


rule train_sample:
    input:
        docs=L.docs,
        code=code("train_sample"),
    output:
        sample=L.train_sample,
        receipt=L.receipt("train_sample"),
    log:
        L.log("train_sample"),
    benchmark:
        L.benchmark("train_sample")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("train_sample"),
    shell:
        "python -m minirag.stages.train_sample --settings {params.settings:q} --docs {input.docs:q} "
        "--out {output.sample:q} --receipt {output.receipt:q} 2> {log:q}"


rule train_tokenizer:
    input:
        docs=lambda wc: graph(wc).training_docs(),
        code=code("train_tokenizer"),
    output:
        tokenizer=L.tokenizer,
        receipt=L.receipt("train_tokenizer"),
    log:
        L.log("train_tokenizer"),
    benchmark:
        L.benchmark("train_tokenizer")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("train_tokenizer"),
    shell:
        "python -m minirag.stages.train_tokenizer --settings {params.settings:q} "
        "--docs {input.docs:q} --out {output.tokenizer:q} --receipt {output.receipt:q} 2> {log:q}"


rule chunk:
    input:
        unpack(lambda wc: graph(wc).chunk()),
        docs=L.docs,
        code=code("chunk"),
    output:
        chunks=L.chunks,
        receipt=L.receipt("chunk"),
    log:
        L.log("chunk"),
    benchmark:
        L.benchmark("chunk")
    wildcard_constraints:
        corpus=corpora_pattern(WHOLE),
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("chunk"),
        args=lambda wc: graph(wc).chunk_args(),
    shell:
        "python -m minirag.stages.chunk --settings {params.settings:q} "
        "--docs {input.docs:q} {params.args} --out {output.chunks:q} --receipt {output.receipt:q} "
        "2> {log:q}"


rule units:
    input:
        docs=L.docs,
        chunks=L.chunks,
        code=code("units"),
    output:
        units=L.units,
        receipt=L.receipt("units"),
    log:
        L.log("units"),
    benchmark:
        L.benchmark("units")
    conda:
        "../envs/minirag.yaml"
    shell:
        "python -m minirag.stages.units --docs {input.docs:q} --chunks {input.chunks:q} "
        "--out {output.units:q} --receipt {output.receipt:q} 2> {log:q}"


rule lexicon:
    input:
        docs=L.docs,
        code=code("lexicon"),
    output:
        lexicon=L.lexicon,
        receipt=L.receipt("lexicon"),
    log:
        L.log("lexicon"),
    benchmark:
        L.benchmark("lexicon")
    conda:
        "../envs/minirag.yaml"
    shell:
        "python -m minirag.stages.lexicon --docs {input.docs:q} --out {output.lexicon:q} "
        "--receipt {output.receipt:q} 2> {log:q}"
