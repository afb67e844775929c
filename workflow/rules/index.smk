# Train the bi-encoder, embed chunks, build BM25 indexes, retrieve: one job per name.


def embedder(wc):
    return cc(wc)["embedders"][wc.name]


def biencoder_inputs(wc):
    s = cc(wc)["source"]
    if embedder(wc).get("train_qrels"):  # the config check makes sure the source is BEIR with a train split
        root = Path(s["path"])
        return {"queries": str(root / "queries.jsonl"), "corpus": str(root / "corpus.jsonl"),
                "train_qrels": str(root / "qrels" / f"{s['train_split']}.tsv")}
    return {}


rule train_biencoder:
    input:
        unpack(biencoder_inputs),
        chunks="results/{corpus}/chunks.jsonl",
        tokenizer="results/{corpus}/tokenizer.json",
        code=src("biencoder", "pairs", "bpe", "artifacts"),
    output:
        "results/{corpus}/encoders/{name}.npz",
        "results/{corpus}/encoders/{name}.json",
    params:
        settings=settings("train_biencoder"),
        beir=lambda wc, input: (f"--train-qrels {input.train_qrels} --queries {input.queries} --corpus {input.corpus}"
                                if "train_qrels" in input.keys() else ""),
    log:
        "results/{corpus}/logs/train_biencoder.{name}.log",
    benchmark:
        "results/{corpus}/benchmarks/train_biencoder.{name}.tsv"
    shell:
        "{ONE_BLAS_THREAD} {PY} -m minirag train-biencoder --settings {params.settings:q} --chunks {input.chunks} "
        "--tokenizer {input.tokenizer} {params.beir} --out {output[0]} 2> {log}"


def embed_inputs(wc):
    if embedder(wc)["type"] == "biencoder":
        return {"tokenizer": results(wc, "tokenizer.json"), "encoder": results(wc, "encoders", f"{wc.name}.npz"),
                "code": src("embed", "artifacts", "biencoder", "bpe")}
    return {"code": src("embed", "artifacts")}


rule embed:
    input:
        unpack(embed_inputs),
        chunks="results/{corpus}/chunks.jsonl",
    output:
        "results/{corpus}/vectors/{name}.npy",
        "results/{corpus}/vectors/{name}.json",
    params:
        settings=settings("embed"),
        model=lambda wc, input: (f"--tokenizer {input.tokenizer} --encoder {input.encoder}"
                                 if "encoder" in input.keys() else ""),
    log:
        "results/{corpus}/logs/embed.{name}.log",
    benchmark:
        "results/{corpus}/benchmarks/embed.{name}.tsv"
    shell:
        "{ONE_BLAS_THREAD} {PY} -m minirag embed --name {wildcards.name} --settings {params.settings:q} --chunks {input.chunks} "
        "{params.model} --out {output[0]} 2> {log}"


rule bm25:
    input:
        chunks="results/{corpus}/chunks.jsonl",
        code=src("bm25", "analyze", "artifacts"),
    output:
        multiext("results/{corpus}/bm25/{name}/", "index.npz", "vocab.json", "params.json", "items.json"),
    params:
        settings=settings("bm25"),
        out_dir=lambda wc: results(wc, "bm25", wc.name),
    log:
        "results/{corpus}/logs/bm25.{name}.log",
    benchmark:
        "results/{corpus}/benchmarks/bm25.{name}.tsv"
    shell:
        "{PY} -m minirag bm25 --settings {params.settings:q} --chunks {input.chunks} --out-dir {params.out_dir} 2> {log}"


def retrieve_inputs(wc):
    spec = cc(wc)["retrievers"][wc.name]
    if spec["type"] == "dense":
        inputs = {"vectors": results(wc, "vectors", f"{spec['embedder']}.npy"),
                  "code": src("artifacts", "trec", "pipeline")}
        if embedder_of(wc, spec["embedder"])["type"] == "biencoder":
            inputs["encoder"] = results(wc, "encoders", f"{spec['embedder']}.npz")
            inputs["tokenizer"] = results(wc, "tokenizer.json")
        return inputs
    if spec["type"] == "bm25":
        return {"index": results(wc, "bm25", spec["index"], "index.npz"),
                "code": src("artifacts", "trec", "pipeline")}
    inputs = {"runs": [results(wc, "runs", f"{r}.trec") for r in upstream(spec)],
              "code": src("artifacts", "trec", "retrieve")}
    if spec["type"] == "mmr":
        inputs["vectors"] = results(wc, "vectors", f"{spec['embedder']}.npy")
    return inputs


def embedder_of(wc, name):
    return cc(wc)["embedders"][name]


rule retrieve:
    input:
        unpack(retrieve_inputs),
        questions="results/{corpus}/questions.jsonl",
        chunks="results/{corpus}/chunks.jsonl",
    output:
        "results/{corpus}/runs/{name}.trec",
    params:
        settings=settings("retrieve"),
        runs=lambda wc, input: ("--runs " + " ".join(input.runs)) if "runs" in input.keys() else "",
        vectors=lambda wc, input: f"--vectors {input.vectors}" if "vectors" in input.keys() else "",
    log:
        "results/{corpus}/logs/retrieve.{name}.log",
    benchmark:
        "results/{corpus}/benchmarks/retrieve.{name}.tsv"
    shell:
        "{PY} -m minirag retrieve --name {wildcards.name} --settings {params.settings:q} "
        "--questions {input.questions} --chunks {input.chunks} {params.runs} {params.vectors} --out {output} 2> {log}"
