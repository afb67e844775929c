"""Write results/report.md and results/manifest.json from the built artifacts.

The report reads only files the graph wrote (docs, chunks, questions, metrics, answers,
Snakemake benchmark files), so every figure in it names its source. The manifest records
the config, package versions and the sha256 of every input and output file.

What it leaves out: computing metrics (evaluate.py); it formats, it does not score.
"""

from __future__ import annotations

import csv
import platform
from collections import Counter
from importlib import metadata
from pathlib import Path

from .io import atomic_write_text, read_json, read_jsonl, sha256_file, write_json
from .pipeline import CorpusArtifacts

TABLE_KEYS = ("hit@1", "hit@3", "hit@5", "mrr", "recall@5", "ndcg@10")
MIN_TAG_QUESTIONS = 10
PACKAGES = ("numpy", "pandas", "snakemake", "pyyaml", "matplotlib", "pystemmer")


def md_table(header: list[str], rows: list[list]) -> str:
    def cell(v):
        return f"{v:.3f}" if isinstance(v, float) else str(v)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def stage_times(bench_dir: Path) -> list[list]:
    rows = []
    for path in sorted(bench_dir.glob("*.tsv")):
        with open(path, encoding="utf-8") as fh:
            records = list(csv.DictReader(fh, delimiter="\t"))
        if records:
            rows.append([path.stem, float(records[-1]["s"]), float(records[-1].get("max_rss") or 0)])
    return rows


def corpus_section(name: str, cc: dict, art: CorpusArtifacts) -> str:
    docs = read_jsonl(art.docs)
    chunks = read_jsonl(art.chunks)
    questions = read_jsonl(art.questions)
    metrics = read_json(art.eval_dir / "metrics.json")
    ch = cc["chunk"]
    out = [f"## Corpus `{name}`", ""]
    langs = Counter(d["lang"] for d in docs)
    chunk_chars = [len(c["text"]) for c in chunks]
    params = {"tokens": f"target {ch['target_tokens']} tokens, overlap {ch['overlap']}",
              "sections": f"budget {ch['max_tokens']} tokens per part", "chars": f"{ch['size']} characters, overlap {ch['overlap']}",
              "none": "one chunk per document"}[ch["strategy"]]
    out += [f"- Source: `{cc['source']['path']}` ({cc['source']['format']}); {len(docs)} documents "
            f"({', '.join(f'{k}: {v}' for k, v in sorted(langs.items()))}), "
            f"{sum(len(d['text']) for d in docs):,} characters.",
            f"- Chunking: `{ch['strategy']}` ({params}); {len(chunks)} chunks, "
            f"median {sorted(chunk_chars)[len(chunk_chars) // 2] if chunks else 0} characters.",
            f"- Questions: {metrics['questions']} ({metrics['answerable']} answerable); by language "
            + ", ".join(f"{k}: {v}" for k, v in sorted(Counter(q['lang'] for q in questions).items()))
            + "; by difficulty " + ", ".join(f"{k}: {v}" for k, v in sorted(Counter(q['difficulty'] for q in questions).items())) + ".",
            ""]
    retrieval = metrics["retrieval"]
    for level, what in (("chunk", "a chunk is relevant when it overlaps the gold evidence span"),
                        ("doc", "a document is relevant when it is a gold document; its rank is its best chunk's")):
        out += [f"### Retrieval, {level} level", "", f"Answerable questions only; {what}.", ""]
        rows = [[f"`{r}` ({describe_retriever(cc, r)})"] + [retrieval[r][level][k] for k in TABLE_KEYS] for r in retrieval]
        out += [md_table(["Retriever", "hit@1", "hit@3", "hit@5", "MRR", "recall@5", "nDCG@10"], rows), ""]
    best = max(retrieval, key=lambda r: (retrieval[r]["chunk"]["hit@5"], retrieval[r]["chunk"]["mrr"]))
    out += [f"Best retriever by chunk hit@5: `{best}`, hit@5 = {retrieval[best]['chunk']['hit@5']:.3f} "
            f"on {metrics['answerable']} answerable questions.", ""]
    tags = metrics.get("tags", {})
    tag_counts = Counter(t for q in questions if q["answerable"] for t in q.get("tags", []))
    shown = [t for t, n in sorted(tag_counts.items()) if n >= MIN_TAG_QUESTIONS]
    if shown:
        out += ["### By tag (chunk level)", "",
                f"Tags carried by at least {MIN_TAG_QUESTIONS} answerable questions "
                "(`conjugation`: the seed's verb-conjugation set, target recall@5 ≥ 0.95).", ""]
        rows = [[f"`{r}`", t, tag_counts[t], tags[r][t]["chunk"]["hit@5"], tags[r][t]["chunk"]["recall@5"],
                 tags[r][t]["chunk"]["mrr"]] for t in shown for r in tags]
        out += [md_table(["Retriever", "tag", "n", "hit@5", "recall@5", "MRR"], rows), ""]
    out += slices_section(art)
    out += answers_section(metrics, art, questions, best)
    times = stage_times(art.root / "benchmarks")
    if times:
        out += ["### Stage wall times", "", "From each rule's Snakemake benchmark file (last run).", ""]
        out += [md_table(["Job", "seconds", "max RSS (MB)"], [[n, s, round(m, 1)] for n, s, m in times]), ""]
    return "\n".join(out)


def describe_retriever(cc: dict, name: str) -> str:
    spec = cc["retrievers"][name]
    if spec["type"] == "dense":
        return f"dense, {spec['embedder']}"
    if spec["type"] == "bm25":
        idx = cc["bm25"][spec["index"]]
        extra = f", title field {idx['title_weight']}" if idx["title_weight"] else ""
        return f"BM25 {idx['variant']} k1={idx['k1']} b={idx['b']}{extra}"
    return f"RRF k={spec['k']} of {' + '.join(spec['of'])}"


def slices_section(art: CorpusArtifacts) -> list[str]:
    with open(art.eval_dir / "slices.csv", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["level"] == "chunk"]
    retrievers = list(dict.fromkeys(r["retriever"] for r in rows))
    cells = {}
    for r in rows:
        cells[(r["lang"], r["difficulty"], r["retriever"])] = (float(r["hit@5"]), int(r["n"]))
    keys = list(dict.fromkeys((r["lang"], r["difficulty"]) for r in rows))
    table = [[lang, diff, cells[(lang, diff, retrievers[0])][1]] + [cells[(lang, diff, rv)][0] for rv in retrievers]
             for lang, diff in keys]
    return ["### Slices: hit@5 by language and difficulty (chunk level)", "",
            md_table(["lang", "difficulty", "n"] + [f"`{r}`" for r in retrievers], table), ""]


def answers_section(metrics: dict, art: CorpusArtifacts, questions: list[dict], best: str) -> list[str]:
    answers = metrics.get("answers", {})
    if not answers:
        return []
    out = ["### Answers", "", "Extractive reader over the top-k chunks of each retriever's run.", ""]
    rows = [[f"`{r}`", a["reader"], a["contains_answer"], a["cites_relevant"], a["abstention_accuracy"],
             a["latency_ms_p50"], a["latency_ms_p95"]] for r, a in answers.items()]
    out += [md_table(["Retriever", "reader", "contains answer", "cites relevant", "abstention acc.",
                      "latency p50 (ms)", "p95 (ms)"], rows), ""]
    unanswerable = [q for q in questions if not q["answerable"]]
    if unanswerable and best in answers:
        said = {r["qid"]: r for r in read_jsonl(art.answers(best))}
        out += [f"Unanswerable questions and what the reader said over `{best}`:", ""]
        out += [md_table(["qid", "question", "answer"],
                         [[q["qid"], q["query"].replace("|", "\\|"), said[q["qid"]]["answer"].replace("|", "\\|")]
                          for q in unanswerable]), ""]
    return out


def package_versions() -> dict:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def manifest(settings: dict, config_path: str | None) -> dict:
    files = {}
    for name, cc in settings["corpora"].items():
        src = Path(cc["source"]["path"])
        sources = sorted(p for p in (src.glob(cc["source"]["glob"]) if cc["source"]["format"] == "markdown"
                                     else src.glob("**/*")) if p.is_file())
        if cc["source"]["format"] == "markdown":
            sources.append(Path(cc["source"]["questions"]))
        root = Path(settings["results"]) / name
        outputs = sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))
        files[name] = {"inputs": {str(p): sha256_file(p) for p in sources},
                       "outputs": {str(p): sha256_file(p) for p in outputs}}
    return {"config": config_path, "corpora": settings["corpora"], "packages": package_versions(), "files": files}


def write_report(settings: dict, out: str, manifest_path: str, config_path: str | None = None) -> None:
    parts = ["# minirag report", "",
             "Built by `snakemake` from the artifacts under `results/`; every table below is read from "
             "the files it names (`eval/metrics.json`, `eval/slices.csv`, `answers/*.jsonl`, `benchmarks/*.tsv`).", ""]
    for name, cc in settings["corpora"].items():
        parts.append(corpus_section(name, cc, CorpusArtifacts(Path(settings["results"]) / name)))
    atomic_write_text(out, "\n".join(parts).rstrip() + "\n")
    write_json(manifest_path, manifest(settings, config_path))
