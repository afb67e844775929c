# Curate documents, validate questions, train the tokenizer, chunk.


def source_files(wc):
    s = cc(wc)["source"]
    if s["format"] == "beir":
        return [str(Path(s["path"]) / "corpus.jsonl")]
    return sorted(str(p) for p in Path(s["path"]).glob(s["glob"]) if p.is_file())


def question_files(wc):
    s = cc(wc)["source"]
    if s["format"] == "beir":
        return [str(Path(s["path"]) / "queries.jsonl"), str(Path(s["path"]) / "qrels" / f"{s['split']}.tsv")]
    return [s["questions"]]


rule curate:
    input:
        docs=source_files,
        code=src("corpus"),
    output:
        "results/{corpus}/docs.jsonl",
    params:
        settings=settings("curate"),
        source=lambda wc: cc(wc)["source"]["path"],
        glob=lambda wc: cc(wc)["source"]["glob"],
    log:
        "results/{corpus}/logs/curate.log",
    benchmark:
        "results/{corpus}/benchmarks/curate.tsv"
    shell:
        "{PY} -m minirag curate --settings {params.settings:q} --source {params.source:q} "
        "--glob {params.glob:q} --out {output} 2> {log}"


rule questions:
    input:
        docs="results/{corpus}/docs.jsonl",
        questions=question_files,
        code=src("corpus"),
    output:
        "results/{corpus}/questions.jsonl",
    params:
        settings=settings("questions"),
        source=lambda wc: cc(wc)["source"]["path"] if cc(wc)["source"]["format"] == "beir" else cc(wc)["source"]["questions"],
    log:
        "results/{corpus}/logs/questions.log",
    benchmark:
        "results/{corpus}/benchmarks/questions.tsv"
    shell:
        "{PY} -m minirag questions --settings {params.settings:q} --source {params.source:q} "
        "--docs {input.docs} --out {output} 2> {log}"


rule train_tokenizer:
    input:
        docs="results/{corpus}/docs.jsonl",
        code=src("bpe"),
    output:
        "results/{corpus}/tokenizer.json",
    params:
        settings=settings("train_tokenizer"),
    log:
        "results/{corpus}/logs/train_tokenizer.log",
    benchmark:
        "results/{corpus}/benchmarks/train_tokenizer.tsv"
    shell:
        "{PY} -m minirag train-tokenizer --settings {params.settings:q} --docs {input.docs} --out {output} 2> {log}"


def chunk_tokenizer(wc):
    # Only token-bounded strategies read the tokenizer; the others must not rerun when it changes.
    return [results(wc, "tokenizer.json")] if cc(wc)["chunk"]["strategy"] in ("tokens", "sections") else []


rule chunk:
    input:
        docs="results/{corpus}/docs.jsonl",
        tokenizer=chunk_tokenizer,
        code=src("chunk", "bpe"),
    output:
        "results/{corpus}/chunks.jsonl",
    params:
        settings=settings("chunk"),
        tokenizer=lambda wc, input: f"--tokenizer {input.tokenizer}" if input.tokenizer else "",
    log:
        "results/{corpus}/logs/chunk.log",
    benchmark:
        "results/{corpus}/benchmarks/chunk.tsv"
    shell:
        "{PY} -m minirag chunk --settings {params.settings:q} --docs {input.docs} {params.tokenizer} "
        "--out {output} 2> {log}"
