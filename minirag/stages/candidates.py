"""candidates: questions + a run -> candidates/<retriever>.jsonl, each question's answer candidates scored.

Every cell and piece of prose of the run's top `depth` chunks is a candidate (answer/select/candidates.py); the
answer selector trained by train_reader (answer/select/selector.py) scores them. Per question the file holds what
the question was read as asking, how many candidates there were, the probability that none answers, the
best answers (each with the candidate it is cited from and that candidate's features) and the key of every
candidate's answer, so the evaluation can say whether the right answer was among them.
"""

from __future__ import annotations

from pathlib import Path

from ..answer.select.selector import load_selector
from ..artifacts.integrity import load_records
from ..artifacts.io import write_jsonl
from ..evaluation.trec import load_run
from ..pipeline.jobs import run_files
from ..pipeline.stage import Out, Size, Stage
from ..text.chunks import load_chunks
from .common import log, run_stage


def candidates(settings: dict, questions: Path, docs: Path, chunks: Path, run: Path, model: Path, out: Path,
               lexicon: Path | None = None, terms: Path | None = None) -> list[Path]:
    """Score the candidates of each question's top `depth` chunks with the trained selector (a grammar
    corpus's reads its lexicon and terms file too)."""
    chunk_list = load_chunks(chunks, docs)
    by_id = {c.id: c for c in chunk_list}
    langs = {d["doc_id"]: d.get("lang", "") for d in load_records(docs, "documents")}
    selector = load_selector(model, chunk_list, langs, lexicon, terms, settings["depth"], {"docs": docs, "chunks": chunks})
    ranked = load_run(run)
    records = []
    for q in load_records(questions, "questions"):
        top = [by_id[cid] for cid, _ in ranked.get(q["qid"], [])[: settings["depth"]]]
        records.append(selector.select(q["query"], top, langs).to_record(q["qid"], settings["keep"]))
    write_jsonl(out, records)
    answered = sum(bool(r["answers"]) for r in records)
    log(f"candidates: {len(records)} questions, {sum(r['candidates'] for r in records)} candidates "
        f"from the top {settings['depth']} chunks ({answered} with an answer) -> {out}")
    return [out]


STAGES = (
    # the terms file is an input: editing it reruns the stage
    Stage("candidates", phase="answer", step=20, names=lambda g: [{"name": r} for r in g.selected_runs()],
          settings=lambda g, w: g.corpus.candidates.selecting(),
          reads=lambda g, w: {**run_files(g, w), **g.candidates(w["name"])},
          writes={"out": Out("candidates", at="candidates/{name}.jsonl", check="candidates")},
          size=Size(why="by analogy with prompt, to revise after a build")),
)


if __name__ == "__main__":
    run_stage(candidates)
