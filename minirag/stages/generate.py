"""generate: prompts/<retriever>.jsonl (+ a trained reader's weights) -> answers/<reader>/<retriever>.jsonl."""

from __future__ import annotations

from pathlib import Path

from ..answer.prompt import Prompt
from ..answer.readers import make_reader
from ..artifacts.integrity import load_records
from ..artifacts.io import write_jsonl
from ..pipeline.stage import Out, Stage
from .common import log, run_stage


def generate(settings: dict, prompts: Path, out: Path, model: Path | None = None) -> list[Path]:
    """Let the reader answer every prompt; record its answer, citations, abstention (and why) and latency."""
    reader = make_reader(settings, model)
    records = []
    prompts_in = load_records(prompts, "prompts")
    for i, rec in enumerate(prompts_in, 1):
        ans = reader.generate(Prompt.from_record(rec))
        if i % 50 == 0:  # a remote model takes seconds per answer
            log(f"generate: {i} of {len(prompts_in)} answered")
        records.append({"qid": rec["qid"], "query": rec["query"], "reader": reader.name, "answer": ans.text,
                        "citations": ans.citations, "prompt_chunks": rec["citations"], "abstained": ans.abstained,
                        **({"why": ans.why} if ans.why else {}), "score": round(ans.score, 6), **ans.origin,
                        "latency_ms": round(ans.latency_ms, 3)})
    write_jsonl(out, records)
    log(f"generate: {len(records)} answers ({sum(r['abstained'] for r in records)} abstained) -> {out}")
    return [out]


STAGES = (
    Stage("generate", phase="answer", step=40, per="{reader}.{name}",
          names=lambda g: [{"reader": a, "name": r} for a, r in g.answer_jobs()],
          settings=lambda g, w: g.corpus.reader_spec(w["reader"]),
          reads=lambda g, w: {"prompts": str(g.layout.prompts(w["name"])), **g.generate(w["reader"])},
          writes={"out": Out("answers", at="answers/{reader}/{name}.jsonl", check="records")}),
)


if __name__ == "__main__":
    run_stage(generate)
