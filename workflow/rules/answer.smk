# Prompt and generate: per retriever whose answers are scored.


rule prompt:
    input:
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
    shell:
        "python -m minirag.stages.prompt --settings {params.settings:q} "
        "--questions {input.questions:q} --docs {input.docs:q} --chunks {input.chunks:q} "
        "--run {input.run:q} --out {output.prompts:q} --receipt {output.receipt:q} 2> {log:q}"


rule generate:
    input:
        prompts=L.prompts("{name}"),
        code=code("generate"),
    output:
        answers=L.answers("{name}"),
        receipt=L.receipt("generate", "{name}"),
    log:
        L.log("generate", "{name}"),
    benchmark:
        L.benchmark("generate", "{name}")
    conda:
        "../envs/minirag.yaml"
    params:
        settings=settings("generate"),
    shell:
        "python -m minirag.stages.generate --settings {params.settings:q} --prompts {input.prompts:q} "
        "--out {output.answers:q} --receipt {output.receipt:q} 2> {log:q}"
