"""Load a candidates artifact (candidates/<run>.jsonl): its receipt, then its content (content_candidates.py).

What it leaves out: the checks themselves (content_candidates.py) and writing the file (stages/candidates.py).
"""

from __future__ import annotations

from pathlib import Path

from .content import known_ids
from .content_candidates import candidate_records
from .integrity import load_records
from .layout import CorpusLayout
from .registry import producer_of


def load_candidates(path: str | Path) -> dict[str, dict]:
    """qid -> record of a candidates artifact: checked against its receipt, then its content."""
    path = Path(path)
    records = load_records(path, "candidates")
    try:
        layout = CorpusLayout(producer_of(path)[0])
        qids, chunk_ids = known_ids(layout.questions, "qid"), known_ids(layout.chunks, "id")
    except ValueError:  # a file outside a results folder: its fields only
        qids = chunk_ids = None
    candidate_records(enumerate(records, start=1), path, qids, chunk_ids)
    return {r["qid"]: r for r in records}
