"""TREC run and qrels files, the format trec_eval, pytrec_eval and ranx read as they are.

A run line is `qid Q0 id rank score run_name`. Lines of a query are written in the
order trec_eval itself ranks them, score descending and, on equal scores, id
descending, so the rank column a person reads is the rank every evaluator computes.
Scores are written with 6 decimals and ranked after rounding, for the same reason.

What it leaves out: metrics (metrics.py) and how rankings are made (retrieve.py).
"""

from __future__ import annotations

from operator import itemgetter
from pathlib import Path

from ..artifacts.content import known_ids, run_rows
from ..artifacts.integrity import verified
from ..artifacts.io import atomic_write_text
from ..artifacts.trec_lines import parse_run
from ..rank.ranking import Ranking


def trec_order(ranking: Ranking) -> Ranking:
    rounded = [(doc, round(float(score), 6)) for doc, score in ranking]
    # two stable sorts: id descending, then score descending (itemgetter: a live query sorts 4 times)
    rounded.sort(key=itemgetter(0), reverse=True)
    rounded.sort(key=itemgetter(1), reverse=True)
    return rounded


def format_run(run: dict[str, Ranking], name: str) -> str:
    lines = []
    for qid, ranking in run.items():
        for rank, (doc, score) in enumerate(trec_order(ranking), start=1):
            lines.append(f"{qid} Q0 {doc} {rank} {score:.6f} {name}\n")
    return "".join(lines)


def write_run(path: str | Path, run: dict[str, Ranking], name: str) -> None:
    atomic_write_text(path, format_run(run, name))


def read_run(path: str | Path, name: str | None = None, qids: set[str] | None = None,
             chunk_ids: set[str] | None = None) -> dict[str, Ranking]:
    """{qid: [(id, score), ...]} in rank order; every qid of the file, even with one line. The lines
    are checked to be a run (content.run_rows): finite scores, ranks 1..n in score order, no pair
    twice, and, when given, the run's name and the known qids and chunk ids. Not checked against a
    receipt: `load_run` is what stages use."""
    rows = parse_run(path)
    run_rows(rows, path, name, qids, chunk_ids)
    run: dict[str, Ranking] = {}
    for _, qid, doc, _, score, _ in rows:
        run.setdefault(qid, []).append((doc, score))
    return run


def load_run(path: str | Path) -> dict[str, Ranking]:
    """A run file checked against its receipt (a truncated or edited run is refused), then read as
    a run of its corpus: its name the file's, its qids and chunk ids those of questions.jsonl and
    chunks.jsonl beside it."""
    from ..artifacts.layout import CorpusLayout
    from ..artifacts.registry import producer_of
    path = verified(path, "run")
    layout = CorpusLayout(producer_of(path)[0])
    return read_run(path, Path(path).stem, known_ids(layout.questions, "qid"), known_ids(layout.chunks, "id"))


def write_qrels(path: str | Path, qrels: dict[str, dict[str, int]]) -> None:
    lines = [f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in sorted(docs.items())]
    atomic_write_text(path, "".join(lines))
