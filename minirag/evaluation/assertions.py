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

What it leaves out: reading the file (assertion_file.py), the CLI exit code and the stage
(cli.py, stages/assertions.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping, Sequence

from ..rank.ranking import Ranking
from .assertion_file import ANY, Assertion
from .evaluate import mean


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
