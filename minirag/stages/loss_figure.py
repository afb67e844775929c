"""loss_figure: encoders/<name>.json or readers/<name>.json -> figures/loss-<name>.png (the training loss)."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import load_json
from ..pipeline.stage import Out, Stage
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


def loss_sidecar(g, name: str) -> str:
    """The sidecar whose loss curve the figure draws: a trained encoder's or reader's."""
    if name in g.corpus.readers:
        return str(g.layout.reader_model(name).with_suffix(".json"))
    return str(g.layout.encoder_sidecar(name))


STAGES = (
    Stage("loss_figure", phase="evaluate", step=60, names=lambda g: [{"name": n} for n in g.trained() + g.trained_readers()],
          values=lambda g, w: {"title": f"{g.layout.root.name}: {w['name']} training loss"},
          reads=lambda g, w: {"sidecar": loss_sidecar(g, w["name"])},
          writes={"out": Out("loss_figure", at="figures/loss-{name}.png", check="figure",
                             report={"caption": "../report/loss.rst", "subcategory": "training"})}),
)


if __name__ == "__main__":
    run_stage(loss_figure)
