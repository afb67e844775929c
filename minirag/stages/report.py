"""report: every corpus's artifacts -> results/<report>.md and its manifest."""

from __future__ import annotations

from pathlib import Path

from ..graph import CorpusGraph
from ..io import atomic_write_text, write_json
from ..layout import CorpusLayout
from ..report.manifest import manifest as build_manifest
from ..report.markdown import HEADER, render_corpus
from ..report.tables import CorpusTables
from .common import log, run_stage


def report(settings: dict, config: str, out: Path, manifest: Path) -> None:
    """Render each corpus's section from its tables; hash every input and output into the manifest."""
    results = settings["results"]
    parts = [HEADER.format(config=config, manifest=Path(manifest).as_posix())]
    for name, cc in settings["corpora"].items():
        layout = CorpusLayout.of(results, name)
        parts.append(render_corpus(CorpusTables(name, cc, layout), results, CorpusGraph(cc, layout).jobs()))
    atomic_write_text(out, "\n".join(parts).rstrip() + "\n")
    write_json(manifest, build_manifest(settings["corpora"], results, config))
    log(f"report: {len(settings['corpora'])} corpora -> {out}")


if __name__ == "__main__":
    run_stage(report)
