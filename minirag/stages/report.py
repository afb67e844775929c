"""report: every corpus's artifacts -> results/<report>.md and its manifest; and one record of
the build appended to results/history.jsonl beside them (history/), skipped when it measured
nothing new since the report's last record."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.io import atomic_write_text, write_json
from ..artifacts.layout import CorpusLayout
from ..config.typed import Corpus
from ..pipeline.graph import CorpusGraph
from .common import log, run_stage


def report(settings: dict, config: str, out: Path, manifest: Path) -> None:
    """Render each corpus's section from its tables; hash every input and output into the manifest."""
    # here, not above: every dry run imports each module of minirag/stages/ for its specs, and these pull pandas
    from ..config.parsed import write_parsed
    from ..history.log import path_of as history_path
    from ..history.record import record_build
    from ..report.manifest import manifest as build_manifest
    from ..report.markdown import HEADER, render_corpus
    from ..report.tables import CorpusTables
    results = settings["results"]
    parts = [HEADER.format(config=config, manifest=Path(manifest).as_posix())]
    corpora, typed = {}, {}
    for name, cc in settings["corpora"].items():
        layout, typed[name] = CorpusLayout.of(results, name), Corpus.of(cc)
        corpora[name] = (cc, layout, CorpusGraph(typed[name], layout).jobs())
        parts.append(render_corpus(CorpusTables(name, typed[name], layout), results, corpora[name][2]))
    atomic_write_text(out, "\n".join(parts).rstrip() + "\n")
    write_json(manifest, build_manifest(typed, results, config))
    # the config's YAML kept as JSON by its bytes' sha256, which `search` and `answer` read without PyYAML
    # (config/parsed.py); like the history, a file beside the report, not one of its outputs
    write_parsed(config, results)
    log(f"report: {len(settings['corpora'])} corpora -> {out}")
    # the history is an append-only log beside the report, not one of its outputs (history/log.py)
    added = record_build(results, Path(out).stem, config, corpora)
    log(f"history: {'build recorded in' if added else 'nothing new since the last record of'} {history_path(results)}")


if __name__ == "__main__":
    run_stage(report)
