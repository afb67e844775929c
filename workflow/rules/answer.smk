# Candidates and prompt per retriever whose answers are scored; generate per reader and retriever;
# train_reader per trained reader (the answer selector, the Mini-GPT).


rule candidates:
    input:
        unpack(lambda wc: graph(wc).candidates(wc.name)),
        docs=L.docs,
        questions=L.questions,
        chunks=L.chunks,
        run=L.run("{name}"),
        code=code("candidates"),
    output:
        candidates=L.candidates("{name}"),
        receipt=L.receipt("candidates", "{name}"),
    log:
        L.log("candidates", "{name}"),
    benchmark:
        L.benchmark("candidates", "{name}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("candidates"),
    shell:
        "python -m minirag.stages.candidates --settings {params.settings:q} "
        "--questions {input.questions:q} --docs {input.docs:q} --chunks {input.chunks:q} "
        "--run {input.run:q} --lexicon {input.lexicon:q} --terms {input.terms:q} --model {input.model:q} "
        "--out {output.candidates:q} --receipt {output.receipt:q} 2> {log:q}"


rule prompt:
    input:
        unpack(lambda wc: graph(wc).prompt(wc.name)),
        docs=L.docs,
        questions=L.questions,
        chunks=L.chunks,
        run=L.run("{name}"),
        code=code("prompt"),
    output:
        prompts=L.prompts("{name}"),
        receipt=L.receipt("prompt", "{name}"),
    log:
        L.log("prompt", "{name}"),
    benchmark:
        L.benchmark("prompt", "{name}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("prompt"),
        args=lambda wc: graph(wc).prompt_args(wc.name),
    shell:
        "python -m minirag.stages.prompt --settings {params.settings:q} "
        "--questions {input.questions:q} --docs {input.docs:q} --chunks {input.chunks:q} "
        "--run {input.run:q} {params.args} --out {output.prompts:q} --receipt {output.receipt:q} 2> {log:q}"


rule generate:
    input:
        unpack(lambda wc: graph(wc).generate(f"{wc.reader}.{wc.name}")),
        prompts=L.prompts("{name}"),
        code=code("generate"),
    output:
        answers=L.answers("{reader}", "{name}"),
        receipt=L.receipt("generate", "{reader}.{name}"),
    log:
        L.log("generate", "{reader}.{name}"),
    benchmark:
        L.benchmark("generate", "{reader}.{name}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=lambda wc: params_json(
            stage_settings(CORPORA[wc.corpus], "generate", f"{wc.reader}.{wc.name}")
        ),
        args=lambda wc: graph(wc).generate_args(f"{wc.reader}.{wc.name}"),
    shell:
        "python -m minirag.stages.generate --settings {params.settings:q} --prompts {input.prompts:q} "
        "{params.args} --out {output.answers:q} --receipt {output.receipt:q} 2> {log:q}"


rule train_reader:
    input:
        unpack(lambda wc: graph(wc).train_reader(wc.name)),
        docs=lambda wc: graph(wc).training_docs(),
        code=code("train_reader"),
    output:
        model=L.reader_model("{name}"),
        sidecar=L.reader_model("{name}").with_suffix(".json"),
        tasks=L.reader_model("{name}").with_suffix(".tasks.jsonl"),
        receipt=L.receipt("train_reader", "{name}"),
    log:
        L.log("train_reader", "{name}"),
    benchmark:
        L.benchmark("train_reader", "{name}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("train_reader"),
        args=lambda wc: graph(wc).train_reader_args(wc.name),
    shell:
        "python -m minirag.stages.train_reader --name {wildcards.name:q} --settings {params.settings:q} "
        "--docs {input.docs:q} {params.args} --out {output.model:q} --receipt {output.receipt:q} 2> {log:q}"
