"""The bi-encoder's cosine as a reranker feature: how far to trust it, and which form of it to keep.

    python bench/rerank_dense.py [--retriever lexical-forms-rerank-dense] [--test] [--dev] [--folds 5]

On a built corpus (the retriever's base run, its embedder's vectors and encoder), two tables:

1. trust: per question set, how well the cosine alone picks the relevant candidates among the top
   100 of the in-memory BM25 train_reranker uses (AUC of relevant over the rest, the closest candidate
   relevant, one in the 5 closest): the reranker's synthetic questions (what it learns the weight on),
   the bi-encoder's own training questions and its held-out ones (pairs/<embedder>.jsonl), dev
   and test over BM25 and over the base run. A weight learned where the cosine is better than on
   real questions would be over-trusted.
2. variants: the reranker trained as train_reranker trains it (synthetic questions; with `--dev` the
   dev split too), with the count features alone and with each set of dense features (the cosine,
   its gap to the best candidate's, 1/sqrt of its rank among the candidates, its z-score among them),
   scored on dev (hit@5, recall@5, conjugation recall@5, MRR@10), `--test` on test too; with each
   dense feature's weight times its standard deviation beside `line`'s.
3. `--folds K`: the shipped recipe (synthetic questions and dev) with dev scored out of sample, each
   fifth of dev (seeded folds) by a reranker trained on the synthetic questions and the other folds,
   with the count features alone and with the cosine.

What it leaves out: the graph (the shipped run's figures come from the report and bench/split_figures.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minirag.artifacts.integrity import load_records  # noqa: E402
from minirag.config.corpus import corpus_config  # noqa: E402
from minirag.config.load import load_config  # noqa: E402
from minirag.config.typed import Corpus  # noqa: E402
from minirag.evaluation.evaluate import build_qrels  # noqa: E402
from minirag.evaluation.trec import load_run  # noqa: E402
from minirag.index.bm25.index import BM25Settings  # noqa: E402
from minirag.query.built_corpus import open_corpus  # noqa: E402
from minirag.rank.rerank import FEATURES, fit_logistic, rerank  # noqa: E402
from minirag.rank.retrievers import BM25Retriever  # noqa: E402
from minirag.rank.synth import synthesize  # noqa: E402

EXTRA = ("dense", "gap", "rank", "z")
LINE = FEATURES.index("line")
VARIANTS = {"counts": (), "dense": ("dense",), "dense+gap": ("dense", "gap"), "gap": ("gap",), "rank": ("rank",),
            "dense+rank": ("dense", "rank"), "z": ("z",)}


def extra(cos: np.ndarray) -> np.ndarray:
    """(N,) cosines -> (N, 4): the cosine, the best minus it, 1/sqrt(its rank), its z-score among the N."""
    rank = np.empty(len(cos))
    rank[np.argsort(-cos, kind="stable")] = np.arange(1, len(cos) + 1)
    return np.column_stack([cos, cos.max() - cos, 1 / np.sqrt(rank), (cos - cos.mean()) / (cos.std() or 1.0)])


class Bench:
    def __init__(self, results: Path, corpus: str, retriever: str):
        cc = corpus_config(load_config("workflow/config.yaml"), corpus)
        self.kind = Corpus.of(cc).retrievers[retriever]
        if not getattr(self.kind.s, "dense", ""):
            raise SystemExit(f"{retriever!r} is no reranker with `dense:`")
        self.root = results / corpus
        _, self.chunks, sources = open_corpus(results, corpus, cc)
        self.by_id = {c.id: c for c in self.chunks}
        s = self.kind.s
        self.dense = self.kind.dense_features(sources)
        self.features = sources.features(s.analyzer, s.expand)
        self.first = BM25Retriever.from_chunks(self.chunks, BM25Settings(title_weight=1.0, analyzer=s.analyzer))
        self.first.expander = self.features.expander
        self.base = {k: v[: s.candidates] for k, v in load_run(self.root / "runs" / f"{s.of}.trec").items()}
        self.questions = [q for q in load_records(self.root / "questions.jsonl", "questions") if q["answerable"]]

    def bm25(self, qs: list[dict]) -> dict:
        return dict(zip([q["qid"] for q in qs], self.first.search_batch([q["query"] for q in qs], self.kind.s.candidates)))

    def examples(self, qs: list[dict], ranked: dict, keep_all: bool = False) -> list[tuple]:
        """(question, ranking, (N, F + 4) features, (N,) labels, relevant ids) per question; without
        `keep_all`, only those with relevant and irrelevant candidates (what training sees)."""
        qrels = build_qrels(qs, self.chunks)[0]
        out = []
        for q, v in zip(qs, self.dense.query_vectors([q["query"] for q in qs])):
            r = ranked.get(q["qid"], [])
            rel = {c for c, g in qrels[q["qid"]].items() if g > 0}
            lab = np.array([c in rel for c, _ in r], dtype=float)
            if not keep_all and (not lab.any() or lab.all()):
                continue
            x = self.features.features(q["query"], r, self.by_id)  # (N, F)
            cos = self.dense.features(q["query"], r, v)[:, 0]  # (N,)
            out.append((q, r, np.hstack([x, extra(cos)]) if len(r) else np.zeros((0, len(FEATURES) + 4)), lab, rel))
        return out

    def trust(self, name: str, examples: list[tuple]) -> None:
        top1, top5, auc = [], [], []
        for _, _, x, lab, _ in examples:
            cos, pos = x[:, len(FEATURES)], lab > 0
            order = np.argsort(-cos, kind="stable")
            top1.append(pos[order[0]])
            top5.append(pos[order[:5]].any())
            gt = cos[pos][:, None] - cos[~pos][None, :]
            auc.append((gt > 0).mean() + 0.5 * (gt == 0).mean())
        print(f"{name:34} {len(auc):5d} {np.mean(auc):6.3f} {np.mean(top1):8.3f} {np.mean(top5):8.3f}")


def score(examples: list[tuple], cols: list[int], w: np.ndarray, b: float, n: int) -> tuple[float, ...]:
    hit, rec, conj, rr = [], [], [], []
    for q, r, x, _, rel in examples:
        out = [c for c, _ in rerank(r, x[:, cols], w, b, n)[:10]] if len(r) else []
        hit.append(any(c in rel for c in out[:5]))
        rec.append(len(rel & set(out[:5])) / max(len(rel), 1))
        if "conjugation" in q["tags"]:
            conj.append(rec[-1])
        rr.append(next((1 / (i + 1) for i, c in enumerate(out) if c in rel), 0.0))
    return float(np.mean(hit)), float(np.mean(rec)), float(np.mean(conj)) if conj else float("nan"), float(np.mean(rr))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--retriever", default="lexical-forms-rerank-dense")
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--results", type=Path, default=Path("results"))
    ap.add_argument("--dev", action="store_true", help="train on the dev split too (as shipped): dev in-sample")
    ap.add_argument("--test", action="store_true", help="score test too (reported, never chosen on)")
    ap.add_argument("--folds", type=int, default=0, help="also the shipped recipe, dev scored out of fold")
    a = ap.parse_args()
    bench = Bench(a.results, a.corpus, a.retriever)
    s = bench.kind.s
    synthetic = [{**q, "answerable": True} for q in synthesize(load_records(bench.root / "docs.jsonl", "documents"),
                                                               s.synthetic, s.seed)]
    syn = bench.examples(synthetic, bench.bm25(synthetic))
    split = {sp: [q for q in bench.questions if q.get("split") == sp] for sp in ("dev", "test")}
    print(f"{'trust: questions (candidates)':34} {'n':>5} {'AUC':>6} {'closest':>8} {'5 closest':>8}")
    bench.trust("reranker synthetic (BM25)", syn)
    pairs = [json.loads(line) for line in open(bench.root / "pairs" / f"{s.dense}.jsonl", encoding="utf-8")]
    rng = np.random.default_rng(0)
    for part in ("train", "heldout"):
        ps = [p for p in pairs if p["split"] == part]
        ps = [ps[i] for i in rng.choice(len(ps), min(1000, len(ps)), replace=False)]
        qs = [{"qid": p["qid"], "query": p["query"], "answerable": True, "gold": [p["gold"]]} for p in ps]
        bench.trust(f"{s.dense} pairs {part} (BM25)", bench.examples(qs, bench.bm25(qs)))
    for sp, qs in split.items():
        bench.trust(f"{sp} (BM25)", bench.examples(qs, bench.bm25(qs)))
        bench.trust(f"{sp} ({s.of})", bench.examples(qs, bench.base))
    scored = {sp: bench.examples(qs, bench.base, keep_all=True) for sp, qs in split.items()}
    train = syn + ([e for e in scored["dev"] if e[3].any() and not e[3].all()] if a.dev else [])
    print(f"\nvariants, trained on {len(syn)} synthetic" + (" + dev" if a.dev else "") + " questions' candidates:"
          "  hit@5 / recall@5 / conjugation recall@5 / MRR@10")
    for name, dense in VARIANTS.items():
        cols = list(range(len(FEATURES))) + [len(FEATURES) + EXTRA.index(e) for e in dense]
        x = np.vstack([e[2][:, cols] for e in train])  # (examples, F')
        w, b, _ = fit_logistic(x, np.concatenate([e[3] for e in train]), s.l2)
        sd = x.std(axis=0)
        line = f"{name:11} dev " + " / ".join(f"{v:.3f}" for v in score(scored["dev"], cols, w, b, s.candidates))
        if a.test:
            line += "  test " + " / ".join(f"{v:.3f}" for v in score(scored["test"], cols, w, b, s.candidates))
        weights = [f"{e} {w[len(FEATURES) + i] * sd[len(FEATURES) + i]:+.2f}" for i, e in enumerate(dense)]
        print(line + "  (w x sd: " + ", ".join(weights + [f"line {w[LINE] * sd[LINE]:+.2f}"]) + ")")
    if a.folds:
        cross_fitted(scored["dev"], syn, a.folds, s)
    return 0


def cross_fitted(dev: list[tuple], syn: list[tuple], k: int, s) -> None:
    """Dev scored by rerankers trained on the synthetic questions and the other k - 1 folds of dev."""
    fold = np.random.default_rng(0).permutation(len(dev)) % k
    print(f"\ntrained on the synthetic questions and dev, dev scored out of fold ({k} folds):"
          "  hit@5 / recall@5 / conjugation recall@5 / MRR@10")
    for name in ("counts", "dense"):
        cols = list(range(len(FEATURES))) + [len(FEATURES) + EXTRA.index(e) for e in VARIANTS[name]]
        per_question = []
        for f in range(k):
            train = syn + [e for i, e in enumerate(dev) if fold[i] != f and e[3].any() and not e[3].all()]
            w, b, _ = fit_logistic(np.vstack([e[2][:, cols] for e in train]), np.concatenate([e[3] for e in train]), s.l2)
            per_question += [(e, score([e], cols, w, b, s.candidates)) for i, e in enumerate(dev) if fold[i] == f]
        conj = [r[2] for e, r in per_question if "conjugation" in e[0]["tags"]]
        means = [np.mean([r[m] for _, r in per_question]) for m in (0, 1)] + [np.mean(conj)] + \
            [np.mean([r[3] for _, r in per_question])]
        print(f"{name:11} dev " + " / ".join(f"{v:.3f}" for v in means))


if __name__ == "__main__":
    raise SystemExit(main())
