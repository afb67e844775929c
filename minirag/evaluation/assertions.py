"""A regression gate in the seed write-up's form: assertions on runs, each PASS or FAIL.

An assertions file (YAML, one per corpus) holds a list under `assertions:`; each entry
checks exactly one thing:

    - {query_id: q1, retriever: bm25, contains_doc: en/irregular-verbs.md, k: 5}
          the top k holds a chunk of document D (a list: of any of them)
    - {query_id: q1, retriever: bm25, excludes_doc: en/overview.md, k: 1}
          the top k holds no chunk of D (a pointer page must not take the gold's place)
    - {query_id: q1, retriever: bm25, min_distinct_docs: 2, k: 5}
          the top k comes from at least n distinct documents
    - {query_id: q1, retriever: rrf_cap, max_per_doc: 2, k: 5}
          no document has more than n chunks in the top k
    - {retriever: rrf, metric: hit@5, slice: {lang: cross}, level: chunk, at_least: 0.5}
          the mean of a metric over the answerable questions of a slice is at least x

A metric entry may instead compare: `above_inputs: m` passes when the run's metric is at
least m above the best of the runs it reads (a fusion against its channels; the inputs
come from the config), and `best: true` turns the runs named into one result, passing when
the best of them reaches `at_least`.

Besides the gate (`assertions:`), a file may hold `targets:`, entries of the same form for
figures a spec asks for (the seed's "hybrid >= best channel + 5 pp", "recall@5 >= 0.95"):
they are checked and reported as met or not met, but never fail a build or `assert`.

`k` defaults to 5, `level` to chunk, `slice` to every answerable question. A slice maps
question fields to a value or a list of values (any of them); a list-valued field such
as `tags` matches when it contains the value. `retriever` and `query_id` take one name,
a list, or "*" (every run given to `check`, every question); an entry expands into one
result per (retriever, question), retriever-major, and each counts in "N of M passed".
"*" is not allowed with contains_doc or excludes_doc, whose documents are per question.
A retriever or question absent from the runs is a FAIL, not an error, so a renamed run
cannot make the gate pass silently.

What it leaves out: the CLI exit code and the stage (cli.py, stages/assertions.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

import yaml

from ..rank.ranking import Ranking
from ..safe_yaml import read_yaml
from .evaluate import METRIC_KEYS, mean

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


@dataclass(frozen=True)
class Result:
    index: int  # the assertion's position in its section of the file
    text: str  # what was asserted, readable
    passed: bool
    observed: str  # what the runs showed
    retriever: str = ""  # the run it is about (the best one, for `best`)
    value: float | None = None  # the metric observed, for metric entries
    gate: bool = True  # an assertion of the gate; False: a target
    check: str = ""  # what kind of check: one of KINDS, or "above_inputs", "best"

    @property
    def status(self) -> str:
        return "PASS" if self.passed else "FAIL"

    def to_record(self) -> dict:
        return {"index": self.index, "assertion": self.text, "passed": self.passed, "observed": self.observed,
                "retriever": self.retriever, "value": self.value, "gate": self.gate, "check": self.check}


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


def in_slice(question: dict, where: Mapping[str, tuple[str, ...]]) -> bool:
    """Every field matches one of its values; a list field matches if it holds one. A question
    with no split is a test question."""
    for fld, values in where.items():
        value = question.get(fld) or ("test" if fld == "split" else None)
        held = value if isinstance(value, list) else [value]
        if not any(str(v) in values for v in held if v is not None):
            return False
    return True


def _expand(names: tuple[str, ...], every: list[str]) -> list[str]:
    return every if ANY in names else list(names)


def _check_top(a: Assertion, retriever: str, qid: str, runs: dict, doc_of: Mapping[str, str]) -> Result:
    what = {"contains_doc": f"top {a.k} contains {' or '.join(a.docs)}",
            "excludes_doc": f"top {a.k} does not contain {' or '.join(a.docs)}",
            "min_distinct_docs": f"top {a.k} from at least {a.n} distinct documents",
            "max_per_doc": f"no document more than {a.n} of the top {a.k}"}[a.kind]
    text = f"{retriever} {qid}: {what}"
    if retriever not in runs:
        return Result(a.index, text, False, f"no run named {retriever}", retriever, gate=a.gate)
    if qid not in runs[retriever]:
        return Result(a.index, text, False, f"query {qid} not in run {retriever}", retriever, gate=a.gate)
    docs = [doc_of[cid] for cid, _ in runs[retriever][qid][:a.k]]
    observed = f"top {a.k} docs: {', '.join(docs) or '(none)'}"
    counts = {d: docs.count(d) for d in docs}
    if a.kind == "contains_doc":
        passed = any(d in counts for d in a.docs)
    elif a.kind == "excludes_doc":
        passed = not any(d in counts for d in a.docs)
    elif a.kind == "min_distinct_docs":
        passed = len(counts) >= a.n
        observed += f" ({len(counts)} distinct)"
    else:
        most = max(counts, key=lambda d: counts[d]) if counts else None
        passed = most is None or counts[most] <= a.n
        observed += f" (most: {most} × {counts[most]})" if most else ""
    return Result(a.index, text, passed, observed, retriever, gate=a.gate)


def slice_mean(a: Assertion, retriever: str, questions: list[dict], metrics: Mapping) -> tuple[float, int] | None:
    """(mean of the metric over the slice's answerable questions, their number); None if there is none."""
    by_qid = metrics.get(retriever, {}).get(a.level) or {}
    values = [by_qid[q["qid"]][a.metric] for q in questions if q["qid"] in by_qid and in_slice(q, a.slice)]
    return (mean(values), len(values)) if values else None


def _check_metric(a: Assertion, retriever: str, questions: list[dict], metrics: Mapping,
                  inputs_of: Mapping[str, Sequence[str]]) -> Result:
    where = ", ".join(f"{f}={'|'.join(v)}" for f, v in a.slice.items()) or "all questions"
    bound = (f"at least {a.above_inputs * 100:g} pp above the best of its inputs" if a.above_inputs is not None
             else f"at least {a.at_least:g}")
    text = f"{retriever}: {a.metric} ({a.level}) on {where} {bound}"
    if retriever not in metrics:
        return Result(a.index, text, False, f"no metrics for run {retriever}", retriever, gate=a.gate)
    got = slice_mean(a, retriever, questions, metrics)
    if got is None:
        return Result(a.index, text, False, "no answerable question in the slice", retriever, gate=a.gate)
    value, n = got
    observed = f"{a.metric} = {value:.3f} over {n} questions"
    if a.above_inputs is None:
        return Result(a.index, text, value >= a.at_least, observed, retriever, value, a.gate)
    inputs = [(slice_mean(a, r, questions, metrics) or (0.0, 0))[0] for r in inputs_of.get(retriever, ())]
    if not inputs:
        return Result(a.index, text, False, f"{observed}; the run reads no other run", retriever, value, a.gate)
    best_input = max(zip(inputs, inputs_of[retriever]))
    passed = value >= best_input[0] + a.above_inputs - 1e-9
    return Result(a.index, text, passed, f"{observed}; best input {best_input[1]} {best_input[0]:.3f} "
                  f"({(value - best_input[0]) * 100:+.1f} pp)", retriever, value, a.gate)


def _check_best(a: Assertion, retrievers: list[str], questions: list[dict], metrics: Mapping) -> Result:
    where = ", ".join(f"{f}={'|'.join(v)}" for f, v in a.slice.items()) or "all questions"
    text = f"best of {len(retrievers)} runs: {a.metric} ({a.level}) on {where} at least {a.at_least:g}"
    scored = [(got[0], r) for r in retrievers if (got := slice_mean(a, r, questions, metrics)) is not None]
    if not scored:
        return Result(a.index, text, False, "no run scored on the slice", gate=a.gate)
    value, best = max(scored, key=lambda x: x[0])  # the first run wins a tie
    return Result(a.index, text, value >= a.at_least - 1e-9, f"best is {best} with {a.metric} = {value:.3f}",
                  best, value, a.gate)


def check(assertions: Sequence[Assertion], runs: dict[str, dict[str, Ranking]], doc_of: Mapping[str, str],
          questions: list[dict], per_query_metrics: Mapping,
          inputs_of: Mapping[str, Sequence[str]] | None = None) -> list[Result]:
    """Evaluate every assertion, wildcards expanded, in file order. `per_query_metrics` is
    {retriever: {"chunk" | "doc": {qid: {metric: value}}}} (evaluate.per_query_metrics);
    `inputs_of` maps a run to the runs it reads (for `above_inputs`)."""
    every_run = list(runs)
    every_qid = [q["qid"] for q in questions]
    has_dev = any(q.get("split") == "dev" for q in questions)
    results = []
    for a in assertions:
        if a.kind == "metric" and has_dev and "split" not in a.slice:
            a = replace(a, slice={**a.slice, "split": ("test",)})  # figures are held on test, never on dev
        check = "best" if a.best else "above_inputs" if a.above_inputs is not None else a.kind
        if a.best:
            found = [_check_best(a, _expand(a.retriever, every_run), questions, per_query_metrics)]
        elif a.kind == "metric":
            found = [_check_metric(a, r, questions, per_query_metrics, inputs_of or {})
                     for r in _expand(a.retriever, every_run)]
        else:
            found = [_check_top(a, r, qid, runs, doc_of) for r in _expand(a.retriever, every_run)
                     for qid in _expand(a.query_id, every_qid)]
        results += [replace(r, check=check) for r in found]
    return results


def summary(results: Sequence[Result]) -> str:
    """"N of M passed" over the gate; targets are counted apart."""
    gate = [r for r in results if r.gate]
    line = f"{sum(r.passed for r in gate)} of {len(gate)} passed"
    targets = [r for r in results if not r.gate]
    return line + (f"; targets: {sum(r.passed for r in targets)} of {len(targets)} met" if targets else "")


def format_markdown(results: Sequence[Result]) -> str:
    """One `- PASS|FAIL text — observed` line per assertion, the targets (MET|NOT MET) after
    them, then the summary line."""
    lines = [f"- {r.status} {r.text} — {r.observed}" for r in results if r.gate]
    targets = [f"- {'MET' if r.passed else 'NOT MET'} {r.text} — {r.observed}" for r in results if not r.gate]
    if targets:
        lines += ["", "Targets (reported, never failing):", ""] + targets
    return "\n".join(lines + [""] * bool(lines) + [summary(results)]) + "\n"
