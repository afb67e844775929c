"""The corpus stages: curate, questions, the training sample, the tokenizer, chunk, units."""

from __future__ import annotations

from ...settings import settings_to_dict
from ..stage import Out, Stage


def one(flag: bool = True) -> list[dict]:
    """The jobs of a stage run once per corpus: one, or none."""
    return [{}] if flag else []


def curate_settings(g, w) -> dict:
    src = settings_to_dict(g.source)
    return {k: src[k] for k in ("format", "fields", "default_lang", "langs", "outside_links")}


def question_settings(g) -> dict:
    src = settings_to_dict(g.source)
    out = {k: src[k] for k in ("format", "split", "questions_format", "question_langs", "strict_qrels")}
    return {**out, "dev_docs": list(src["dev_docs"])} if src["format"] == "squad" else out


def chunk_settings(g, w) -> dict:
    return g.corpus.chunk.used()


def docs(g) -> dict:
    return {"docs": str(g.layout.docs)}


CORPUS = [
    Stage("curate", per=None, names=lambda g: one(), settings=curate_settings,
          values=lambda g, w: {"glob": g.source.glob},
          reads=lambda g, w: {"source": g.source_files()}, writes={"out": Out("docs")}),
    Stage("questions", per=None, names=lambda g: one(),
          settings=lambda g, w: question_settings(g),
          reads=lambda g, w: {**({"source": g.question_files()} if g.question_files() else {}), **docs(g)},
          writes={"out": Out("questions")}),
    Stage("train_sample", per=None, names=lambda g: one(g.uses_train_sample()),
          settings=lambda g, w: {"train_cap": g.corpus.train_cap, "train_seed": g.corpus.train_seed},
          reads=lambda g, w: docs(g), writes={"out": Out("train_sample")}),
    Stage("train_tokenizer", per=None, names=lambda g: one(g.uses_tokenizer()),
          settings=lambda g, w: settings_to_dict(g.corpus.tokenizer),
          reads=lambda g, w: {"docs": g.training_docs()}, writes={"out": Out("tokenizer")}),
]

SHARD_DOCS = [
    Stage("curate_shard", module="curate", per="{shard}", settings=curate_settings,
          names=lambda g: [{"shard": str(i)} for i in g.shard_ids()],
          values=lambda g, w: {"glob": g.source.glob, "shard": w["shard"], "shards": g.shards},
          reads=lambda g, w: {"source": g.shard_source(int(w["shard"]))}, writes={"out": Out("shard_docs")}),
    Stage("chunk_shard", module="chunk", per="{shard}", settings=chunk_settings,
          names=lambda g: [{"shard": str(i)} for i in g.shard_ids()],
          reads=lambda g, w: {"docs": str(g.layout.shard_docs(w["shard"])), **g.chunk()},
          writes={"out": Out("shard_chunks")}),
]

CHUNKS = [
    Stage("chunk", per=None, corpora="whole", names=lambda g: one(not g.shard_ids()), settings=chunk_settings,
          reads=lambda g, w: {**docs(g), **g.chunk()}, writes={"out": Out("chunks")}),
    Stage("merge_chunks", job="chunk", per=None, corpora="sharded", names=lambda g: one(bool(g.shard_ids())),
          settings=chunk_settings, reads=lambda g, w: {**docs(g), "shards": g.shard_chunks()},
          writes={"out": Out("chunks")}),
    Stage("units", per=None, names=lambda g: one(g.uses_units()),
          reads=lambda g, w: {**docs(g), "chunks": str(g.layout.chunks)}, writes={"out": Out("units")}),
]
