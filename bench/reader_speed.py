"""What the Mini-GPT reader costs: 20 answer tokens with the KV cache against recomputing, and a training step.

    python bench/reader_speed.py [--reader minigpt] [--corpus kb] [--prompts 40] [--json]
    python bench/reader_speed.py --train SEED      # a whole training instead: CPU s, steps/s, held-out scores

Loads a built corpus's trained reader (results/<corpus>/readers/<reader>.npz) and the prompts
of its served retriever, and times, per prompt, 20 greedy tokens (no early stop) with the KV
cache and by recomputing the whole sequence each step (the peer, in the same process), plus
the median CPU seconds per training step (forward and backward) at the reader's batch size on its
own reading tasks, and the steps per second that makes.
Prints medians and p95 over prompts; the ratio is what to compare across machines.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minirag.answer.minigpt.reader import (  # noqa: E402
    MiniGPTReader,
    MiniGPTSettings,
    batches,
    heldout_outcomes,
    score_heldout,
    train_on_tasks,
)
from minirag.answer.prompt import Prompt  # noqa: E402
from minirag.answer.reading.tasks import load_tasks  # noqa: E402
from minirag.artifacts.integrity import load_records  # noqa: E402
from minirag.artifacts.layout import CorpusLayout  # noqa: E402
from minirag.config.load import load_corpus  # noqa: E402
from minirag.settings import settings_from_dict  # noqa: E402

TOKENS = 20


def p95(values: list[float]) -> float:
    return float(np.percentile(values, 95))


def whole_training(enc, s: MiniGPTSettings, model_path: Path) -> dict:
    """A training from scratch as train_reader runs it (curriculum included) on the tasks saved beside the
    built reader: CPU seconds, steps/s and the held-out scores of the model alone."""
    tasks = load_tasks(model_path.with_suffix(".tasks.jsonl"))
    t0 = time.process_time()
    model, _, _ = train_on_tasks(tasks, enc, s)
    cpu = time.process_time() - t0
    heldout = score_heldout(heldout_outcomes(model, enc, tasks, s.max_new_tokens), 0.0)
    return {"seed": s.seed, "steps": s.steps, "cpu_s": cpu, "steps_per_s": s.steps / cpu,
            "heldout_model_alone": heldout}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reader", default="minigpt")
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--configfile", default="workflow/config.yaml")
    ap.add_argument("--results", type=Path, default=Path("results"))
    ap.add_argument("--prompts", type=int, default=40)
    ap.add_argument("--steps", type=int, default=20, help="training steps timed (forward and backward, CPU s)")
    ap.add_argument("--train", type=int, default=None, metavar="SEED",
                    help="instead: train a reader from scratch with this seed on the built reader's tasks")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    cc = load_corpus(a.configfile, a.corpus)
    layout = CorpusLayout.of(a.results, a.corpus)
    spec = {k: v for k, v in cc["readers"][a.reader].items() if k != "type"}
    s = settings_from_dict(MiniGPTSettings, spec, f"readers.{a.reader}")
    reader = MiniGPTReader.load(layout.reader_model(a.reader), s)
    if a.train is not None:
        row = whole_training(reader.enc, replace(s, seed=a.train), layout.reader_model(a.reader))
        print(json.dumps(row, indent=2) if a.json else
              f"{row['steps']} steps in {row['cpu_s']:.1f} CPU s ({row['steps_per_s']:.2f} steps/s), seed {a.train}; "
              f"held-out, the model alone: {json.dumps(row['heldout_model_alone'])}")
        return 0
    run = cc["serve"] or next(iter(cc["retrievers"]))
    prompts = [Prompt.from_record(r) for r in load_records(layout.prompts(run), "prompts")][: a.prompts]
    sources = []  # (prompt ids, their exact-match marks)
    for p in (p for p in prompts if p.evidence):
        ids = reader.enc.source(p.query, [(i, e["text"]) for i, e in enumerate(p.evidence[: s.evidence_lines], 1)], TOKENS)[0]
        sources.append((ids, reader.enc.marks(p.query, ids)))
    model = reader.model

    def timed(fn) -> list[float]:
        out = []
        for src, marks in sources:
            t0 = time.perf_counter()
            fn(src, len(src), TOKENS, marks=marks)
            out.append((time.perf_counter() - t0) * 1000)
        return out

    timed(model.generate)  # warm
    cached, uncached = timed(model.generate), timed(model.generate_uncached)
    same = all(model.generate(ids, len(ids), TOKENS, marks=m) == model.generate_uncached(ids, len(ids), TOKENS, marks=m)
               for ids, m in sources)
    tasks = [t for t in load_tasks(layout.reader_model(a.reader).with_suffix(".tasks.jsonl")) if t.split == "train"]
    examples = [e for e in map(reader.enc.example, tasks) if e is not None]
    stream = batches(examples, s.batch_size, reader.enc.eos, seed=0)
    step_s = []
    for _ in range(a.steps):
        batch = next(stream)
        t0 = time.process_time()  # CPU seconds: load on a shared machine does not inflate them
        model.loss_and_grads(*batch)
        step_s.append(time.process_time() - t0)
    row = {"reader": a.reader, "prompts": len(sources), "tokens": TOKENS,
           "cached_ms_median": statistics.median(cached), "cached_ms_p95": p95(cached),
           "uncached_ms_median": statistics.median(uncached), "uncached_ms_p95": p95(uncached),
           "ratio_uncached_over_cached": statistics.median(uncached) / statistics.median(cached),
           "same_tokens": same, "train_step_s_median": statistics.median(step_s),
           "train_steps_per_s": 1 / statistics.median(step_s), "batch_size": s.batch_size}
    if a.json:
        print(json.dumps(row, indent=2))
        return 0
    print(f"{a.corpus} / {a.reader}: {len(sources)} prompts of `{run}`, {TOKENS} tokens each")
    print(f"{'':24} {'median ms':>10} {'p95 ms':>8}")
    print(f"{'with the KV cache':24} {row['cached_ms_median']:10.1f} {row['cached_ms_p95']:8.1f}")
    print(f"{'recomputing (peer)':24} {row['uncached_ms_median']:10.1f} {row['uncached_ms_p95']:8.1f}")
    print(f"ratio {row['ratio_uncached_over_cached']:.1f}x; same tokens: {same}")
    print(f"training step (batch {s.batch_size}, forward and backward): median {row['train_step_s_median']:.3f} "
          f"CPU s, {row['train_steps_per_s']:.2f} steps/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
