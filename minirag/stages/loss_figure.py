"""loss_figure: encoders/<name>.json or readers/<name>.json -> figures/loss-<name>.png (the training loss)."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import load_json
from ..report.figures import plot_loss
from .common import run_stage


def loss_figure(title: str, sidecar: Path, out: Path) -> list[Path]:
    """The loss curve the sidecar recorded: an encoder's per epoch, a reader's per window of steps."""
    meta = load_json(sidecar, "training sidecar")
    if "loss_per_epoch" in meta:
        plot_loss(out, title, meta["loss_per_epoch"])
    else:
        curve = meta["loss_curve"]
        plot_loss(out, title, curve["values"], xlabel=f"steps (×{curve['window']})", ylabel=curve["label"])
    return [out]


if __name__ == "__main__":
    run_stage(loss_figure)
