"""MiniBiEncoder: training and embedding speed, and retrieval quality against its controls.

Two parts, each comparing in one run the MiniBiEncoder with the HashingEmbedder (its
untrained control), BM25 (minirag's BM25Index) and the RRF hybrid of BM25 and the encoder:

- kb: the embedded English/Spanish KB (kb/docs, kb/eval/questions.jsonl), chunked as the
  default graph does (byte-level BPE of 2,000 tokens trained on the docs, `tokens` chunks
  of 150 with overlap 20). Chunk-level hit@5 (a chunk counts when it overlaps the gold
  evidence, as evaluate.py scores it) on all answerable questions and on the en / es /
  cross / conjugation slices, plus document-level hit@5. `--ablate` adds leave-one-out
  rows over the pair sources.
- scifact: 5,183 abstracts as chunks (title + " " + text), BPE of 8,000 tokens trained on
  them, the 300 test claims, nDCG@10 by pytrec_eval over the top 100. The encoder is
  trained unsupervised (title / ict / crops pairs) and with the train-split qrels pairs
  added; the test split is never read for training. BM25 uses the graph's `pyserini`
  settings (standard tokenizer, English stopwords, Porter, k1 0.9, b 0.4).

Timings: training seconds (pair mining and tokenization included), embedding the SciFact
corpus, and one query embedded (tokenization included) as the median over --query-repeats
single calls. One BLAS thread (set before numpy loads): at these matrix sizes a second
thread does not pay on a shared 2-core box. Configs: `default` is BiEncoderConfig() as
the graph gets it; `wide` is d 256, hidden 512, token_dim 256, temperature 0.1, the
setting the notes recommend; SciFact uses wide plus max_tokens 256 and 2 ict and 2 crop
pairs per abstract (the train-qrels pairs go in `qrels_repeat` = 5 times).

    .venv/bin/python bench/biencoder.py [--part kb|scifact|all] [--ablate] [--json]
                                        [--data DIR] [--kb DIR] [--seed N]
                                        [--kb-vocab N] [--kb-target T]
                                        [--set KEY=VALUE ...]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # one thread, before numpy loads

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pytrec_eval

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from minirag.artifacts.io import read_jsonl  # noqa: E402
from minirag.datasets.beir import beir_train_pairs, curate_beir, read_qrels  # noqa: E402
from minirag.evaluation.evaluate import build_qrels  # noqa: E402
from minirag.evaluation.metrics import hit_at  # noqa: E402
from minirag.index.biencoder import BiEncoderConfig, BiEncoderEmbedder  # noqa: E402
from minirag.index.biencoder_train import train_biencoder  # noqa: E402
from minirag.index.bm25.index import BM25Index, BM25Params  # noqa: E402
from minirag.index.hashing import HashingEmbedder  # noqa: E402
from minirag.index.pairs import mine_pairs  # noqa: E402
from minirag.index.store import top_k  # noqa: E402
from minirag.rank.fusion import reciprocal_rank_fusion  # noqa: E402
from minirag.text.analyze import Analyzer, AnalyzerConfig  # noqa: E402
from minirag.text.bpe import BPETokenizer  # noqa: E402
from minirag.text.chunker import chunk_document  # noqa: E402
from minirag.text.chunks import index_text  # noqa: E402
from minirag.text.corpus import curate_markdown  # noqa: E402
from minirag.text.questions import load_questions  # noqa: E402

WIDE = dict(d=256, hidden=512, token_dim=256, temperature=0.1)
# SciFact: abstracts are longer than KB chunks; fewer unsupervised pairs per abstract leave
# the train-qrels pairs (repeated qrels_repeat times) a larger share of each epoch.
SCIFACT = dict(max_tokens=256, ict_per_chunk=2, crops_per_chunk=2)
KB_FIELDS = {"title": "title", "lang": "lang", "tags": "tags"}
KB_SLICES = ("all", "en", "es", "cross", "conjugation")
HASHING_DIMS = (64, 128, 256, 512, 1024)
# The KB config's `bilingual` BM25 index (workflow/config.yaml; bench/kb_analyzers.py).
BILINGUAL = AnalyzerConfig(stopwords=("en", "es"), stemmer="spanish", fold_accents=True)


def dense_runs(embedder, queries: list[str], texts: list[str], ids: list[str], depth: int):
    """Per query: [(id, cosine)] best first; also the seconds spent embedding `texts`."""
    t0 = time.perf_counter()
    docs = embedder.embed(texts)  # (N, d)
    embed_s = time.perf_counter() - t0
    sims = embedder.embed(queries) @ docs.T  # (Q, N)
    return [[(ids[j], float(row[j])) for j in top_k(row, depth)] for row in sims], embed_s


def bm25_runs(index: BM25Index, queries: list[str], ids: list[str], depth: int):
    return [[(ids[i], float(s)) for i, s in zip(idx, scores)] for idx, scores in index.search_batch(queries, depth)]


def query_ms(embedder, queries: list[str], repeats: int) -> float:
    """Median milliseconds to embed one query, tokenization included, over `repeats` calls."""
    times = []
    for i in range(repeats):
        q = [queries[i % len(queries)]]
        t0 = time.perf_counter()
        embedder.embed(q)
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def fuse(a: list, b: list, depth: int) -> list:
    """RRF (k = 60) of two runs, each contributing its top `depth`."""
    return [reciprocal_rank_fusion([x[:depth], y[:depth]], 60) for x, y in zip(a, b)]


# -- KB ------------------------------------------------------------------------------------------


def in_slice(question: dict, name: str) -> bool:
    return name == "all" or question["lang"] == name or name in question.get("tags", [])


def kb_part(kb: Path, wide: BiEncoderConfig, ablate: bool, vocab_size: int = 2000, target_tokens: int = 150) -> dict:
    docs = curate_markdown(kb / "docs", "**/*.md", KB_FIELDS)
    tokenizer = BPETokenizer.train([d["text"] for d in docs], vocab_size)
    chunks = [c for d in docs for c in chunk_document(d, "tokens", tokenizer, target_tokens=target_tokens,
                                                      overlap=max(1, round(target_tokens * 2 / 15)))]
    questions = [q for q in load_questions(kb / "eval" / "questions.jsonl", docs) if q["answerable"]]
    chunk_qrels, doc_qrels = build_qrels(questions, chunks)
    chunk_doc = {c.id: c.doc_id for c in chunks}
    texts, ids = [index_text(c) for c in chunks], [c.id for c in chunks]
    qtexts = [q["query"] for q in questions]
    records = [c.to_record() for c in chunks]

    def scores(run: list) -> dict:
        out = {}
        for name in KB_SLICES:
            sel = [i for i, q in enumerate(questions) if in_slice(q, name)]
            out[name] = float(np.mean([hit_at([c for c, _ in run[i]], chunk_qrels[questions[i]["qid"]], 5)
                                       for i in sel]))
        out["doc"] = float(np.mean([hit_at(list(dict.fromkeys(chunk_doc[c] for c, _ in run[i])),
                                           doc_qrels[q["qid"]], 5) for i, q in enumerate(questions)]))
        return out

    rows = []
    hashing, _ = dense_runs(HashingEmbedder.fit(texts, 256), qtexts, texts, ids, 20)
    bm25 = bm25_runs(BM25Index.build(texts, Analyzer(AnalyzerConfig()), BM25Params()), qtexts, ids, 20)
    bilingual = bm25_runs(BM25Index.build(texts, Analyzer(BILINGUAL), BM25Params(title_weight=1.0),
                                          titles=[c.title for c in chunks]), qtexts, ids, 20)
    rows.append({"retriever": "hashing (dim 256)", **scores(hashing)})
    for dim in HASHING_DIMS:  # the control at other widths: what a d-number vector keeps untrained
        if dim != 256:
            run, _ = dense_runs(HashingEmbedder.fit(texts, dim), qtexts, texts, ids, 20)
            rows.append({"retriever": f"hashing (dim {dim})", **scores(run)})
    rows.append({"retriever": "bm25 (plain)", **scores(bm25)})
    rows.append({"retriever": "bm25 (bilingual + title)", **scores(bilingual)})
    configs = {"default": BiEncoderConfig(seed=wide.seed), "wide": wide}
    if ablate:
        for src in configs["wide"].sources:
            configs[f"wide -{src}"] = replace(configs["wide"], sources=tuple(
                s for s in configs["wide"].sources if s != src))
    n_pairs = {}
    for name, config in configs.items():
        t0 = time.perf_counter()
        pairs = mine_pairs(records, config.sources, config.seed, config.ict_per_chunk, config.crops_per_chunk)
        model, losses = train_biencoder([(a, b) for _, a, b in pairs], tokenizer, config)
        train_s = time.perf_counter() - t0
        run, _ = dense_runs(BiEncoderEmbedder(model, tokenizer), qtexts, texts, ids, 20)
        n_pairs[name] = dict(Counter(s for s, _, _ in pairs))
        rows.append({"retriever": f"biencoder {name}", **scores(run), "train_s": train_s,
                     "loss_first": losses[0], "loss_last": losses[-1]})
        if not name.startswith("wide -"):
            rows.append({"retriever": f"rrf(bm25, biencoder {name})", **scores(fuse(bm25, run, 20))})
            rows.append({"retriever": f"rrf(bilingual, biencoder {name})", **scores(fuse(bilingual, run, 20))})
    rows.append({"retriever": "rrf(bm25, hashing)", **scores(fuse(bm25, hashing, 20))})
    slices = {name: sum(in_slice(q, name) for q in questions) for name in KB_SLICES}
    return {"chunks": len(chunks), "vocab_size": vocab_size, "target_tokens": target_tokens,
            "questions": slices, "pairs": n_pairs, "rows": rows}


# -- SciFact -------------------------------------------------------------------------------------


def ndcg10(run: list, qids: list[str], qrels: dict) -> float:
    trec = {q: {d: float(len(r) - i) for i, (d, _) in enumerate(r)} for q, r in zip(qids, run)}  # rank order
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}).evaluate(trec)
    return float(np.mean([v["ndcg_cut_10"] for v in per_query.values()]))


def scifact_part(data: Path, config: BiEncoderConfig, query_repeats: int) -> dict:
    docs = curate_beir(data)
    texts = [f"{d['title']} {d['text']}".strip() for d in docs]
    ids = [d["doc_id"] for d in docs]
    chunks = [{"id": d["doc_id"], "doc_id": d["doc_id"], "offset": 0, "text": d["text"],
               "metadata": {"title": d["title"]}} for d in docs]
    qrels = read_qrels(data / "qrels" / "test.tsv")
    queries = {str(q["_id"]): q["text"] for q in read_jsonl(data / "queries.jsonl")}
    qids = sorted(qrels, key=int)
    qtexts = [queries[q] for q in qids]

    t0 = time.perf_counter()
    tokenizer = BPETokenizer.train(texts, 8000)
    tokenizer_s = time.perf_counter() - t0

    rows, timing = [], {"tokenizer_train_s": tokenizer_s}
    hashing_emb = HashingEmbedder.fit(texts, 256)
    hashing, hashing_embed_s = dense_runs(hashing_emb, qtexts, texts, ids, 100)
    timing["hashing"] = {"embed_corpus_s": hashing_embed_s, "query_ms": query_ms(hashing_emb, qtexts, query_repeats)}
    bm25 = bm25_runs(BM25Index.build(texts, Analyzer(AnalyzerConfig(tokenizer="standard", stopwords=("en",),
                                                                    stemmer="porter")),
                                     BM25Params(k1=0.9, b=0.4, lucene_norms=True)), qtexts, ids, 100)
    rows.append({"retriever": "hashing (dim 256)", "ndcg@10": ndcg10(hashing, qids, qrels)})
    rows.append({"retriever": "bm25 (pyserini)", "ndcg@10": ndcg10(bm25, qids, qrels)})
    rows.append({"retriever": "rrf(bm25, hashing)", "ndcg@10": ndcg10(fuse(bm25, hashing, 100), qids, qrels)})

    variants = {"unsupervised": ("title", "ict", "crops"), "+ train qrels": ("title", "ict", "crops", "qrels")}
    n_pairs = {}
    for name, sources in variants.items():
        t0 = time.perf_counter()
        pairs = mine_pairs(chunks, [s for s in sources if s != "qrels"], config.seed,
                           config.ict_per_chunk, config.crops_per_chunk)
        if "qrels" in sources:
            pairs += config.qrels_repeat * beir_train_pairs(data, "train", "test")
        model, losses = train_biencoder([(a, b) for _, a, b in pairs], tokenizer, config)
        train_s = time.perf_counter() - t0
        emb = BiEncoderEmbedder(model, tokenizer)
        run, embed_s = dense_runs(emb, qtexts, texts, ids, 100)
        n_pairs[name] = dict(Counter(s for s, _, _ in pairs))
        timing[f"biencoder {name}"] = {"train_s": train_s, "embed_corpus_s": embed_s,
                                       "query_ms": query_ms(emb, qtexts, query_repeats),
                                       "losses": [round(x, 4) for x in losses]}
        rows.append({"retriever": f"biencoder {name}", "ndcg@10": ndcg10(run, qids, qrels)})
        rows.append({"retriever": f"rrf(bm25, biencoder {name})", "ndcg@10": ndcg10(fuse(bm25, run, 100), qids, qrels)})
    return {"docs": len(docs), "queries": len(qids), "config": asdict(config),
            "pairs": n_pairs, "rows": rows, "timing": timing}


# -- output --------------------------------------------------------------------------------------


def print_tables(result: dict) -> None:
    if "kb" in result:
        kb = result["kb"]
        print(f"KB: {kb['chunks']} chunks (BPE {kb['vocab_size']}, target {kb['target_tokens']} tokens); "
              f"answerable questions per slice {kb['questions']}")
        print(f"{'retriever':34s} " + " ".join(f"{s:>11s}" for s in KB_SLICES) + f" {'doc':>6s} {'train s':>8s}")
        for r in kb["rows"]:
            train_s = f"{r['train_s']:8.1f}" if "train_s" in r else ""
            cells = " ".join(f"{r[s]:11.3f}" for s in KB_SLICES)
            print(f"{r['retriever']:34s} {cells} {r['doc']:6.3f} {train_s}")
        print("hit@5 (chunk level; doc = document level, all questions)\n")
    if "scifact" in result:
        sf = result["scifact"]
        print(f"SciFact: {sf['docs']} docs, {sf['queries']} test claims; pairs {sf['pairs']}")
        for r in sf["rows"]:
            print(f"  {r['retriever']:40s} nDCG@10 {r['ndcg@10']:.4f}")
        for name, t in sf["timing"].items():
            if isinstance(t, dict):
                print(f"  {name:40s} " + ", ".join(f"{k} {v if isinstance(v, list) else round(v, 3)}"
                                                    for k, v in t.items()))
        print(f"  tokenizer training {sf['timing']['tokenizer_train_s']:.1f} s")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("kb", "scifact", "all"), default="all")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "datasets" / "scifact")
    ap.add_argument("--kb", type=Path, default=ROOT / "kb")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ablate", action="store_true", help="leave-one-out rows over the KB pair sources")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a BiEncoderConfig field of the KB wide and SciFact configs, e.g. --set epochs=4")
    ap.add_argument("--kb-vocab", type=int, default=2000, help="KB BPE vocabulary size (the graph's: 2000)")
    ap.add_argument("--kb-target", type=int, default=150, help="KB chunk target in BPE tokens (overlap 2/15 of it)")
    ap.add_argument("--query-repeats", type=int, default=1000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    overrides = {}
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key] = json.loads(value)
    result = {}
    if args.part in ("kb", "all"):
        wide = BiEncoderConfig.from_dict({**WIDE, "seed": args.seed, **overrides})
        result["kb"] = kb_part(args.kb, wide, args.ablate, args.kb_vocab, args.kb_target)
    if args.part in ("scifact", "all"):
        config = BiEncoderConfig.from_dict({**WIDE, **SCIFACT, "seed": args.seed, **overrides})
        result["scifact"] = scifact_part(args.data, config, args.query_repeats)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_tables(result)


if __name__ == "__main__":
    main()
