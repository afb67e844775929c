"""What the reranker re-orders and learns from: its input run, its candidates, its training questions.

    python bench/rerank_input.py [--retriever lexical-forms-rerank-dense] [--inputs ...] [--candidates 30 50 100]
                                 [--learner 2000] [--families learner:translation ...] [--live] [--folds 5] [--test]

On a built corpus, the reranker of `--retriever` (its analyzer, expansion and embedder) trained as
train_reranker trains it with `dev: false` (so dev is scored out of sample), one row per variant:

- input: the run whose top N it re-orders: bm25-grammar-forms (the forms channel alone), lexical-forms
  (today), and lexical-forms fused with the bi-encoder's run (`rrf60`, `rrf10`: RRF k 60 / 10; `linear82`: linear 0.8 / 0.2), fused here
  from the built run files as the rrf and linear kinds fuse them;
- N: candidates 30 / 50 / 100 (the synthetic questions' candidates from the in-memory BM25 at the same N);
- train: the synthetic questions from tables and headings (`synth`, today), + the bi-encoder's held-out
  learner questions (pairs/<embedder>.jsonl, split "heldout": the encoder never trained on them, so its
  cosine on them is as honest as on real questions), + a sample of its *train* split (`+train`: only
  without the cosine; with it the weight would be learned where the cosine has seen the answer);
- dense: with and without the embedder's query-chunk cosine.

`--live`: the training questions' candidates from the input retriever itself (a configured one, opened
live as a server opens it) instead of train_reranker's in-memory BM25. `--folds K`: the shipped recipe
(`dev: true`) with dev scored out of fold instead (each of K seeded folds by a reranker trained on the
other folds too). Scored on dev (hit@5, recall@5, conjugation recall@5, MRR@10; `--test` on test too,
reported, never chosen on). What it leaves out: the graph (a shipped run's figures come from the
report) and the in-sample `dev: true` recipe.
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
from minirag.rank.fusion import linear_fusion, reciprocal_rank_fusion  # noqa: E402
from minirag.rank.rerank import FEATURES, fit_logistic  # noqa: E402
from minirag.rank.retrievers import BM25Retriever  # noqa: E402
from minirag.rank.synth import synthesize  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rerank_dense import score  # noqa: E402


class Bench:
    def __init__(self, results: Path, corpus: str, retriever: str, config: str):
        cc = corpus_config(load_config(config), corpus)
        self.kind = Corpus.of(cc).retrievers[retriever]
        s = self.kind.s
        self.root = results / corpus
        _, self.chunks, sources = open_corpus(results, corpus, cc)
        self.cc, self.sources = cc, sources
        self.by_id = {c.id: c for c in self.chunks}
        self.dense = self.kind.dense_features(sources)
        self.features = sources.features(s.analyzer, s.expand)
        self.first = BM25Retriever.from_chunks(self.chunks, BM25Settings(title_weight=1.0, analyzer=s.analyzer))
        self.first.expander = self.features.expander
        self.questions = [q for q in load_records(self.root / "questions.jsonl", "questions") if q["answerable"]]

    def run(self, name: str) -> dict:
        return load_run(self.root / "runs" / f"{name}.trec")

    def bm25(self, qs: list[dict], n: int) -> dict:
        return dict(zip([q["qid"] for q in qs], self.first.search_batch([q["query"] for q in qs], n)))

    def live(self, name: str):
        """A function (questions, n) -> {qid: ranking} by the configured retriever `name`, live."""
        from minirag.query.sources import open_retriever
        r = open_retriever(self.sources, Corpus.of(self.cc), name)
        return lambda qs, n: {q["qid"]: r.search(q["query"], k=n) for q in qs}

    def examples(self, qs: list[dict], ranked: dict, n: int, keep_all: bool = False) -> list[tuple]:
        """(question, ranking, (N, F + 1) features with the cosine last, (N,) labels, relevant ids) per
        question; without `keep_all`, only those with relevant and irrelevant candidates."""
        qrels = build_qrels(qs, self.chunks)[0]
        out = []
        for q, v in zip(qs, self.dense.query_vectors([q["query"] for q in qs])):
            r = ranked.get(q["qid"], [])[:n]
            rel = {c for c, g in qrels[q["qid"]].items() if g > 0}
            lab = np.array([c in rel for c, _ in r], dtype=float)
            if not keep_all and (not lab.any() or lab.all()):
                continue
            x = self.features.features(q["query"], r, self.by_id)  # (N, F)
            cos = self.dense.features(q["query"], r, v)  # (N, 1)
            out.append((q, r, np.hstack([x, cos]) if len(r) else np.zeros((0, len(FEATURES) + 1)), lab, rel))
        return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--retriever", default="lexical-forms-rerank-dense")
    ap.add_argument("--config", default="workflow/config.yaml")
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--results", type=Path, default=Path("results"))
    ap.add_argument("--candidates", type=int, nargs="+", default=[30, 50, 100])
    ap.add_argument("--inputs", nargs="+", default=["bm25-grammar-forms", "lexical-forms", "rrf60", "linear82"])
    ap.add_argument("--learner", type=int, default=2000, help="held-out learner questions at most (seeded sample)")
    ap.add_argument("--families", nargs="*", default=[], help="only these learner families (learner:translation ...)")
    ap.add_argument("--folds", type=int, default=0,
                    help="instead: trained on dev too (as shipped), dev scored out of fold (K seeded folds)")
    ap.add_argument("--live", action="store_true",
                    help="the training questions' candidates from the input retriever itself (live), not the BM25")
    ap.add_argument("--test", action="store_true", help="score test too (reported, never chosen on)")
    a = ap.parse_args()
    b = Bench(a.results, a.corpus, a.retriever, a.config)
    s = b.kind.s
    synthetic = [{**q, "answerable": True} for q in synthesize(load_records(b.root / "docs.jsonl", "documents"),
                                                               s.synthetic, s.seed)]
    pairs = [json.loads(line) for line in open(b.root / "pairs" / f"{s.dense}.jsonl", encoding="utf-8")]
    rng = np.random.default_rng(0)
    learner = {}
    for part in ("heldout", "train"):
        ps = [p for p in pairs if p["split"] == part and (not a.families or p["family"] in a.families)]
        ps = [ps[i] for i in sorted(rng.choice(len(ps), min(a.learner, len(ps)), replace=False))]
        learner[part] = [{"qid": p["qid"], "query": p["query"], "answerable": True, "gold": [p["gold"]]} for p in ps]
    lf, bi = b.run("lexical-forms"), b.run(s.dense)
    inputs = {"bm25-grammar-forms": b.run("bm25-grammar-forms"), "lexical-forms": lf,
              "rrf60": {q: reciprocal_rank_fusion([lf[q], bi.get(q, [])], 60, 100) for q in lf},
              "rrf10": {q: reciprocal_rank_fusion([lf[q], bi.get(q, [])], 10, 100) for q in lf},
              "linear82": {q: linear_fusion([lf[q], bi.get(q, [])], [0.8, 0.2], top_k=100) for q in lf}}
    split = {sp: [q for q in b.questions if q.get("split") == sp] for sp in ("dev", "test")}
    trainings = {"synth": ["synth"], "synth+heldout": ["synth", "heldout"], "synth+train": ["synth", "train"]}
    print("dev (test): hit@5 / recall@5 / conjugation recall@5 / MRR@10; reranker trained "
          + (f"with dev, scored out of fold ({a.folds} folds)" if a.folds else "without dev")
          + ("; training candidates from the input run live" if a.live else ""))
    print(f"{'input':19} {'N':>4} {'training':14} {'dense':6} {'dev':>27}" + (f" {'test':>27}" if a.test else ""))
    for inp in a.inputs:
        for n in a.candidates:
            scored = {sp: b.examples(qs, inputs[inp], n, keep_all=True) for sp, qs in split.items()
                      if sp == "dev" or a.test}
            baseline = {sp: score([(e[0], e[1][:n], e[2], e[3], e[4]) for e in ex], [0], np.zeros(1), 0.0, n)
                        for sp, ex in scored.items()}  # the input's own order: ties keep it
            print(f"{inp:19} {n:4d} {'(input run)':14} {'':6} " + " ".join(
                " / ".join(f"{v:.3f}" for v in baseline[sp]) for sp in scored))
            first = b.live(inp) if a.live else b.bm25
            train_sets = {"synth": b.examples(synthetic, first(synthetic, n), n),
                          **{k: b.examples(v, first(v, n), n) for k, v in learner.items()}}
            for tname, parts in trainings.items():
                train = [e for p in parts for e in train_sets[p]]
                for dense in (False, True):
                    if dense and "train" in parts:
                        continue
                    cols = list(range(len(FEATURES) + dense))
                    if a.folds:
                        figs = [out_of_fold(scored["dev"], train, cols, a.folds, n, s.l2)]
                    else:
                        w, b0, _ = fit_logistic(np.vstack([e[2][:, cols] for e in train]),
                                                np.concatenate([e[3] for e in train]), s.l2)
                        figs = [score(ex, cols, w, b0, n) for ex in scored.values()]
                    print(f"{inp:19} {n:4d} {tname:14} {'cos' if dense else '-':6} "
                          + " ".join(" / ".join(f"{v:.3f}" for v in f) for f in figs), flush=True)
    return 0


def out_of_fold(dev: list[tuple], train: list[tuple], cols: list[int], k: int, n: int, l2: float) -> tuple:
    """Dev's hit@5 / recall@5 / conjugation recall@5 / MRR@10, each fold of it (seeded) scored by a
    reranker trained on `train` and the other folds (the shipped recipe, `dev: true`, out of sample)."""
    fold = np.random.default_rng(0).permutation(len(dev)) % k
    per = []
    for f in range(k):
        t = train + [e for i, e in enumerate(dev) if fold[i] != f and e[3].any() and not e[3].all()]
        w, b, _ = fit_logistic(np.vstack([e[2][:, cols] for e in t]), np.concatenate([e[3] for e in t]), l2)
        per += [(e, score([e], cols, w, b, n)) for i, e in enumerate(dev) if fold[i] == f]
    conj = [r[2] for e, r in per if "conjugation" in e[0]["tags"]]
    return tuple(float(np.mean([r[m] for _, r in per])) for m in (0, 1)) + (float(np.mean(conj)),) \
        + (float(np.mean([r[3] for _, r in per])),)


if __name__ == "__main__":
    raise SystemExit(main())
