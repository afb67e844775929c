"""synth_corpus: settings (+ a BEIR folder to replicate) -> data/synth/.../{corpus.jsonl, queries.jsonl, qrels/*.tsv, synth.json}."""

from __future__ import annotations

from pathlib import Path

from ..datasets.replicate_corpus import write_replicated
from ..datasets.synth_corpus import SynthSettings, write_synthetic
from ..settings import settings_from_dict
from .common import run_stage


def synth_corpus(settings: dict, n: str, out_dir: Path, source: Path | None = None) -> list[Path]:
    """A BEIR folder of n passages: synthetic (Zipfian words over wordfreq's English vocabulary,
    seeded topics) or, with --source, that BEIR folder replicated with perturbed copies."""
    s = settings_from_dict(SynthSettings, settings, "synth")
    if not n.isdigit() or int(n) < 1:
        raise ValueError(f"synth_corpus: --n must be a positive integer, got {n!r}")
    if source is not None:
        return write_replicated(source, int(n), s, out_dir)
    return write_synthetic(int(n), s, out_dir)


if __name__ == "__main__":
    run_stage(synth_corpus)
