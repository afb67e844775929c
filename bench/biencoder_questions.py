"""The bi-encoder trained on synthesised questions (GenQ with the corpus's templates): which share of them.

Trains the KB's MiniBiEncoder (the default config's wide settings) on the mined sources alone and with
the `questions` pairs added at several repeats, with and without hard negatives, and scores each on the
docs' own HELD-OUT synthetic questions (the choice), then on the dev and test splits (reported, not
chosen on). Chunks, tokenizer and lexicon as the graph builds them (tokens chunks of 150, BPE 2,000).

    .venv/bin/python bench/biencoder_questions.py [--repeats 0,1,2,4] [--n 3000] [--families learner]
                                                  [--negatives 0,1] [--seed 0] [--json]
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
from minirag.answer.select.terms import DEFAULT_TERMS, GrammarTerms  # noqa: E402
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
    bm_runs = {q["qid"]: [ids[i] for i in idx] for q, (idx, _) in zip(allq, bm25.search_batch([q["query"] for q in allq], 20))}
    print(f"{len(synth)} synthetic ({len(held)} held out); bm25 " +
          " ".join(f"{k} {hit5(bm_runs, v, qrels):.3f}" for k, v in evalq.items()), flush=True)
    mined = mine_pairs(records, a.mined.split(",") if a.mined else [], a.seed)
    train_q = [q for q in synth if q["split"] == "train"]
    over = {k: json.loads(v) for k, v in (s.split("=", 1) for s in a.set)}
    cfg = BiEncoderConfig.from_dict({**WIDE, "seed": a.seed, **over})
    rows = []
    for neg in (int(x) for x in a.negatives.split(",")):
        for rep in (int(x) for x in a.repeats.split(",")):
            if neg and not rep:
                continue
            qp = [(q["query"], text_of[q["chunk"]], text_of.get(q["negative"]) if neg else None) for q in train_q]
            pairs = [(x, y) for _, x, y in mined] + rep * [(x, y) for x, y, _ in qp]
            negs = [None] * len(mined) + rep * [z for _, _, z in qp] if neg else None
            t0 = time.perf_counter()
            model, _ = train_biencoder(pairs, tok, cfg, negatives=negs) if neg else train_biencoder(pairs, tok, cfg)
            train_s = time.perf_counter() - t0
            emb = BiEncoderEmbedder(model, tok)
            cv = emb.embed(texts)
            qv = emb.embed([q["query"] for q in allq])
            sims = qv @ cv.T
            runs = {q["qid"]: [ids[j] for j in top_k(row, 20)] for q, row in zip(allq, sims)}
            fused = {k: [c for c, _ in reciprocal_rank_fusion([[(c, 0) for c in runs[k]], [(c, 0) for c in bm_runs[k]]], 60)]
                     for k in runs}
            row = {"repeat": rep, "negatives": neg, "pairs": len(pairs), "train_s": round(train_s, 1)}
            row.update({k: round(hit5(runs, v, qrels), 3) for k, v in evalq.items()})
            row.update({f"rrf {k}": round(hit5(fused, v, qrels), 3) for k, v in evalq.items()})
            rows.append(row)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
