"""train_reranker: chunks + synthesized questions (+ dev questions over the base run) -> rerankers/<name>.npz + .json."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..artifacts.integrity import load_records
from ..artifacts.io import sha256_text
from ..datasets.beir import beir_train_queries
from ..evaluation.evaluate import build_qrels
from ..evaluation.trec import load_run
from ..index.bm25.index import BM25Settings
from ..pipeline.jobs import corpus_files, named
from ..pipeline.stage import Out, Stage
from ..query.sources import Sources
from ..rank.kinds import RetrieverKind
from ..rank.kinds.base import kinds_code
from ..rank.rerank import FeatureMaker, fit_logistic, save_model
from ..rank.rerank_dense import DenseFeatures, feature_names
from ..rank.retrievers import BM25Retriever
from ..rank.synth import synthesize
from ..text.chunks import load_chunks
from .common import log, run_stage


def labelled(features: FeatureMaker, questions: list[dict], rankings: dict[str, list], chunks: dict, qrels: dict,
             dense: DenseFeatures | None = None):
    """(X, y) over every question's candidates (with `dense`, their dense features after the count ones);
    questions with no relevant candidate teach nothing."""
    xs, ys, kept = [], [], []
    for q in questions:
        ranking = rankings.get(q["qid"], [])
        labels = np.array([qrels[q["qid"]].get(cid, 0) > 0 for cid, _ in ranking], dtype=np.float64)
        if not labels.any() or labels.all():
            continue
        xs.append(features.features(q["query"], ranking, chunks))
        ys.append(labels)
        kept.append(q)
    if dense is not None and kept:  # the queries embedded in one call
        qv = dense.query_vectors([q["query"] for q in kept])  # (Q, d)
        xs = [np.hstack([x, dense.features(q["query"], rankings[q["qid"]], v)]) for x, q, v in zip(xs, kept, qv)]
    if not xs:
        return np.zeros((0, len(feature_names(dense is not None)))), np.zeros(0)
    return np.vstack(xs), np.concatenate(ys)


def train_reranker(settings: dict, name: str, docs: Path, chunks: Path, questions: Path, run: Path,
                   out: Path, lexicon: Path | None = None, beir: Path | None = None, train_split: str = "",
                   eval_split: str = "", files: dict[str, Path] | None = None) -> list[Path]:
    """Synthesize questions from the corpus's tables and headings (and take a BEIR training split's
    judged queries), take each one's candidates from an in-memory BM25 of the chunks, add the dev
    questions' candidates from the base run (never a test question's), and fit the weights;
    `files`: the vectors and encoder of its dense features, by file key."""
    kind = RetrieverKind.from_spec(settings, f"retrievers.{name}")
    s = kind.s
    items = load_chunks(chunks, docs)
    by_id = {c.id: c for c in items}
    sources = Sources(items, {**(files or {}), **({"lexicon": lexicon} if lexicon else {})}, mmap=True)
    features = sources.features(s.analyzer, s.expand)
    dense = kind.dense_features(sources) if s.dense else None
    synthetic = synthesize(load_records(docs, "documents"), s.synthetic, s.seed)
    first = BM25Retriever.from_chunks(items, BM25Settings(title_weight=1.0, analyzer=s.analyzer))
    first.expander = features.expander
    qrels = build_qrels([{**q, "answerable": True} for q in synthetic], items)[0]
    judged = beir_train_queries(beir, train_split, eval_split) if s.train_qrels else []
    # a training split's query: every chunk of a judged-relevant document is relevant
    qrels.update({f"train-{qid}": {c.id: 1 for c in items if c.doc_id in rel} for qid, _, rel in judged})
    training = synthetic + [{"qid": f"train-{qid}", "query": query} for qid, query, _ in judged]
    ranked = dict(zip([q["qid"] for q in training], first.search_batch([q["query"] for q in training], s.candidates)))
    x_syn, y_syn = labelled(features, training, ranked, by_id, qrels, dense)
    dev = [q for q in load_records(questions, "questions") if q.get("split") == "dev" and q["answerable"]] if s.dev else []
    base = {qid: r[: s.candidates] for qid, r in load_run(run).items()}
    x_dev, y_dev = labelled(features, dev, base, by_id, build_qrels(dev, items)[0], dense)
    x, y = np.vstack([x_syn, x_dev]), np.concatenate([y_syn, y_dev])
    if not len(y):
        raise ValueError(f"train_reranker {name}: no training question had a relevant candidate")
    w, b, losses = fit_logistic(x, y, s.l2)
    data_sha = sha256_text(json.dumps([[q["query"] for q in training], [q["qid"] for q in dev]]))
    save_model(out, w, b, {"settings": settings, "synthetic_questions": len(synthetic), "dev_questions": len(dev),
                           "train_split_queries": len(judged),
                           "examples": int(len(y)), "positives": int(y.sum()), "loss_per_step": losses,
                           "training_data_sha256": data_sha, "df": features.df_record()},
               features.codes_record(items), kind.features())
    log(f"train_reranker: {name}: {len(y)} candidates ({int(y.sum())} relevant) from {len(synthetic)} synthetic, "
        f"{len(judged)} training-split and {len(dev)} dev questions; weights "
        + ", ".join(f"{f} {v:+.2f}" for f, v in zip(kind.features(), w)))
    return [out, out.with_suffix(".json")]


def rerankers(g) -> list[str]:
    return [r for r, kind in g.corpus.retrievers.items() if kind.trained]


def training_reads(g, name: str) -> dict:
    return g.corpus.retrievers[name].training_reads(g)


STAGES = (
    Stage("train_reranker", phase="rank", step=10, names=lambda g: named(rerankers(g)),
          settings=lambda g, w: g.corpus.retrievers[w["name"]].retrieve_settings(),
          values=lambda g, w: {"name": w["name"], **(g.beir_splits() if "beir" in training_reads(g, w["name"]) else {})},
          reads=lambda g, w: {**corpus_files(g), "questions": str(g.layout.questions), **training_reads(g, w["name"])},
          writes={"out": Out("reranker", at="rerankers/{name}.npz", check="weights"),
                  "sidecar": Out("reranker_sidecar", arg=None, at="rerankers/{name}.json", check="json_file")},
          job_code=lambda g, w: kinds_code([g.corpus.retrievers[w["name"]]])),  # its kind's module alone
)


if __name__ == "__main__":
    run_stage(train_reranker)
