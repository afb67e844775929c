"""prompt: questions + a run -> prompts/<name>.jsonl, the evidence lines of the top k chunks with their [#n] markers."""

from __future__ import annotations

from pathlib import Path

from ..answer.prompt import build_prompt
from ..evaluation.trec import load_run
from ..integrity import load_records
from ..io import write_jsonl
from ..text.chunks import load_chunks
from .common import log, run_stage


def prompt(settings: dict, questions: Path, docs: Path, chunks: Path, run: Path, out: Path) -> list[Path]:
    """Build each question's prompt from the run's top prompt.k chunks, in rank order."""
    by_id = {c.id: c for c in load_chunks(chunks, docs)}
    ranked = load_run(run)
    records = []
    for q in load_records(questions, "questions"):
        top = [by_id[cid] for cid, _ in ranked.get(q["qid"], [])[: settings["k"]]]
        records.append(build_prompt(q["query"], top, settings["template"], settings["evidence_lines"],
                                    settings["evidence_chars"]).to_record(q["qid"]))
    write_jsonl(out, records)
    log(f"prompt: {len(records)} prompts with k={settings['k']} -> {out}")
    return [out]


if __name__ == "__main__":
    run_stage(prompt)
