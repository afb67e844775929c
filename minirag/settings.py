"""Build a settings dataclass from a config mapping, strictly.

Config values arrive as JSON/YAML builtins. An unknown key is an error naming it, so a
typo ("temprature") cannot pass silently as a default; lists become tuples (the
dataclasses are frozen or hashed), and None for a tuple-valued field means empty.

What it leaves out: type checks of the values (the config schema does those).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Mapping, TypeVar

T = TypeVar("T")


def settings_from_dict(cls: type[T], values: Mapping[str, Any], what: str) -> T:
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ValueError(f"{what}: unknown option(s) {', '.join(map(repr, unknown))} "
                         f"(known: {', '.join(sorted(known))})")
    clean = {}
    for key, value in values.items():
        if isinstance(value, list):
            value = tuple(value)
        elif value is None and isinstance(known[key].default, tuple):
            value = ()
        clean[key] = value
    return cls(**clean)
