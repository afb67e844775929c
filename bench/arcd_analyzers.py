"""Which BM25 analyzer suits Arabic: an ablation on ARCD, decided on questions that are not the test's.

ARCD (BEIR layout) has 255 passages, 50 judged test questions and no training or dev split, so
choosing the analyzer on its 50 questions would report a figure tuned on the test. The rule,
fixed before any figure: start from Lucene's ArabicAnalyzer recipe (orthographic normalization,
stopwords, a stemmer; here Snowball Arabic) with the seed's k1 1.5 and b 0.75, and leave a step
out, or change k1/b, only where a dev set shows the change significantly better (paired
randomization test, p < 0.05, evaluation/significance.py).

The dev set comes from the passages alone: for every passage a seeded run of 5 to 14 words of
one of its sentences becomes a known-item query whose one relevant passage is the one it came
from, and that sentence is cut out of the passage in the dev index (a query never matches
itself verbatim: what it shares with its passage is the rest of the passage's wording, which is
what stemming and stopwords act on). Its queries share the passages' spelling, so it cannot
show what normalization does for questions typed without hamza or with ى for ي, as ARCD's are;
for normalization it can only show harm. The 50 test questions' figures are printed beside,
never used to choose.

    .venv/bin/python bench/arcd_analyzers.py [--beir ../shared/datasets/arcd] [--seed 0] [--json]

Metrics: nDCG@10 and hit@5 at document level (one passage = one chunk), the evaluate stage's
own functions; the test questions include the one whose judged passage is missing from
corpus.jsonl (it scores 0), as trec_eval and bm25s count it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re

from minirag.datasets.beir import curate_beir, load_beir_questions
from minirag.evaluation.evaluate import mean
from minirag.evaluation.metrics import retrieval_metrics
from minirag.evaluation.significance import compare
from minirag.index.bm25.index import BM25Index, BM25Params
from minirag.text.analyze import Analyzer, AnalyzerConfig
from minirag.text.arabic import normalize_arabic

SENTENCE_RE = re.compile(r"[^.!?؟\n]+[.!?؟]?")
GRID = {"arabic_normalize": (True, False), "stopwords": (("ar",), ()), "stemmer": ("arabic", None)}  # prior first
SCORING = [(1.5, 0.75), (1.2, 0.75), (0.9, 0.4), (0.9, 0.75), (1.5, 0.9), (2.0, 0.75)]


def dev_set(docs: list[dict], seed: int) -> tuple[list[str], list[dict]]:
    """(passage texts with the query sentence cut out, one known-item question per passage)."""
    rng = random.Random(seed)
    texts, questions = [], []
    for d in docs:
        sentences = [m for m in SENTENCE_RE.finditer(d["text"]) if len(m.group().split()) >= 5]
        if not sentences:
            texts.append(d["text"])
            continue
        m = rng.choice(sentences)
        words = m.group().split()
        n = rng.randint(5, min(14, len(words)))
        start = rng.randint(0, len(words) - n)
        texts.append(d["text"][:m.start()] + d["text"][m.end():])
        questions.append({"qid": f"dev-{d['doc_id']}", "query": " ".join(words[start:start + n]),
                          "gold": {d["doc_id"]: 1}})
    return texts, questions


class TaaFirst(Analyzer):
    """The prior's analyzer with ة -> ه mapped before the stemmer, as Lucene's normalizer does
    (minirag maps it on the stems: text/arabic.py); the row that shows why."""

    def words(self, text: str) -> list[str]:
        return super().words(normalize_arabic(text))


def score(texts: list[str], ids: list[str], questions: list[dict], analyzer: AnalyzerConfig,
          k1: float = 1.5, b: float = 0.75, kind: type = Analyzer) -> dict:
    index = BM25Index.build(texts, kind(analyzer), BM25Params(variant="lucene", k1=k1, b=b))
    found = index.search_batch([q["query"] for q in questions], 100)
    per_q = [retrieval_metrics([ids[i] for i in items], q["gold"]) for q, (items, _) in zip(questions, found)]
    return {"ndcg@10": mean(m["ndcg@10"] for m in per_q), "hit@5": mean(m["hit@5"] for m in per_q),
            "per_question": [m["ndcg@10"] for m in per_q]}


def against(rows: list[dict], split: str) -> None:
    """Each row's nDCG@10 against the first row's (the prior), paired over the split's questions."""
    for r in rows:
        r[split]["vs_prior"] = compare(r[split]["per_question"], rows[0][split]["per_question"]).to_dict()


def label(cfg: AnalyzerConfig) -> str:
    return (f"normalize {'yes' if cfg.arabic_normalize else 'no '}  stopwords {'ar' if cfg.stopwords else '- '}  "
            f"stemmer {cfg.stemmer or '-'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--beir", default="../shared/datasets/arcd")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    docs = curate_beir(a.beir)
    ids = [d["doc_id"] for d in docs]
    test = [{"qid": q["qid"], "query": q["query"], "gold": {g["doc_id"]: g["grade"] for g in q["gold"]}}
            for q in load_beir_questions(a.beir, "test", docs)]
    dev_texts, dev = dev_set(docs, a.seed)
    full = [d["text"] for d in docs]
    rows = []
    for values in itertools.product(*GRID.values()):
        cfg = AnalyzerConfig(**dict(zip(GRID, values)))
        rows.append({"analyzer": cfg.to_dict(), "k1": 1.5, "b": 0.75, "dev": score(dev_texts, ids, dev, cfg),
                     "test": score(full, ids, test, cfg), "label": label(cfg)})
    prior = AnalyzerConfig.from_dict(rows[0]["analyzer"])
    rows.append({"analyzer": rows[0]["analyzer"], "k1": 1.5, "b": 0.75, "label": f"{rows[0]['label']} (ة first)",
                 "dev": score(dev_texts, ids, dev, prior, kind=TaaFirst),
                 "test": score(full, ids, test, prior, kind=TaaFirst)})
    scoring = [{"analyzer": rows[0]["analyzer"], "k1": k1, "b": b, "dev": score(dev_texts, ids, dev, prior, k1, b),
                "test": score(full, ids, test, prior, k1, b), "label": f"{rows[0]['label']} k1 {k1:g} b {b:g}"}
               for k1, b in SCORING for prior in [AnalyzerConfig.from_dict(rows[0]["analyzer"])]]
    for table in (rows, scoring):
        against(table, "dev")
        against(table, "test")
    if a.json:
        for r in rows + scoring:
            for split in ("dev", "test"):
                del r[split]["per_question"]
        print(json.dumps({"dev_questions": len(dev), "test_questions": len(test), "seed": a.seed,
                          "analyzers": rows, "scoring": scoring}, indent=2, ensure_ascii=False))
        return
    print(f"ARCD: {len(docs)} passages; dev: {len(dev)} known-item sentences (seed {a.seed}); test: {len(test)} "
          "questions. BM25 lucene; nDCG@10 and hit@5, document level; Δ: nDCG@10 against the first row (the "
          "prior), paired; a change is taken only where dev shows it significantly better.")
    for title, table in (("analyzer (k1 1.5, b 0.75)", rows), ("k1 and b, the prior's analyzer", scoring)):
        print(f"\n{title:<50}{'dev nDCG@10':>12}{'hit@5':>7}  {'Δ dev (p)':<16}{'test nDCG@10':>13}{'hit@5':>7}  Δ test (p)")
        for r in table:
            d, t = r["dev"], r["test"]
            print(f"{r['label']:<50}{d['ndcg@10']:>12.3f}{d['hit@5']:>7.3f}  {delta(d):<16}"
                  f"{t['ndcg@10']:>13.3f}{t['hit@5']:>7.3f}  {delta(t)}")


def delta(split: dict) -> str:
    c = split["vs_prior"]
    return f"{c['delta'] * 100:+.1f} (p {c['p']:.2f})"


if __name__ == "__main__":
    main()
