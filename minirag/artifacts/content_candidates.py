"""The content check of a candidates file (candidates/<run>.jsonl), as content.py checks every other kind.

One record a question, as the candidates stage writes it (answer/select/selector.py `to_record`):

    {"qid": str (a known question), "query": str, "analysis": {...}, "depth": int >= 0,
     "candidates": int >= 0, "p_none": a probability, "keys": [str, ...],
     "answers": [{"text": str, "p": a probability, "n": int, "chunk_id": str (a known chunk),
                  "kind": str, "key": str, "column": str, "caption": str, "line": str,
                  "evidence": str, "features": {str: finite number}}, ...]}

`candidate_records` checks parsed records: `check_file` (content.py) runs it for the writer and
`verify`, `candidates.load_candidates` for the prompt and evaluate stages (receipt, then content).
A failure names the file, the line and the field.

What it leaves out: whether the scores are the selector's (a forged file with sound fields passes).
"""

from __future__ import annotations

import math
from typing import Iterable

TEXT = ("text", "kind", "key", "column", "caption", "line", "evidence")


class CandidatesError(ValueError):
    """A candidates file whose content no stage writes; the message names the file, line and field."""


def fail(where, msg: str):
    raise CandidatesError(f"{where}: {msg}")


def number(value, at: str, field: str, low: float | None = None, high: float | None = None, integer: bool = False):
    ok = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or not math.isfinite(value) \
            or (low is not None and value < low) or (high is not None and value > high):
        bounds = f" in [{low}, {high}]" if high is not None else (f" >= {low}" if low is not None else "")
        fail(at, f"{field}: {str(value)[:40]!r} is not {'an integer' if integer else 'a finite number'}{bounds}")


def answer_fields(a, at: str, i: int, chunk_ids: set[str] | None) -> None:
    where = f"answers[{i}]"
    if not isinstance(a, dict):
        fail(at, f"{where}: not an object")
    for name in TEXT + ("chunk_id",):
        if not isinstance(a.get(name), str):
            fail(at, f"{where}.{name}: {str(a.get(name))[:40]!r} is not a string")
    number(a.get("p"), at, f"{where}.p", 0.0, 1.0)
    number(a.get("n"), at, f"{where}.n", 0, integer=True)
    if chunk_ids is not None and a["chunk_id"] not in chunk_ids:
        fail(at, f"{where}.chunk_id: chunk {a['chunk_id'][:40]!r} is not in chunks.jsonl")
    features = a.get("features")
    if not isinstance(features, dict):
        fail(at, f"{where}.features: not an object")
    for name, value in features.items():
        number(value, at, f"{where}.features.{name[:40]}")


def candidate_records(numbered: Iterable[tuple[int, object]], where, qids: set[str] | None,
                      chunk_ids: set[str] | None) -> None:
    """(line number, record) pairs of a candidates file; `qids`, `chunk_ids`: the ids it may name."""
    seen: set[str] = set()
    for lineno, rec in numbered:
        at = f"{where}:{lineno}"
        if not isinstance(rec, dict):
            fail(at, "not a JSON object")
        for name, kind in (("qid", str), ("query", str), ("analysis", dict), ("answers", list), ("keys", list)):
            if not isinstance(rec.get(name), kind):
                fail(at, f"{name}: {str(rec.get(name))[:40]!r} is not a {kind.__name__}")
        if qids is not None and rec["qid"] not in qids:
            fail(at, f"qid: query {rec['qid'][:40]!r} is not in questions.jsonl")
        if rec["qid"] in seen:
            fail(at, f"qid: query {rec['qid'][:40]!r} twice")
        seen.add(rec["qid"])
        number(rec.get("depth"), at, "depth", 0, integer=True)
        number(rec.get("candidates"), at, "candidates", 0, integer=True)
        number(rec.get("p_none"), at, "p_none", 0.0, 1.0)
        if not all(isinstance(k, str) for k in rec["keys"]):
            fail(at, "keys: not every key is a string")
        for i, a in enumerate(rec["answers"]):
            answer_fields(a, at, i, chunk_ids)
