"""train_reader: docs.jsonl + tokenizer.json -> readers/<name>.{npz, json, tasks.jsonl}, a Mini-GPT reader."""

from __future__ import annotations

import json
import time
from pathlib import Path

from ..answer.minigpt_reader import MiniGPTSettings, TaskEncoder, heldout_outcomes, score_heldout, train_on_tasks
from ..answer.minigpt_train import save_model
from ..answer.reading_tasks import make_tasks, save_tasks
from ..integrity import load_records
from ..io import sha256_bytes, sha256_text
from ..settings import settings_from_dict
from ..text.bpe import load_tokenizer
from .common import log, run_stage

LOSS_WINDOW = 50  # steps per point of the sidecar's loss curve


def train_reader(settings: dict, name: str, docs: Path, tokenizer: Path, out: Path) -> list[Path]:
    """Synthesize reading tasks from the documents, train the reader on the training ones, answer
    the held-out ones, and save weights, tasks and a sidecar holding the scores."""
    s = settings_from_dict(MiniGPTSettings, {k: v for k, v in settings.items() if k != "type"}, f"readers.{name}")
    documents = load_records(docs, "documents")
    tok = load_tokenizer(tokenizer)
    enc = TaskEncoder(tok, s.block_size)
    tasks = make_tasks(documents, s.tasks, s.eval_tasks, seed=s.seed, swapped_share=s.swapped_share,
                       absent_share=s.absent_share, max_lines=s.max_lines, max_chars=s.max_chars)
    tasks_path = out.with_suffix(".tasks.jsonl")
    save_tasks(tasks_path, tasks)
    t0 = time.perf_counter()

    def progress(step, loss, lr):
        elapsed = time.perf_counter() - t0
        log(f"train_reader: {name}: step {step}/{s.steps} loss {loss:.3f} lr {lr:.2e} "
            f"({elapsed:.0f} s, ~{elapsed / step * (s.steps - step):.0f} s left)")

    model, losses, skipped = train_on_tasks(tasks, enc, s, progress)
    seconds = time.perf_counter() - t0
    outcomes = heldout_outcomes(model, enc, tasks, s.max_new_tokens)
    model_alone, checked = score_heldout(outcomes, 0.0), score_heldout(outcomes, s.min_support)
    windows = [sum(losses[i:i + LOSS_WINDOW]) / len(losses[i:i + LOSS_WINDOW]) for i in range(0, len(losses), LOSS_WINDOW)]
    save_model(out, model, {
        "settings": settings, "heldout_model_alone": model_alone, "heldout_outcomes": outcomes,
        "training": {"steps": s.steps, "seconds": round(seconds, 1), "tasks": sum(t.split == "train" for t in tasks),
                     "skipped_too_long": skipped, "parameters": int(sum(p.size for p in model.params.values())),
                     "tasks_sha256": sha256_bytes(tasks_path.read_bytes())},
        "loss_curve": {"window": LOSS_WINDOW, "label": "answer-token cross-entropy",
                       "values": [round(v, 5) for v in windows]},
        "tokenizer": {"pattern": tok.pattern, "merges": [list(m) for m in tok.merges]},
        "tokenizer_sha256": sha256_text(json.dumps([tok.pattern, tok.merges]))})
    log(f"train_reader: {name}: {s.steps} steps in {seconds:.0f} s; held-out, model alone {json.dumps(model_alone)}; "
        f"with the default support check ({s.min_support}) {json.dumps(checked)}")
    return [out, out.with_suffix(".json"), tasks_path]


if __name__ == "__main__":
    run_stage(train_reader)
