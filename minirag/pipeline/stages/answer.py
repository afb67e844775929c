"""The answer stages: train a reader, the selector's candidates, prompts, generate."""

from __future__ import annotations

from ...settings import settings_to_dict
from ..stage import Out, Size, Stage


def run_files(g, w) -> dict:
    return {"questions": str(g.layout.questions), "docs": str(g.layout.docs), "chunks": str(g.layout.chunks),
            "run": str(g.layout.run(w["name"]))}


def reader_settings(g, w) -> dict:
    """What training reads of a reader's settings: what only answering reads does not retrain it."""
    answering = g.answer_time(w["name"])
    return {k: v for k, v in g.corpus.reader_spec(w["name"]).items() if k not in answering}


ANSWER = [
    Stage("train_reader", names=lambda g: [{"name": r} for r in g.trained_readers()], settings=reader_settings,
          values=lambda g, w: {"name": w["name"]},
          reads=lambda g, w: {"docs": g.training_docs(), "files": g.train_reader(w["name"])},
          writes={"out": Out("reader"), "sidecar": Out("reader_sidecar", arg=None),
                  "tasks": Out("reader_tasks", arg=None)}, size=Size(1280, 15)),
    # the terms file is an input: editing it reruns the stage
    Stage("candidates", names=lambda g: [{"name": r} for r in g.selected_runs()],
          settings=lambda g, w: g.corpus.candidates.selecting(),
          reads=lambda g, w: {**run_files(g, w), **g.candidates(w["name"])}, writes={"out": Out("candidates")},
          size=Size(why="by analogy with prompt, to revise after a build")),
    Stage("prompt", names=lambda g: [{"name": r} for r in g.answered()], settings=lambda g, w: settings_to_dict(g.corpus.prompt),
          reads=lambda g, w: {**run_files(g, w), **g.prompt(w["name"])}, writes={"out": Out("prompts")}),
    Stage("generate", per="{reader}.{name}", names=lambda g: [{"reader": a, "name": r} for a, r in g.answer_jobs()],
          settings=lambda g, w: g.corpus.reader_spec(w["reader"]),
          reads=lambda g, w: {"prompts": str(g.layout.prompts(w["name"])), **g.generate(w["reader"])},
          writes={"out": Out("answers")}),
]
