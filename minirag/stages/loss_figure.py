"""loss_figure: encoders/<name>.json -> figures/loss-<name>.png (mean training loss per epoch)."""

from __future__ import annotations

from pathlib import Path

from ..integrity import load_json
from ..report.figures import plot_loss
from .common import run_stage


def loss_figure(title: str, sidecar: Path, out: Path) -> list[Path]:
    """The loss curve the encoder's sidecar recorded."""
    plot_loss(out, title, load_json(sidecar, "encoder sidecar")["loss_per_epoch"])
    return [out]


if __name__ == "__main__":
    run_stage(loss_figure)
