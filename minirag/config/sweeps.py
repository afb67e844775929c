"""A retriever's `sweep: {param: [values]}`: one more retriever per value, `name@param=value`, each its own run.

Each point is checked as its kind checks any retriever, and only a kind's `sweepable` settings may vary.

What it leaves out: plotting a sweep (stages/sweep_figure.py) and reporting it (report/).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..rank.kinds import RetrieverKind
from ..settings import SettingsError


def expand_sweeps(retrievers: Mapping[str, Any], where: str) -> tuple[dict[str, RetrieverKind], dict[str, tuple]]:
    """(every retriever and sweep point as its kind, in config order; each point's (retriever swept, parameter))."""
    kinds: dict[str, RetrieverKind] = {}
    swept: dict[str, tuple[str, str]] = {}
    for name, spec in retrievers.items():
        key = f"{where}.{name}"
        kind = kinds[name] = RetrieverKind.from_spec(spec, key)
        sweep = spec.get("sweep") or {}
        if not isinstance(sweep, Mapping):
            raise SettingsError(f"{key}.sweep: expected a mapping of parameter -> list of values")
        for param, values in sweep.items():
            if param not in kind.sweepable:
                raise SettingsError(f"{key}.sweep.{param}: not a sweepable parameter of {kind.type!r} "
                                    f"(sweepable: {', '.join(kind.sweepable) or 'none'})")
            if not isinstance(values, list) or not values:
                raise SettingsError(f"{key}.sweep.{param}: expected a non-empty list of values")
            for value in values:
                point = sweep_name(name, param, value)
                kinds[point] = RetrieverKind.from_spec({**kind.spec(), param: value}, f"{key}.sweep.{param}")
                swept[point] = (name, param)
    return kinds, swept


def sweep_name(name: str, param: str, value: Any) -> str:
    """The retriever a sweep point becomes, e.g. `rrf@k=20`: its own run, its own evaluation."""
    return f"{name}@{param}={value}"
