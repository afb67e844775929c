"""An assertions file read and checked: each entry of `assertions:` and `targets:` as an `Assertion`.

The file's form is assertions.py's docstring; here each entry is validated whole (one kind, known
keys, names, positive integers, a known metric and level), and every error names the file, the
section, the entry's position and the key.

What it leaves out: checking the assertions on runs (assertions.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from ..artifacts.safe_yaml import read_yaml
from .evaluate import METRIC_KEYS

KINDS = ("contains_doc", "excludes_doc", "min_distinct_docs", "max_per_doc", "metric")
METRICS = METRIC_KEYS + ("recall@100",)
KEYS = {"retriever", "query_id", "k", "slice", "level", "at_least", "above_inputs", "best", *KINDS}
SECTIONS = ("assertions", "targets")
ANY = "*"


@dataclass(frozen=True)
class Assertion:
    index: int  # position in the file's list, for messages
    kind: str  # one of KINDS
    retriever: tuple[str, ...]  # run names; ("*",) = every run
    query_id: tuple[str, ...] = ()  # ("*",) = every question; () for a metric
    k: int = 5
    docs: tuple[str, ...] = ()  # contains_doc, excludes_doc
    n: int = 0  # min_distinct_docs, max_per_doc
    metric: str = ""
    level: str = "chunk"
    slice: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    at_least: float = 0.0
    above_inputs: float | None = None  # metric: at least this much above the best input run
    best: bool = False  # metric: one result for the best of the runs named
    gate: bool = True  # False for a target: reported, never failing


class AssertionFileError(ValueError):
    """A malformed assertions file; the message names the file, the entry and the key."""


def _names(value: Any, where: str) -> tuple[str, ...]:
    """One name or a list of names (numbers allowed: BEIR ids) as strings."""
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in items):
        raise AssertionFileError(f"{where}: expected a name or a list of names, got {value!r}")
    return tuple(str(v) for v in items)


def _positive_int(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise AssertionFileError(f"{where}: expected a positive integer, got {value!r}")
    return value


def parse_entry(entry: Any, where: str, index: int, gate: bool = True) -> Assertion:
    """One validated entry; `where` prefixes every message ("file: assertions[3]")."""
    if not isinstance(entry, dict):
        raise AssertionFileError(f"{where}: expected a mapping, got {entry!r}")
    unknown = sorted(set(map(str, entry)) - KEYS)
    if unknown:
        raise AssertionFileError(f"{where}: {unknown[0]}: unknown key (known: {', '.join(sorted(KEYS))})")
    kinds = [kind for kind in KINDS if kind in entry]
    if len(kinds) != 1:
        raise AssertionFileError(f"{where}: needs exactly one of {', '.join(KINDS)}, got {kinds or 'none'}")
    kind = kinds[0]
    if "retriever" not in entry:
        raise AssertionFileError(f"{where}: retriever: missing")
    retriever = _names(entry["retriever"], f"{where}: retriever")
    if kind == "metric":
        for key in ("query_id", "k"):
            if key in entry:
                raise AssertionFileError(f"{where}: {key}: does not apply to a metric assertion")
        metric = entry["metric"]
        if metric not in METRICS:
            raise AssertionFileError(f"{where}: metric: unknown metric {metric!r} (one of {', '.join(METRICS)})")
        level = entry.get("level", "chunk")
        if level not in ("chunk", "doc"):
            raise AssertionFileError(f"{where}: level: expected chunk or doc, got {level!r}")
        raw_slice = entry.get("slice") or {}
        if not isinstance(raw_slice, dict):
            raise AssertionFileError(f"{where}: slice: expected a mapping of question field to value, got {raw_slice!r}")
        if ("at_least" in entry) == ("above_inputs" in entry):
            raise AssertionFileError(f"{where}: a metric entry needs exactly one of at_least, above_inputs")
        bound = "at_least" if "at_least" in entry else "above_inputs"
        value = entry[bound]
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise AssertionFileError(f"{where}: {bound}: expected a number, got {value!r}")
        best = entry.get("best", False)
        if not isinstance(best, bool) or (best and bound != "at_least"):
            raise AssertionFileError(f"{where}: best: expected true or false, and only with at_least")
        return Assertion(index, kind, retriever, metric=metric, level=level, best=best, gate=gate,
                         at_least=float(value) if bound == "at_least" else 0.0,
                         above_inputs=float(value) if bound == "above_inputs" else None,
                         slice={str(f): _names(v, f"{where}: slice: {f}") for f, v in raw_slice.items()})
    for key in ("slice", "level", "at_least", "above_inputs", "best"):
        if key in entry:
            raise AssertionFileError(f"{where}: {key}: applies only to a metric assertion")
    if "query_id" not in entry:
        raise AssertionFileError(f"{where}: query_id: missing")
    query_id = _names(entry["query_id"], f"{where}: query_id")
    if kind in ("contains_doc", "excludes_doc") and ANY in query_id:
        raise AssertionFileError(f"{where}: query_id: '*' cannot be used with {kind}, whose documents are per question")
    k = _positive_int(entry.get("k", 5), f"{where}: k")
    if kind in ("contains_doc", "excludes_doc"):
        return Assertion(index, kind, retriever, query_id, k, docs=_names(entry[kind], f"{where}: {kind}"), gate=gate)
    return Assertion(index, kind, retriever, query_id, k, n=_positive_int(entry[kind], f"{where}: {kind}"), gate=gate)


def load_assertions(path: str | Path) -> list[Assertion]:
    """Parse and validate an assertions file; every error names the file and the entry."""
    try:
        data = read_yaml(path)
    except yaml.YAMLError as exc:
        raise AssertionFileError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("assertions"), list):
        raise AssertionFileError(f"{path}: expected a mapping with a list under 'assertions'")
    unknown = sorted(set(map(str, data)) - set(SECTIONS))
    if unknown:
        raise AssertionFileError(f"{path}: {unknown[0]}: unknown section (known: {', '.join(SECTIONS)})")
    targets = data.get("targets") or []
    if not isinstance(targets, list):
        raise AssertionFileError(f"{path}: targets: expected a list")
    return ([parse_entry(entry, f"{path}: assertions[{i}]", i) for i, entry in enumerate(data["assertions"])]
            + [parse_entry(entry, f"{path}: targets[{i}]", i, gate=False) for i, entry in enumerate(targets)])
