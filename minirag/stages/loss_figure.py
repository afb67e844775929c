"""loss_figure: encoders/<name>.json -> figures/loss-<name>.png (mean training loss per epoch)."""

from __future__ import annotations

from pathlib import Path

from ..io import read_json
from ..report.figures import plot_loss
from .common import run_stage


def loss_figure(title: str, sidecar: Path, out: Path) -> None:
    """The loss curve the encoder's sidecar recorded."""
    plot_loss(out, title, read_json(sidecar)["loss_per_epoch"])


if __name__ == "__main__":
    run_stage(loss_figure)
