"""prompt: questions + a run -> prompts/<name>.jsonl, the evidence lines of the top k chunks with their [#n] markers.

With the run's scored candidates (candidates/<name>.jsonl), the lines of the best `answers` answers lead
the evidence, and a chunk beyond the top k that holds one joins the prompt (answer/prompt.py).
"""

from __future__ import annotations

from pathlib import Path

from ..answer.prompt import build_prompt, selected
from ..artifacts.candidates import load_candidates
from ..artifacts.integrity import load_records
from ..artifacts.io import write_jsonl
from ..evaluation.trec import load_run
from ..pipeline.jobs import run_files
from ..pipeline.stage import Out, Stage
from ..settings import settings_to_dict
from ..text.chunks import load_chunks
from .common import log, run_stage


def prompt(settings: dict, questions: Path, docs: Path, chunks: Path, run: Path, out: Path,
           candidates: Path | None = None) -> list[Path]:
    """Build each question's prompt from the run's top prompt.k chunks, in rank order."""
    by_id = {c.id: c for c in load_chunks(chunks, docs)}
    ranked = load_run(run)
    scored = load_candidates(candidates) if candidates else {}
    records = []
    for q in load_records(questions, "questions"):
        top = [by_id[cid] for cid, _ in ranked.get(q["qid"], [])[: settings["k"]]]
        rec = scored.get(q["qid"])
        answers = (selected(rec["answers"], by_id, settings["answers"]) if rec else []) if candidates else None
        records.append(build_prompt(q["query"], top, settings["template"], settings["evidence_lines"],
                                    settings["evidence_chars"], answers, rec["p_none"] if rec else 0.0,
                                    rec.get("why", "") if rec else "").to_record(q["qid"]))
    write_jsonl(out, records)
    log(f"prompt: {len(records)} prompts with k={settings['k']}" + (" and the selected answers" if candidates else "")
        + f" -> {out}")
    return [out]


def scored_candidates(g, name: str) -> dict:
    """The run's scored candidates, when the corpus has an answer selector."""
    return {"candidates": str(g.layout.candidates(name))} if g.selector() else {}


STAGES = (
    Stage("prompt", phase="answer", step=30, names=lambda g: [{"name": r} for r in g.answered()],
          settings=lambda g, w: settings_to_dict(g.corpus.prompt),
          reads=lambda g, w: {**run_files(g, w), **scored_candidates(g, w["name"])},
          writes={"out": Out("prompts", at="prompts/{name}.jsonl", check="records")}),
)


if __name__ == "__main__":
    run_stage(prompt)
