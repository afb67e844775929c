"""`python -m minirag <command>`: run one stage on files, or query built artifacts.

Stage commands are what workflow/rules/*.smk call; each reads its inputs, calls the
library, and writes its outputs atomically. `--settings` carries the stage's config
values as JSON (the rule's params). User commands: `search` and `answer` load built
artifacts without rebuilding anything.

What it leaves out: deciding what to run (Snakemake does) and any logic a library
module could hold; the functions here only move data between files and modules.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from .io import read_jsonl, write_jsonl


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- stages

def cmd_curate(a) -> None:
    from .corpus import curate_beir, curate_markdown
    s = json.loads(a.settings)
    if s["format"] == "beir":
        docs = curate_beir(a.source, default_lang=s["default_lang"] or "en")
    else:
        docs = curate_markdown(a.source, a.glob, s["fields"], s["default_lang"])
    write_jsonl(a.out, docs)
    log(f"curate: {len(docs)} documents from {a.source} -> {a.out}")


def cmd_questions(a) -> None:
    from .corpus import load_beir_questions, load_questions
    s = json.loads(a.settings)
    docs = read_jsonl(a.docs)
    if s["format"] == "beir":
        qs = load_beir_questions(a.source, s["split"], docs, lang=docs[0]["lang"] if docs else "en")
    else:
        qs = load_questions(a.source, docs, s["questions_format"], tuple(s["question_langs"]))
    write_jsonl(a.out, qs)
    log(f"questions: {len(qs)} validated questions ({sum(q['answerable'] for q in qs)} answerable) -> {a.out}")


def cmd_train_tokenizer(a) -> None:
    from .bpe import BPETokenizer
    s = json.loads(a.settings)
    docs = read_jsonl(a.docs)
    t0 = time.perf_counter()
    tok = BPETokenizer.train([f"{d['title']}\n{d['text']}" for d in docs], s["vocab_size"], progress=log)
    tok.save(a.out)
    log(f"train_tokenizer: vocab {tok.vocab_size} in {time.perf_counter() - t0:.1f}s -> {a.out}")


def cmd_chunk(a) -> None:
    from .chunk import chunk_document
    s = dict(json.loads(a.settings))
    strategy = s.pop("strategy")
    tok = None
    if a.tokenizer:
        from .bpe import BPETokenizer
        tok = BPETokenizer.load(a.tokenizer)
    chunks = [c for d in read_jsonl(a.docs) for c in chunk_document(d, strategy=strategy, tokenizer=tok, **s)]
    write_jsonl(a.out, (c.to_record() for c in chunks))
    log(f"chunk: {len(chunks)} chunks ({strategy} {s}) -> {a.out}")


def cmd_train_biencoder(a) -> None:
    from .artifacts import load_chunks
    from .biencoder import BiEncoderConfig, train_biencoder
    from .bpe import BPETokenizer
    from .io import sha256_file
    from .pairs import beir_train_pairs, mine_pairs, pairs_sha256
    s = json.loads(a.settings)
    cfg = BiEncoderConfig.from_dict({k: v for k, v in s.items() if k not in ("type", "train_qrels")})
    records = [c.to_record() for c in load_chunks(a.chunks)]
    pairs = mine_pairs(records, cfg.sources, cfg.seed, cfg.ict_per_chunk, cfg.crops_per_chunk)
    if a.train_qrels:
        # repeated: a few thousand labelled pairs among tens of thousands of mined ones
        pairs += cfg.qrels_repeat * beir_train_pairs(a.queries, a.train_qrels, a.corpus)
    by_source = dict(sorted(Counter(source for source, _, _ in pairs).items()))
    log(f"train_biencoder: {len(pairs)} pairs ({', '.join(f'{k} {n}' for k, n in by_source.items())})")
    tok = BPETokenizer.load(a.tokenizer)
    model, losses = train_biencoder([(x, y) for _, x, y in pairs], tok, cfg, progress=make_progress(cfg.epochs))
    model.save(a.out, {"settings": s, "tokenizer_sha256": sha256_file(a.tokenizer), "training_pairs": len(pairs),
                       "pairs_by_source": by_source,
                       "training_data_sha256": pairs_sha256(pairs), "loss_per_epoch": losses})


def make_progress(epochs: int):
    """A progress bar on a terminal; one line per epoch, with its mean loss, otherwise too (the rule's log)."""
    tty = sys.stderr.isatty()
    state = {"t0": time.perf_counter(), "sum": 0.0}

    def progress(epoch: int, step: int, n_steps: int, loss: float) -> None:
        # epoch counts from 1, step from 1 to n_steps (minirag.biencoder.train_biencoder)
        state["sum"] = loss if step == 1 else state["sum"] + loss
        if tty:
            filled = int(30 * step / max(n_steps, 1))
            sys.stderr.write(f"\repoch {epoch}/{epochs} [{'#' * filled}{'.' * (30 - filled)}] loss {loss:.4f}")
            sys.stderr.flush()
        if step == n_steps:
            if tty:
                sys.stderr.write("\n")
            log(f"epoch {epoch}/{epochs}: mean step loss {state['sum'] / n_steps:.4f} "
                f"({time.perf_counter() - state['t0']:.1f}s)")
    return progress


def cmd_embed(a) -> None:
    from .artifacts import index_text, load_chunks, save_vectors
    from .embed import HashingEmbedder
    from .io import sha256_file
    s = json.loads(a.settings)
    chunks = load_chunks(a.chunks)
    texts = [index_text(c) for c in chunks]
    producer = {"embedder": a.name, "chunks_sha256": sha256_file(a.chunks)}
    if s["type"] == "hashing":
        from .analyze import AnalyzerConfig
        emb = HashingEmbedder.fit(texts, dim=s["dim"], analyzer=AnalyzerConfig.from_dict(s.get("analyzer", {})))
        producer["params"] = emb.params()
    else:
        from .biencoder import BiEncoderEmbedder, MiniBiEncoder
        from .bpe import BPETokenizer
        emb = BiEncoderEmbedder(MiniBiEncoder.load(a.encoder), BPETokenizer.load(a.tokenizer))
        producer["params"] = {"type": "biencoder", **s}
        producer["encoder_sha256"] = sha256_file(a.encoder)
        producer["tokenizer_sha256"] = sha256_file(a.tokenizer)
    t0 = time.perf_counter()
    vectors = emb.embed(texts)  # (N, d)
    save_vectors(a.out, vectors, chunks, producer)
    log(f"embed: {vectors.shape[0]} x {vectors.shape[1]} ({a.name}) in {time.perf_counter() - t0:.2f}s -> {a.out}")


def cmd_bm25(a) -> None:
    from .analyze import Analyzer, AnalyzerConfig
    from .artifacts import index_text, load_chunks
    from .bm25 import BM25Index, BM25Params
    from .io import write_json
    s = json.loads(a.settings)
    chunks = load_chunks(a.chunks)
    analyzer = Analyzer(AnalyzerConfig.from_dict(s["analyzer"]))
    params = BM25Params(variant=s["variant"], k1=s["k1"], b=s["b"], title_weight=s["title_weight"],
                        lucene_norms=s["lucene_norms"])
    texts = [index_text(c, with_title=s["prefix_title"]) for c in chunks]
    index = BM25Index.build(texts, analyzer, params, titles=[c.title for c in chunks])
    index.save(a.out_dir)
    write_json(Path(a.out_dir) / "items.json", [c.id for c in chunks])
    log(f"bm25: {len(chunks)} chunks indexed ({params}) -> {a.out_dir}")


def cmd_retrieve(a) -> None:
    from .artifacts import load_chunks, load_vectors_by_id
    from .trec import read_run, write_run
    s = json.loads(a.settings)
    questions = read_jsonl(a.questions)
    chunks = load_chunks(a.chunks)
    t0 = time.perf_counter()
    if s["type"] in ("dense", "bm25"):  # config.CHANNELS; not imported, so the stage does not run config.py
        from .pipeline import CorpusArtifacts, load_bm25, load_dense
        art = CorpusArtifacts(Path(a.chunks).parent)
        retriever = load_dense(art, s["embedder"], chunks) if s["type"] == "dense" else load_bm25(art, s["index"], chunks)
        ranked = retriever.search_batch([q["query"] for q in questions], s["depth"])
    else:
        from .retrieve import combine
        runs = [read_run(p) for p in a.runs]
        doc_of = {c.id: c.doc_id for c in chunks}
        vectors = load_vectors_by_id(a.vectors, chunks) if a.vectors else None
        ranked = [combine(s, [r.get(q["qid"], []) for r in runs], doc_of, vectors, s["depth"]) for q in questions]
    write_run(a.out, {q["qid"]: r for q, r in zip(questions, ranked)}, a.name)
    log(f"retrieve: {a.name} ({s['type']}) {len(questions)} queries in {time.perf_counter() - t0:.2f}s -> {a.out}")


def cmd_prompt(a) -> None:
    from .artifacts import load_chunks
    from .prompt import build_prompt
    from .trec import read_run
    s = json.loads(a.settings)
    by_id = {c.id: c for c in load_chunks(a.chunks)}
    run = read_run(a.run)
    records = []
    for q in read_jsonl(a.questions):
        top = [by_id[cid] for cid, _ in run.get(q["qid"], [])[: s["k"]]]
        records.append(build_prompt(q["query"], top, s["template"]).to_record(q["qid"]))
    write_jsonl(a.out, records)
    log(f"prompt: {len(records)} prompts with k={s['k']} -> {a.out}")


def cmd_generate(a) -> None:
    from .prompt import Prompt
    from .reader import make_reader
    s = json.loads(a.settings)
    reader = make_reader(s)
    out = []
    for rec in read_jsonl(a.prompts):
        ans = reader.generate(Prompt.from_record(rec))
        out.append({"qid": rec["qid"], "query": rec["query"], "reader": reader.name, "answer": ans.text,
                    "citations": ans.citations, "abstained": ans.abstained, "score": round(ans.score, 6),
                    "latency_ms": round(ans.latency_ms, 3)})
    write_jsonl(a.out, out)
    log(f"generate: {len(out)} answers ({sum(r['abstained'] for r in out)} abstained) -> {a.out}")


def cmd_evaluate(a) -> None:
    from .artifacts import load_chunks
    from .evaluate import evaluate, write_evaluation
    from .trec import read_run
    questions = read_jsonl(a.questions)
    chunks = load_chunks(a.chunks)
    runs = {Path(p).stem: read_run(p) for p in a.runs}
    answers = {Path(p).stem: {r["qid"]: r for r in read_jsonl(p)} for p in a.answers}
    result = evaluate(a.corpus, questions, chunks, runs, answers)
    write_evaluation(a.out_dir, result, questions, list(runs), list(answers))
    log(f"evaluate: {len(questions)} questions, {len(runs)} runs -> {a.out_dir}")


def cmd_diagnose(a) -> None:
    from .artifacts import load_chunks, load_vectors_by_id
    from .diagnose import always_on_top, channel_ranks, diversity, topk_overlap, write_csv
    from .trec import read_run
    s = json.loads(a.settings)
    questions = read_jsonl(a.questions)
    chunks = load_chunks(a.chunks)
    doc_of = {c.id: c.doc_id for c in chunks}
    runs = {Path(p).stem: read_run(p) for p in a.runs}
    vectors = load_vectors_by_id(a.vectors, chunks)
    k = s["k"]
    base = {n: runs[n] for n in s["base"]}
    out = Path(a.out_dir)
    write_csv(out / "diagnosis.csv", channel_ranks(questions, chunks, base, {n: runs[n] for n in s["fused"]}, k=k))
    write_csv(out / "overlap.csv", topk_overlap(base, k=k))
    write_csv(out / "always_on_top.csv",
              [{"retriever": n, **row} for n, run in runs.items() for row in always_on_top(run, doc_of, k, s["always_share"])],
              ["retriever", "chunk_id", "doc_id", "count", "share"])
    write_csv(out / "diversity.csv", [{"retriever": n, **row} for n, run in runs.items()
                                      for row in diversity(run, doc_of, vectors, k)])
    log(f"diagnose: {len(runs)} runs, {len(base)} channels -> {out}")


def cmd_assert(a) -> int:
    """Stage mode (from the rule) writes the results; user mode (--corpus) exits 1 on a failure."""
    from .artifacts import load_chunks
    from .assertions import check, format_markdown, load_assertions
    from .evaluate import per_query_metrics
    from .io import atomic_write_text, write_json
    from .trec import read_run
    if a.corpus:
        cc, art = load_corpus(a)
        if not cc["assertions"]:
            log(f"error: corpora.{a.corpus}.assertions: no assertions file configured")
            return 2
        assertions_path, questions_path, chunks_path = cc["assertions"], art.questions, art.chunks
        run_paths = [art.run(r) for r in cc["retrievers"]]
        strict, out = True, None
    else:
        assertions_path, questions_path, chunks_path = a.assertions, a.questions, a.chunks
        run_paths, strict, out = a.runs, json.loads(a.settings).get("strict", False), a.out
    questions = read_jsonl(questions_path)
    chunks = load_chunks(chunks_path)
    runs = {Path(p).stem: read_run(p) for p in run_paths}
    for run in runs.values():  # a run file has no lines for a query that matched nothing
        for q in questions:
            run.setdefault(q["qid"], [])
    results = check(load_assertions(assertions_path), runs, {c.id: c.doc_id for c in chunks}, questions,
                    per_query_metrics(questions, chunks, runs))
    text = format_markdown(results)
    failed = [r for r in results if not r.passed]
    if out:
        atomic_write_text(out, text)
        write_json(Path(out).with_suffix(".json"), [
            {"index": r.index, "assertion": r.text, "passed": r.passed, "observed": r.observed} for r in results])
    else:
        print(text, end="")
    log(f"assert: {len(results) - len(failed)} of {len(results)} passed")
    return 1 if failed and strict else 0


def cmd_report(a) -> None:
    from .report import write_report
    write_report(json.loads(a.settings), a.out, a.manifest, config_path=a.config)
    log(f"report: -> {a.out}")


def cmd_download_beir(a) -> None:
    from .download import download_beir
    download_beir(a.url, a.md5, a.out_dir, progress=log)


# ---------------------------------------------------------------- user commands

def load_corpus(a):
    import yaml
    from .config import FUSIONS, corpus_config
    from .pipeline import CorpusArtifacts
    config = yaml.safe_load(Path(a.configfile).read_text(encoding="utf-8"))
    cc = corpus_config(config, a.corpus)
    if getattr(a, "retriever", "") is None:
        # default: the config's first fusion, else its first retriever
        fused = [n for n, r in cc["retrievers"].items() if r["type"] in FUSIONS and "sweep_of" not in r]
        a.retriever = (fused or list(cc["retrievers"]))[0]
    return cc, CorpusArtifacts(Path(a.results) / a.corpus)


def open_retriever(a):
    """(corpus config, chunks, retriever) from built artifacts; None after saying what is missing."""
    from .pipeline import MissingArtifact, load_chunks, load_retriever, require
    try:
        cc, art = load_corpus(a)
        chunks = load_chunks(require(art.chunks, "chunks"))
        return cc, chunks, load_retriever(art, cc, a.retriever, chunks)
    except (MissingArtifact, KeyError, ValueError) as exc:
        log(f"error: {exc.args[0] if exc.args else exc}")
        return None


def cmd_search(a) -> int:
    opened = open_retriever(a)
    if opened is None:
        return 2
    _, chunks, retriever = opened
    by_id = {c.id: c for c in chunks}
    ranked = retriever.search(a.query, k=a.k)
    rows = [{"rank": i, "chunk_id": cid, "score": round(score, 6), "doc_id": by_id[cid].doc_id,
             "section": by_id[cid].section, "text": by_id[cid].text} for i, (cid, score) in enumerate(ranked, 1)]
    if a.json:
        print(json.dumps({"query": a.query, "retriever": a.retriever, "results": rows}, ensure_ascii=False, indent=2))
    else:
        for r in rows:
            snippet = " ".join(r["text"].split())[:160]
            print(f"{r['rank']:>2}. {r['score']:.4f}  {r['chunk_id']}  {r['doc_id']} § {r['section']}\n    {snippet}")
    return 0


def cmd_answer(a) -> int:
    from .pipeline import make_reader, rag_answer
    opened = open_retriever(a)
    if opened is None:
        return 2
    cc, chunks, retriever = opened
    by_id = {c.id: c for c in chunks}
    t0 = time.perf_counter()
    ranked, prompt, answer = rag_answer(a.query, retriever, make_reader(cc["reader"]), by_id, k=a.k or cc["prompt"]["k"])
    total_ms = (time.perf_counter() - t0) * 1000
    cited = [{"chunk_id": c, "doc_id": by_id[c].doc_id} for c in answer.citations]
    if a.json:
        print(json.dumps({"query": a.query, "retriever": a.retriever, "answer": answer.text, "abstained": answer.abstained,
                          "citations": cited, "retrieved": [cid for cid, _ in ranked], "latency_ms": round(total_ms, 3),
                          "prompt": prompt.text}, ensure_ascii=False, indent=2))
    else:
        print(answer.text)
        for n, c in enumerate(cited, 1):
            print(f"  cites {c['chunk_id']} ({c['doc_id']})")
        print(f"  [{total_ms:.1f} ms end to end; retrieved {', '.join(cid for cid, _ in ranked)}]")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m minirag", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    def stage(name, fn, *args):
        sp = sub.add_parser(name)
        sp.add_argument("--settings", default="{}", help="the stage's config values as JSON")
        for arg in args:
            sp.add_argument(f"--{arg}", nargs="+" if arg in ("runs", "answers") else None,
                            default=[] if arg in ("runs", "answers") else None)
        sp.set_defaults(fn=fn)

    stage("curate", cmd_curate, "source", "glob", "out")
    stage("questions", cmd_questions, "source", "docs", "out")
    stage("train-tokenizer", cmd_train_tokenizer, "docs", "out")
    stage("chunk", cmd_chunk, "docs", "tokenizer", "out")
    stage("train-biencoder", cmd_train_biencoder, "chunks", "tokenizer", "train-qrels", "queries", "corpus", "out")
    stage("embed", cmd_embed, "name", "chunks", "tokenizer", "encoder", "out")
    stage("bm25", cmd_bm25, "chunks", "out-dir")
    stage("retrieve", cmd_retrieve, "name", "questions", "chunks", "runs", "vectors", "out")
    stage("prompt", cmd_prompt, "questions", "chunks", "run", "out")
    stage("generate", cmd_generate, "prompts", "out")
    stage("evaluate", cmd_evaluate, "corpus", "questions", "chunks", "runs", "answers", "out-dir")
    stage("report", cmd_report, "config", "out", "manifest")
    stage("download-beir", cmd_download_beir, "url", "md5", "out-dir")
    stage("diagnose", cmd_diagnose, "questions", "chunks", "runs", "vectors", "out-dir")
    sp = sub.add_parser("assert", help="check a corpus's assertions; exit 1 when one fails")
    sp.add_argument("--settings", default="{}")
    for arg in ("assertions", "questions", "chunks", "out"):
        sp.add_argument(f"--{arg}")
    sp.add_argument("--runs", nargs="+", default=[])
    sp.add_argument("--corpus", help="user mode: read the config and built artifacts of this corpus")
    sp.add_argument("--configfile", default="workflow/config.yaml")
    sp.add_argument("--results", default="results")
    sp.set_defaults(fn=cmd_assert)

    for name, fn in (("search", cmd_search), ("answer", cmd_answer)):
        sp = sub.add_parser(name, help=f"{name} over built artifacts (no rebuild)")
        sp.add_argument("query")
        sp.add_argument("--corpus", default="kb")
        sp.add_argument("--retriever", default=None, help="a retriever of the config (default: its first fusion)")
        sp.add_argument("-k", type=int, default=5 if name == "search" else None)
        sp.add_argument("--json", action="store_true")
        sp.add_argument("--configfile", default="workflow/config.yaml")
        sp.add_argument("--results", default="results")
        sp.set_defaults(fn=fn)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args) or 0
    except (ValueError, RuntimeError, FileNotFoundError) as exc:
        # Bad input or misaligned artifacts: one clear line naming the file, non-zero exit.
        log(f"error: {exc}")
        return 1
