"""The report's account of what the graph trained: each encoder's loss and controls, each reader's training.

What it leaves out: the answers the readers gave (markdown.py's Answers section) and the answer
selector's own account (answering.py).
"""

from __future__ import annotations

import pandas as pd

from ..answer.minigpt.reader import score_heldout, support_sweep
from .answering import render_selector
from .cells import md_table
from .tables import CorpusTables

ENCODER = """### Encoder `{name}`

MiniBiEncoder trained on {pairs:,} pairs ({sources}); loss {first:.3f} → {last:.3f} over {epochs} epochs{members}. Source: `encoders/{name}.json`.

{controls}![training loss]({figure})
"""
CONTROL = ("- `{trained}` {verdict} the untrained control `{control}` on chunk hit@5: {hit5:.3f} vs {c_hit5:.3f} "
           "({delta}: paired bootstrap interval, randomization p); nDCG@10 {ndcg:.3f} vs {c_ndcg:.3f}.\n")

READING = """
#### Reader `{name}`: held-out reading tasks

{params:,} parameters trained for {steps:,} steps ({seconds:.0f} s) on {tasks:,} reading tasks the graph synthesized from the corpus's tables and sentences (`readers/{name}.tasks.jsonl`). Scored on tasks from rows and documents held out of training (`readers/{name}.json`). "reader" is what the pipeline uses: the model's answer, refused ("I don't know") when the line it cites holds less than {min_support:.0%} of the question's content words; "model alone" is the model's own answer.

{table}

The support check's trade-off (`min_support` is an answering setting: changing it re-answers, it does not retrain):

{sweep}

![training loss]({figure})
"""


def render_encoders(t: CorpusTables, results) -> list[str]:
    """Each trained encoder: its pairs, its loss curve, and how it did against its untrained controls."""
    out = []
    for enc in t.encoders():
        controls = "".join(CONTROL.format(trained=r["trained"], control=r["control"],
                                          verdict="beats" if r["hit@5"] > r["control hit@5"] else "does not beat",
                                          hit5=r["hit@5"], c_hit5=r["control hit@5"],
                                          delta=r["Δ hit@5"], ndcg=r["ndcg@10"],
                                          c_ndcg=r["control ndcg@10"]) for _, r in enc["controls"].iterrows())
        out.append(ENCODER.format(name=enc["name"], pairs=enc["pairs"], first=enc["losses"][0], last=enc["losses"][-1],
                                  epochs=len(enc["losses"]), controls=controls + "\n" if controls else "",
                                  members=f" (each of {enc['members']} encoders, their mean loss)" if enc["members"] > 1 else "",
                                  sources=", ".join(f"{s} {n:,}" for s, n in enc["by_source"].items()),
                                  figure=t.layout.figure(f"loss-{enc['name']}").relative_to(results).as_posix()))
    return out


TRAINING = """
### Reader `{name}`

Trained in {seconds:.1f} s ({summary}).{figure}
"""


def render_reading(t: CorpusTables, results) -> str:
    """Each trained reader's account, by the section its kind asks for (`Reader.report`)."""
    return "".join(SECTIONS[t.corpus.readers[name].report](t, name, meta, results)
                   for name, meta in t.trained_readers().items())


def training_seconds(t: CorpusTables, name: str) -> float:
    """A reader's training time: its train_reader job's wall seconds from the Snakemake benchmark file
    (a measured time lives there and in the log, never in the sidecar, which stays byte-identical)."""
    times = t.stage_times([("train_reader", name)])
    return float(times["seconds"].iloc[0]) if len(times) else 0.0


def render_training(t: CorpusTables, name: str, meta: dict, results) -> str:
    """Any trained reader: its sidecar's training summary and its loss curve, when it records one."""
    tr = meta.get("training", {})
    summary = ", ".join(f"{k} {v}" for k, v in tr.items() if isinstance(v, (int, float, str)))
    figure = ""
    if "loss_curve" in meta:
        figure = f"\n\n![{name} loss]({t.layout.figure(f'loss-{name}').relative_to(results).as_posix()})"
    return TRAINING.format(name=name, seconds=training_seconds(t, name), summary=summary or "no summary",
                           figure=figure)


def render_reading_tasks(t: CorpusTables, name: str, meta: dict, results) -> str:
    """The Mini-GPT: its held-out reading tasks, the support sweep and its loss curve."""
    # the support threshold is an answering setting, applied here to the recorded outcomes
    settings = t.corpus.reader_settings[name]
    h, alone = score_heldout(meta["heldout_outcomes"], settings.min_support), meta["heldout_model_alone"]
    rows = [("true context: answer and citation right", "true", "answer_and_cite", "≥ 0.8"),
            ("true context: answer right", "true", "answer", ""),
            ("swapped answer: follows the context (faithfulness)", "swapped", "follows_context", "≥ 0.9"),
            ("no evidence: abstains", "absent", "abstained", "≥ 0.9")]
    table = pd.DataFrame([{"held-out task": label, "n": h[kind]["n"], "reader": h[kind][key],
                           "model alone": alone[kind][key], "target": target}
                          for label, kind, key, target in rows])
    tr = meta["training"]
    figure = t.layout.figure(f"loss-{name}").relative_to(results).as_posix()
    return READING.format(name=name, params=tr["parameters"], steps=tr["steps"], seconds=training_seconds(t, name),
                          min_support=settings.min_support,
                          sweep=md_table(pd.DataFrame(support_sweep(meta["heldout_outcomes"]))),
                          tasks=tr["tasks"], table=md_table(table), figure=figure)


# a reader kind's report section by the name its class gives (Reader.report)
SECTIONS = {"selector": lambda t, name, meta, results: render_selector(name, meta),
            "reading_tasks": render_reading_tasks, "training": render_training}
