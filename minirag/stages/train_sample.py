"""train_sample: docs.jsonl -> train_sample.jsonl, the documents the tokenizer, bi-encoder and reader learn from.

At most `train_cap` documents, a seeded bottom-k sample by hash of the id (shards.py), in
docs.jsonl order: the records themselves, so the sample is a file you can open and read.
"""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import iter_records
from ..artifacts.io import write_jsonl
from ..pipeline.jobs import docs, one
from ..pipeline.shards import training_sample
from ..pipeline.stage import Out, Stage
from .common import log, run_stage


def train_sample(settings: dict, docs: Path, out: Path) -> list[Path]:
    """Keep the documents of the seeded sample, at most train_cap of them."""
    ids = [d["doc_id"] for d in iter_records(docs, "documents")]  # two passes: only ids are held
    keep = set(training_sample(ids, settings["train_cap"], settings["train_seed"]))
    write_jsonl(out, (d for i, d in enumerate(iter_records(docs, "documents")) if i in keep))
    log(f"train_sample: {len(keep)} of {len(ids)} documents (train_cap {settings['train_cap']}, "
        f"seed {settings['train_seed']}) -> {out}")
    return [out]


def uses_train_sample(g) -> bool:
    return bool(g.corpus.train_cap) and (g.uses_tokenizer() or bool(g.trained()))


STAGES = (
    Stage("train_sample", phase="corpus", step=30, per=None, names=lambda g: one(uses_train_sample(g)),
          settings=lambda g, w: {"train_cap": g.corpus.train_cap, "train_seed": g.corpus.train_seed},
          reads=lambda g, w: docs(g), writes={"out": Out("train_sample", at="train_sample.jsonl", check="records")}),
)


if __name__ == "__main__":
    run_stage(train_sample)
