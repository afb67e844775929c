"""The bi-encoder trained on synthesised questions (GenQ with the corpus's templates): which share of them.

Trains the KB's MiniBiEncoder (the default config's wide settings) on the mined sources alone and with
the `questions` pairs added at several repeats, with and without hard negatives, and scores each on the
docs' own HELD-OUT synthetic questions (the choice), then on the dev and test splits (reported, not
chosen on). Chunks, tokenizer and lexicon as the graph builds them (tokens chunks of 150, BPE 2,000).

    .venv/bin/python bench/biencoder_questions.py [--repeats 0,1,2,4] [--n 3000] [--families learner]
                                                  [--negatives 0,1] [--seed 0] [--json]
                                                  [--encoder-seeds 0,1,2] [--rrf-k 10,60] [--set members=4]

`--encoder-seeds` trains one encoder (or ensemble) per seed on the same questions: a seed's swing is
the noise any choice on dev must beat. `--rrf-k` scores RRF(encoder, BM25) at each k.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from minirag.answer.reading.retrieval_questions import add_hard_negatives, synthesize_questions  # noqa: E402
from minirag.domains.grammar.select.terms import DEFAULT_TERMS, GrammarTerms  # noqa: E402
from minirag.evaluation.evaluate import build_qrels  # noqa: E402
from minirag.evaluation.metrics import hit_at  # noqa: E402
from minirag.index.biencoder import BiEncoderConfig, BiEncoderEmbedder  # noqa: E402
from minirag.index.biencoder_train import train_biencoder  # noqa: E402
from minirag.index.bm25.index import BM25Index, BM25Params  # noqa: E402
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
DEPTH = 100  # ranks of each run, as the graph's retrieve keeps them


def hit5(runs, qs, qrels) -> float:
    return float(np.mean([hit_at(runs[q["qid"]], qrels[q["qid"]], 5) for q in qs])) if qs else float("nan")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", default="0,1,2,4")
    ap.add_argument("--negatives", default="0")
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--families", default="learner")
    ap.add_argument("--mined", default="title,ict,crops,table_rows")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--encoder-seeds", default="")
    ap.add_argument("--rrf-k", default="60")
    a = ap.parse_args(argv)
    kb = ROOT / "kb"
    docs = curate_markdown(kb / "docs", "**/*.md", {"title": "title", "lang": "lang", "tags": "tags"})
    tok = BPETokenizer.train([d["text"] for d in docs], 2000)
    chunks = [c for d in docs for c in chunk_document(d, "tokens", tok, target_tokens=150, overlap=20)]
    records = [c.to_record() for c in chunks]
    texts, ids = [index_text(c) for c in chunks], [c.id for c in chunks]
    text_of = dict(zip(ids, texts))
    lex_path = ROOT / "results" / "kb" / "lexicon.json"
    lexicon = json.loads(lex_path.read_text()) if lex_path.exists() else {}
    terms = GrammarTerms.load(DEFAULT_TERMS, lexicon.get("lexicon", {}))
    synth = synthesize_questions(docs, records, a.families.split(","), a.n, a.seed, 0.2, terms, lexicon.get("lexicon"))
    bm25 = BM25Index.build(texts, Analyzer(AnalyzerConfig()), BM25Params())
    synth = add_hard_negatives(synth, records, lambda qs, k: [idx for idx, _ in bm25.search_batch(qs, k)])
    real = [q for q in load_questions(kb / "eval" / "questions.jsonl", docs) if q["answerable"]]
    held = [{"qid": q["qid"], "query": q["query"], "answerable": True, "gold": [q["gold"]]}
            for q in synth if q["split"] == "heldout"]
    evalq = {"heldout": held, "dev": [q for q in real if q["split"] == "dev"],
             "test": [q for q in real if q["split"] == "test"],
             "test-conj": [q for q in real if q["split"] == "test" and "conjugation" in q.get("tags", [])]}
    qrels = build_qrels(held + real, chunks)[0]
    allq = held + real
    bm_runs = {q["qid"]: [ids[i] for i in idx]
               for q, (idx, _) in zip(allq, bm25.search_batch([q["query"] for q in allq], DEPTH))}
    print(f"{len(synth)} synthetic ({len(held)} held out); bm25 " +
          " ".join(f"{k} {hit5(bm_runs, v, qrels):.3f}" for k, v in evalq.items()), flush=True)
    mined = mine_pairs(records, a.mined.split(",") if a.mined else [], a.seed)
    train_q = [q for q in synth if q["split"] == "train"]
    over = {k: json.loads(v) for k, v in (s.split("=", 1) for s in a.set)}
    grid = [(neg, rep, es) for neg in (int(x) for x in a.negatives.split(",")) for rep in (int(x) for x in a.repeats.split(","))
            for es in (int(x) for x in (a.encoder_seeds or str(a.seed)).split(",")) if rep or not neg]
    for neg, rep, es in grid:
        qp = [(q["query"], text_of[q["chunk"]], text_of.get(q["negative"]) if neg else None) for q in train_q]
        pairs = [(x, y) for _, x, y in mined] + rep * [(x, y) for x, y, _ in qp]
        negs = [None] * len(mined) + rep * [z for _, _, z in qp] if neg else None
        cfg = BiEncoderConfig.from_dict({**WIDE, "seed": es, **over})
        row = {"repeat": rep, "negatives": neg, "encoder_seed": es, "pairs": len(pairs)}
        row.update(train_and_score(pairs, negs, tok, cfg, (texts, ids), evalq, qrels, bm_runs,
                                   [int(x) for x in a.rrf_k.split(",")]))
        print(json.dumps(row), flush=True)


def train_and_score(pairs, negs, tok, cfg, corpus, evalq, qrels, bm_runs, rrf_ks) -> dict:
    """Train on the pairs; hit@5 of the encoder and of RRF(encoder, BM25) at each k, over each run's top 100."""
    texts, ids = corpus
    t0 = time.perf_counter()
    model, _ = train_biencoder(pairs, tok, cfg, negatives=negs)
    row = {"train_s": round(time.perf_counter() - t0, 1)}
    emb = BiEncoderEmbedder(model, tok)
    allq = [q for qs in evalq.values() for q in qs]
    sims = emb.embed([q["query"] for q in allq]) @ emb.embed(texts).T
    runs = {q["qid"]: [ids[j] for j in top_k(r, DEPTH)] for q, r in zip(allq, sims)}
    row.update({k: round(hit5(runs, v, qrels), 3) for k, v in evalq.items()})
    for k_rrf in rrf_ks:
        fused = {q: [c for c, _ in reciprocal_rank_fusion([[(c, 0) for c in runs[q]], [(c, 0) for c in bm_runs[q]]],
                                                          k_rrf)] for q in runs}
        row.update({f"rrf{k_rrf} {k}": round(hit5(fused, v, qrels), 3) for k, v in evalq.items() if k != "heldout"})
    return row

if __name__ == "__main__":
    main()
