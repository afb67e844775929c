"""train_tokenizer: docs.jsonl -> tokenizer.json, a byte-level BPE trained on titles and texts."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import load_records
from ..pipeline.jobs import one
from ..pipeline.stage import Out, Stage
from ..settings import settings_to_dict
from ..text.bpe import BPETokenizer
from .common import log, run_stage


def train_tokenizer(settings: dict, docs: Path, out: Path) -> list[Path]:
    """Learn vocab_size - 256 merges from every document's title and text."""
    tok = BPETokenizer.train([f"{d['title']}\n{d['text']}" for d in load_records(docs, "documents")], settings["vocab_size"],
                             progress=log)
    tok.save(out)
    log(f"train_tokenizer: vocab {tok.vocab_size} -> {out}")
    return [out]


STAGES = (
    Stage("train_tokenizer", phase="corpus", step=40, per=None, names=lambda g: one(g.uses_tokenizer()),
          settings=lambda g, w: settings_to_dict(g.corpus.tokenizer),
          reads=lambda g, w: {"docs": g.training_docs()},
          writes={"out": Out("tokenizer", at="tokenizer.json", check="json_file")}),
)


if __name__ == "__main__":
    run_stage(train_tokenizer)
