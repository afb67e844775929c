"""diagnose: runs + chunk vectors -> eval/{diagnosis, overlap, always_on_top, diversity}.csv."""

from __future__ import annotations

from pathlib import Path

from ..artifacts.integrity import load_records
from ..evaluation.diagnose import (
    always_on_top,
    channel_ranks,
    diversity,
    topk_overlap,
    write_csv,
)
from ..evaluation.trec import load_run
from ..index.vectors import load_vectors_by_id
from ..pipeline.jobs import scored
from ..pipeline.stage import Out, Stage
from ..settings import settings_to_dict
from ..text.chunks import load_chunks
from .common import log, run_stage

DIAGNOSIS_FILES = ("diagnosis.csv", "overlap.csv", "always_on_top.csv", "diversity.csv")  # what it writes in eval/


def diagnose(settings: dict, questions: Path, docs: Path, chunks: Path, runs: list[Path], vectors: Path,
             out_dir: Path) -> list[Path]:
    """The seed write-up's diagnosis tables: where the gold went in each channel, overlap, hubs, diversity."""
    qs = load_records(questions, "questions")
    items = load_chunks(chunks, docs)
    doc_of = {c.id: c.doc_id for c in items}
    ranked = {p.stem: load_run(p) for p in runs}
    vecs = load_vectors_by_id(vectors, items, mmap=True)  # diversity reads the top k's rows only
    k = settings["k"]
    base = {n: ranked[n] for n in settings["base"]}
    out = Path(out_dir)
    write_csv(out / "diagnosis.csv", channel_ranks(qs, items, base, {n: ranked[n] for n in settings["fused"]}, k=k))
    write_csv(out / "overlap.csv", topk_overlap(base, k=k))
    write_csv(out / "always_on_top.csv",
              [{"retriever": n, **row} for n, run in ranked.items()
               for row in always_on_top(run, doc_of, k, settings["always_share"])],
              ["retriever", "chunk_id", "doc_id", "count", "share"])
    write_csv(out / "diversity.csv", [{"retriever": n, **row} for n, run in ranked.items()
                                      for row in diversity(run, doc_of, vecs, k)])
    log(f"diagnose: {len(ranked)} runs, {len(base)} channels -> {out}")
    return [out / name for name in DIAGNOSIS_FILES]


def diagnose_settings(g, w) -> dict:
    base = g.base_retrievers()
    return {**settings_to_dict(g.corpus.diagnose), "base": base, "fused": [n for n in g.corpus.retrievers if n not in base]}


STAGES = (
    Stage("diagnose", phase="evaluate", step=20, per=None, names=lambda g: [{}], settings=diagnose_settings,
          reads=lambda g, w: {**scored(g), "vectors": str(g.layout.vectors(g.corpus.diagnose.embedder))},
          writes={"out_dir": Out("diagnosis", arg="folder", at="eval", files=DIAGNOSIS_FILES)}),
)


if __name__ == "__main__":
    run_stage(diagnose)
