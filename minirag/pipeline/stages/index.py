"""The index stages: train the bi-encoder, embed, BM25, IVF, train the reranker, retrieve (and the shard jobs)."""

from __future__ import annotations

from ...settings import settings_to_dict
from ..stage import Out, Size, Stage


def named(items) -> list[dict]:
    return [{"name": n} for n in items]


def per_shard(g, items) -> list[dict]:
    """Shard jobs of each of `items`, item by item."""
    return [{"shard": str(i), "name": n} for n in items for i in g.shard_ids()]


def whole(g, items) -> list[dict]:
    return [] if g.shard_ids() else named(items)


def sharded(g, items) -> list[dict]:
    return named(items) if g.shard_ids() else []


def corpus_files(g) -> dict:
    return {"docs": str(g.layout.docs), "chunks": str(g.layout.chunks)}


def retriever_settings(g, w) -> dict:
    # the embedder's or index's own settings travel in the artifact it reads
    return g.corpus.retrievers[w["name"]].retrieve_settings()


def retrieve_settings(g, w) -> dict:
    """A retriever's settings and the depth; for a fusion fitted on synthetic questions, the settings of
    every retriever feeding it too (the stage ranks those questions with them live) and how far it shrinks
    their best weights (its fit_questions' shrink: the only one of them the stage reads)."""
    name = w["name"]
    synthetic = {"feeding": {r: {**retriever_settings(g, {"name": r}), **g.corpus.retrievers[r].config_reads(g.corpus)}
                             for r in g.feeding(name)},
                 "fit_questions": {"shrink": g.corpus.retrievers[name].s.fit_questions.shrink}} \
        if name in g.synthetic_fits() else {}
    return {**retriever_settings(g, w), "depth": g.corpus.depth, **g.corpus.retrievers[name].config_reads(g.corpus),
            **synthetic}


def embedder_settings(g, w) -> dict:
    return g.corpus.embedders[w["name"]].spec()


def bm25_settings(g, w) -> dict:
    return settings_to_dict(g.corpus.bm25[w["name"]])


def name_value(g, w) -> dict:
    return {"name": w["name"]}


VECTORS = {"out": Out("vectors"), "sidecar": Out("vectors_sidecar", arg=None)}

EMBED = [
    # what the synthesiser reads of the encoder's `questions`; `repeat` only retrains the encoder
    Stage("synth_pairs", names=lambda g: named(g.synthesising()),
          settings=lambda g, w: g.corpus.embedders[w["name"]].s.questions.synthesis(),
          reads=lambda g, w: {"docs": g.training_docs(), "chunks": str(g.layout.chunks), **g.synth_pairs(w["name"])},
          writes={"out": Out("question_pairs")}, size=Size(runtime=20)),
    Stage("train_biencoder", names=lambda g: named(g.trained()), settings=embedder_settings,
          values=lambda g, w: g.beir_splits() if g.train(w["name"]) else {},
          reads=lambda g, w: {"docs": g.training_docs(), "chunks": str(g.layout.chunks),
                              "tokenizer": str(g.layout.tokenizer), **g.train(w["name"])},
          writes={"out": Out("encoder"), "sidecar": Out("encoder_sidecar", arg=None)}, size=Size(1280, 15)),
    Stage("embed_shard", module="embed", per="{shard}.{name}", settings=embedder_settings, values=name_value,
          names=lambda g: per_shard(g, g.used_embedders()),
          reads=lambda g, w: {"docs": str(g.layout.shard_docs(w["shard"])),
                              "chunks": str(g.layout.shard_chunks(w["shard"])), **g.embed_shard(w["name"])},
          writes={"out": Out("shard_vectors"), "sidecar": Out("shard_vectors_sidecar", arg=None)},
          size=Size(1792, 40, "as embed: a shard does part of its work")),
    Stage("embed", corpora="whole", names=lambda g: whole(g, g.used_embedders()), settings=embedder_settings,
          values=name_value, reads=lambda g, w: {**corpus_files(g), "files": g.embedder_files(w["name"])},
          writes={**VECTORS, "out_cache": Out("embed_cache", update=True),
                  "cache_receipt": Out("embed_cache", arg=None, update=True, receipt=True)}, size=Size(1792, 40)),
    Stage("merge_vectors", job="embed", corpora="sharded", names=lambda g: sharded(g, g.used_embedders()),
          settings=embedder_settings, values=name_value,
          reads=lambda g, w: {**corpus_files(g), "shards": g.shard_vectors(w["name"])}, writes=VECTORS,
          size=Size(1792, 10, "a merge holds the whole result once")),
]

BM25 = [
    Stage("bm25_shard", per="{shard}.{name}", settings=bm25_settings, names=lambda g: per_shard(g, g.used_indexes()),
          reads=lambda g, w: {"docs": str(g.layout.shard_docs(w["shard"])),
                              "chunks": str(g.layout.shard_chunks(w["shard"])), **g.word_lists(w["name"])},
          writes={"out_dir": Out("shard_bm25", arg="folder")}),
    Stage("bm25", corpora="whole", names=lambda g: whole(g, g.used_indexes()), settings=bm25_settings,
          reads=lambda g, w: {**corpus_files(g), **g.bm25(w["name"])}, writes={"out_dir": Out("bm25", arg="folder")}),
    Stage("merge_bm25", job="bm25", corpora="sharded", names=lambda g: sharded(g, g.used_indexes()),
          settings=bm25_settings, reads=lambda g, w: {**corpus_files(g), "shards": g.shard_bm25(w["name"])},
          writes={"out_dir": Out("bm25", arg="folder")}),
    # nprobe is no build setting: changing it reruns retrieve alone
    Stage("ivf", names=lambda g: named(g.used_ivf()), values=name_value,
          settings=lambda g, w: g.ivf_settings(w["name"]), reads=lambda g, w: g.ivf(w["name"]),
          writes={"out_dir": Out("ivf", arg="folder")},
          size=Size(1792, 30, "k-means over every vector of the corpus, then the inverted lists")),
]

RANK = [
    Stage("train_reranker", names=lambda g: named(g.rerankers()), settings=retriever_settings,
          values=lambda g, w: {"name": w["name"], **(g.beir_splits() if "beir" in g.train_reranker(w["name"]) else {})},
          reads=lambda g, w: {**corpus_files(g), "questions": str(g.layout.questions), **g.train_reranker(w["name"])},
          writes={"out": Out("reranker"), "sidecar": Out("reranker_sidecar", arg=None)}),
    # held-out synthetic questions for a fitted fusion of a corpus without dev questions
    Stage("fit_questions", names=lambda g: named(g.synthetic_fits()),
          settings=lambda g, w: g.fit_questions_settings(w["name"]), reads=lambda g, w: g.fit_questions(w["name"]),
          writes={"out": Out("fit_questions")},
          size=Size(runtime=20, why="the synth_pairs synthesiser and the rerankers' own: sized as it")),
    Stage("retrieve", names=lambda g: named(g.corpus.retrievers), values=name_value, settings=retrieve_settings,
          reads=lambda g, w: {"questions": str(g.layout.questions), **corpus_files(g), **g.retrieve(w["name"])},
          writes={"out": Out("run")}),
]
