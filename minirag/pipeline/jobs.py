"""What the stage specs share: the jobs a stage has (once per corpus, per name, per shard) and the
files most of them read.

    named(["bm25", "hybrid"])  -> [{"name": "bm25"}, {"name": "hybrid"}]
    per_shard(g, ["minilm"])   -> [{"shard": "0", "name": "minilm"}, {"shard": "1", "name": "minilm"}]

What it leaves out: any one stage's own queries (its module in minirag/stages/ holds them).
"""

from __future__ import annotations


def paths(*items) -> list[str]:
    """Inputs as strings, as Snakemake takes them."""
    return [str(p) for p in items]


def one(flag: bool = True) -> list[dict]:
    """The jobs of a stage run once per corpus: one, or none."""
    return [{}] if flag else []


def named(items) -> list[dict]:
    return [{"name": n} for n in items]


def per_shard(g, items) -> list[dict]:
    """Shard jobs of each of `items`, item by item."""
    return [{"shard": str(i), "name": n} for n in items for i in g.shard_ids()]


def whole(g, items) -> list[dict]:
    """A job per item on a corpus built whole; none on a sharded one (its merge stage has them)."""
    return [] if g.shard_ids() else named(items)


def sharded(g, items) -> list[dict]:
    return named(items) if g.shard_ids() else []


def name_value(g, w) -> dict:
    return {"name": w["name"]}


def docs(g) -> dict:
    return {"docs": str(g.layout.docs)}


def corpus_files(g) -> dict:
    return {"docs": str(g.layout.docs), "chunks": str(g.layout.chunks)}


def run_files(g, w) -> dict:
    """What a job answering the run `name` reads: the questions, the corpus and the run."""
    return {"questions": str(g.layout.questions), **corpus_files(g), "run": str(g.layout.run(w["name"]))}


def scored(g) -> dict:
    """What a job scoring every run reads: the questions, the corpus and the runs."""
    return {"questions": str(g.layout.questions), **corpus_files(g), "runs": g.runs()}
