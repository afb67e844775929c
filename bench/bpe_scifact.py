"""Benchmark: train the BPE tokenizer on SciFact's abstracts, encode and chunk the corpus.

Figures (medians over --repeats runs, one core):
- train: `BPETokenizer.train` at --vocab-size (issue 4 target: under 60 s for 8,000),
  and its two parts: counting pre-tokens, learning merges. Peer: minbpe's full recount
  over the same unique pre-tokens, timed per merge on its first --naive-merges merges
  (which must equal the incremental trainer's).
- encode: the whole corpus with a freshly loaded tokenizer (cold cache; target under
  20 s), again with the cache warm, and with the per-pre-token cache disabled (peer).
- chunk: `tokens` (150/20) and `sections` (300) strategies over the corpus; `chars`
  (2000/200) as the peer.
The tokenizer file is written twice from two trainings; its sha256 must match.

    .venv/bin/python bench/bpe_scifact.py [--vocab-size 8000] [--repeats 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from minirag.artifacts.io import read_jsonl, sha256_file  # noqa: E402
from minirag.text import bpe  # noqa: E402
from minirag.text.bpe import BPETokenizer, to_bytes  # noqa: E402
from minirag.text.chunker import chunk_document  # noqa: E402


def timed(fn, repeats: int):
    """(median seconds, last result) over `repeats` calls."""
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def naive_merges(counts: Counter, n_merges: int) -> list[tuple[int, int]]:
    """The peer: count every pair of every unique pre-token again after each merge."""
    seqs = [list(to_bytes(w)) for w in counts]
    freqs = list(counts.values())
    merges = []
    for new_id in range(256, 256 + n_merges):
        pairs: Counter = Counter()
        for ids, f in zip(seqs, freqs):
            for pair in zip(ids, ids[1:]):
                pairs[pair] += f
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        seqs = [bpe._merge(ids, best, new_id) for ids in seqs]
    return merges


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=REPO.parent / "shared/datasets/scifact/corpus.jsonl")
    ap.add_argument("--vocab-size", type=int, default=8000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--naive-merges", type=int, default=20)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()

    records = read_jsonl(args.corpus)
    texts = [r["text"] for r in records]
    docs = [{"doc_id": r["_id"], "title": r.get("title", ""), "text": r["text"]} for r in records]
    n_bytes = sum(len(to_bytes(t)) for t in texts)
    n_merges = args.vocab_size - 256

    count_s, counts = timed(lambda: Counter(p for t in texts for p in BPETokenizer().pretokenize(t)),
                            args.repeats)
    merges_s, _ = timed(lambda: bpe.learn_merges(counts, n_merges), args.repeats)
    train_s, tok = timed(lambda: BPETokenizer.train(texts, args.vocab_size), args.repeats)
    with tempfile.TemporaryDirectory() as tmp:
        tok.save(Path(tmp) / "a.json")
        BPETokenizer.train(texts, args.vocab_size).save(Path(tmp) / "b.json")
        sha_a, sha_b = sha256_file(Path(tmp) / "a.json"), sha256_file(Path(tmp) / "b.json")
        path = Path(tmp) / "a.json"

        def encode_cold():
            return BPETokenizer.load(path).encode_batch(texts)

        cold_s, ids = timed(encode_cold, args.repeats)
    warm_s, _ = timed(lambda: tok.encode_batch(texts), args.repeats)
    limit, bpe.CACHE_LIMIT = bpe.CACHE_LIMIT, 0  # every pre-token is merged from its bytes
    nocache_s, _ = timed(lambda: BPETokenizer(tok.merges).encode_batch(texts), 1)
    bpe.CACHE_LIMIT = limit
    n_tokens = sum(map(len, ids))
    assert all(tok.decode(i) == t for i, t in zip(ids, texts)), "decode(encode(text)) != text"

    k = args.naive_merges
    naive_s, naive = timed(lambda: naive_merges(counts, k), 1)
    assert naive == tok.merges[:k], "the incremental trainer disagrees with the full recount"

    chunking = {}
    for name, params in [("tokens", {"target_tokens": 150, "overlap": 20}),
                         ("sections", {"max_tokens": 300}), ("chars", {"size": 2000, "overlap": 200})]:
        s, chunks = timed(lambda: [c for d in docs for c in chunk_document(d, name, tok, **params)],
                          args.repeats)
        chunking[name] = {"seconds": round(s, 3), "chunks": len(chunks)}

    fig = {
        "corpus": str(args.corpus), "docs": len(texts), "mbytes": round(n_bytes / 1e6, 2),
        "pretokens": sum(counts.values()), "unique_pretokens": len(counts),
        "vocab_size": tok.vocab_size, "train_s": round(train_s, 2),
        "train_count_pretokens_s": round(count_s, 2), "train_learn_merges_s": round(merges_s, 2),
        "incremental_ms_per_merge": round(1000 * merges_s / n_merges, 3),
        "full_recount_ms_per_merge": round(1000 * naive_s / k, 1),
        "full_recount_over_incremental": round((naive_s / k) / (merges_s / n_merges)),
        "encode_cold_s": round(cold_s, 2), "encode_warm_s": round(warm_s, 2),
        "encode_no_cache_s": round(nocache_s, 2), "no_cache_over_cold": round(nocache_s / cold_s, 1),
        "tokens": n_tokens, "bytes_per_token": round(n_bytes / n_tokens, 2),
        "tokenizer_file_identical": sha_a == sha_b, "chunking": chunking,
    }
    if args.json:
        print(json.dumps(fig, indent=2))
        return
    rows = [(key, val) for key, val in fig.items() if key != "chunking"]
    rows += [(f"chunk {name} ({c['chunks']} chunks) s", c["seconds"]) for name, c in chunking.items()]
    width = max(len(key) for key, _ in rows)
    for key, val in rows:
        print(f"{key:<{width}}  {val}")


if __name__ == "__main__":
    main()
