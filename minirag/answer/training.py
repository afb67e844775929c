"""Training a reader kind: what the train_reader stage runs for each trained reader, files in, files out.

    train_minigpt(settings, name, {"docs": ..., "tokenizer": ...}, out, log)
    train_extractive(settings, name, {"docs", "chunks", "lexicon", "terms", "questions"}, out, log)

Each writes the weights to `out` (.npz), a sidecar beside it (.json: settings, what it was trained on,
held-out scores, the loss curve) and what it learned from (.tasks.jsonl: the Mini-GPT's reading tasks, the
selector's learner questions). A reader kind names its function and its inputs (readers.py).

What it leaves out: the models (minigpt*.py, scorer.py) and the data they learn from (reading/tasks.py,
the domains' question synthesisers).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable

from ..artifacts.integrity import load_json, load_records
from ..artifacts.io import sha256_bytes, sha256_text, write_json, write_jsonl
from ..settings import settings_from_dict

LOSS_WINDOW = 50  # steps per point of the Mini-GPT sidecar's loss curve


def train_minigpt(settings: dict, name: str, files: dict[str, Path], out: Path, log: Callable[[str], None]) -> None:
    """Synthesize reading tasks from the documents, train the reader on the training ones, answer
    the held-out ones, and save weights, tasks and a sidecar holding the scores."""
    from ..text.bpe import load_tokenizer
    from .minigpt.reader import MiniGPTSettings, TaskEncoder, heldout_outcomes, score_heldout, train_on_tasks
    from .minigpt.train import save_model
    from .reading.tasks import make_tasks, save_tasks
    s = settings_from_dict(MiniGPTSettings, {k: v for k, v in settings.items() if k != "type"}, f"readers.{name}")
    documents = load_records(files["docs"], "documents")
    tok = load_tokenizer(files["tokenizer"])
    enc = TaskEncoder(tok, s.block_size)
    tasks = make_tasks(documents, s.tasks, s.eval_tasks, seed=s.seed, swapped_share=s.swapped_share,
                       absent_share=s.absent_share, max_lines=s.evidence_lines, max_chars=s.evidence_chars, lead=s.lead)
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
        "training": {"steps": s.steps, "tasks": sum(t.split == "train" for t in tasks),  # time: the log, the benchmark
                     "skipped_too_long": skipped, "parameters": int(sum(p.size for p in model.params.values())),
                     "tasks_sha256": sha256_bytes(tasks_path.read_bytes())},
        "loss_curve": {"window": LOSS_WINDOW, "label": "answer-token cross-entropy",
                       "values": [round(v, 5) for v in windows]},
        "tokenizer": {"pattern": tok.pattern, "merges": [list(m) for m in tok.merges]},
        "tokenizer_sha256": sha256_text(json.dumps([tok.pattern, tok.merges]))})
    log(f"train_reader: {name}: {s.steps} steps in {seconds:.0f} s; held-out, model alone {json.dumps(model_alone)}; "
        f"with the default support check ({s.min_support}) {json.dumps(checked)}")


def train_extractive(settings: dict, name: str, files: dict[str, Path], out: Path, log: Callable[[str], None]) -> None:
    """Train the answer selector (train_selector.py) and save its weights, sidecar and learner questions."""
    from ..text.chunks import load_chunks
    from .select.settings import SelectorSettings
    from .train_selector import train_selector
    s = settings_from_dict(SelectorSettings, {k: v for k, v in settings.items() if k != "type"}, f"readers.{name}")
    lexicon = load_json(files["lexicon"], "lexicon") if "lexicon" in files else {}  # the grammar domain's
    terms = None
    if "terms" in files:  # a domain's terms file (the grammar's concepts): its hook reads it
        from ..domain import hook
        terms = hook("questions.terms")(files["terms"], lexicon.get("lexicon", {}))
    scorer, learner, report = train_selector(
        load_records(files["docs"], "documents"), load_chunks(files["chunks"], files["docs"]), lexicon, terms,
        load_records(files["questions"], "questions"), s, log)
    tasks_path = out.with_suffix(".tasks.jsonl")
    write_jsonl(tasks_path, (q.to_record() for q in learner))
    scorer.save_atomic(out)
    if "vocabulary" in report:  # the grammar features' (train_selector.py)
        report["vocabulary"]["built_from"] = vocabulary_inputs(files)
    write_json(out.with_suffix(".json"), {"format": "minirag-answer-selector/1", "settings": settings,
                                          "weights": out.name, "weights_sha256": sha256_bytes(out.read_bytes()),
                                          "tasks_sha256": sha256_bytes(tasks_path.read_bytes()), **report})


def vocabulary_inputs(files: dict[str, Path]) -> dict[str, str]:
    """The sha256 of each file the answer selector's vocabulary is built from (its load checks them): the
    documents and chunks, and a grammar corpus's lexicon and terms file."""
    from ..artifacts.io import sha256_file
    return {k: sha256_file(files[k]) for k in ("docs", "chunks", "lexicon", "terms") if k in files}
