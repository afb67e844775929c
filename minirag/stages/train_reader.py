"""train_reader: what a trained reader learns from -> readers/<name>.{npz, json, tasks.jsonl}.

The reader's kind says what it reads (`training_inputs`: the Mini-GPT the documents and the tokenizer,
the answer selector the documents, chunks and questions, and a grammar corpus's lexicon and terms file) and how it learns
(answer/training.py).
"""

from __future__ import annotations

from pathlib import Path

from ..answer.readers import READERS
from ..pipeline.stage import Out, Size, Stage
from .common import log, run_stage


def train_reader(settings: dict, name: str, docs: Path, out: Path, files: dict[str, Path] | None = None) -> list[Path]:
    """Train the reader `name` of the kind its settings name, on the documents and the files its
    kind reads (`training_reads`, by the names in its `training_inputs`)."""
    kind = READERS[settings["type"]]
    given = {"docs": docs, **(files or {})}
    missing = [k for k in kind.training_inputs if k not in given and k not in kind.grammar_inputs]
    if missing:
        raise ValueError(f"train_reader: a {kind.type} reader learns from {', '.join(kind.training_inputs)}; "
                         f"missing {', '.join(missing)} (--files KEY PATH)")
    kind.train(settings, name, {k: given[k] for k in kind.training_inputs if k in given}, out, log)
    return [out, out.with_suffix(".json"), out.with_suffix(".tasks.jsonl")]


def reader_settings(g, w) -> dict:
    """What training reads of a reader's settings: what only answering reads (its kind's `ANSWER_TIME`)
    does not retrain it."""
    answering = getattr(g.corpus.readers[w["name"]].Settings, "ANSWER_TIME", ())
    return {k: v for k, v in g.corpus.reader_spec(w["name"]).items() if k not in answering}


STAGES = (
    Stage("train_reader", phase="answer", step=10, names=lambda g: [{"name": r} for r in g.trained_readers()],
          settings=reader_settings, values=lambda g, w: {"name": w["name"]},
          reads=lambda g, w: {"docs": g.training_docs(), "files": g.train_reader(w["name"])},
          writes={"out": Out("reader", at="readers/{name}.npz", check="weights"),
                  "sidecar": Out("reader_sidecar", arg=None, at="readers/{name}.json", check="reader_sidecar"),
                  "tasks": Out("reader_tasks", arg=None, at="readers/{name}.tasks.jsonl", check="records")},
          size=Size(1280, 15)),
)


if __name__ == "__main__":
    run_stage(train_reader)
