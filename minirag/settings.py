"""Settings dataclasses: declare a setting once, with its default and bounds; read and check it.

Every configurable value of minirag is a field of a frozen dataclass that lives beside the
code that reads it (`ChunkSettings` in text/chunker.py, `BM25Params` in index/bm25/index.py, ...).
The field is the only home of its default; `setting()` adds the bounds that the JSON
schema (config/schema.py) and `settings_from_dict` both read, so the two cannot disagree:

    k1: float = setting(1.5, minimum=0)   # term-frequency saturation

`Kind` is the base of the registries (retriever kinds, embedder kinds, readers): a config
entry `{type: name, ...}` names a registered subclass, whose `Settings` dataclass the rest
of the entry fills.

`settings_from_dict` builds a dataclass from config builtins strictly: an unknown key is an
error naming it (a typo such as "temprature" cannot pass as a default), every value is
type- and bound-checked with its key path, lists become tuples, nested dataclasses are
built recursively. `settings_to_dict` is the inverse, in field order, with config keys.
A field whose config key is a Python keyword (MMR's `lambda`) names its key in `key=`.
A dataclass whose keys depend on one field's value (a chunk strategy, a source format)
declares them in `READS = (field, {value: keys it reads})`: a key written beside a value
that does not read it is an error naming the keys it does read (`chunk: {strategy: tokens,
size: 80}` would otherwise do nothing, silently). Keys in no list are read by every value.

What it leaves out: cross-field rules (a dataclass's `check()` holds those) and anything
about which stage reads which setting (config/corpus.py).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import types
import typing
import warnings
from dataclasses import MISSING, field, fields
from typing import Any, ClassVar, Literal, Mapping, TypeVar

T = TypeVar("T")

BOUNDS = ("minimum", "maximum", "exclusive_minimum", "min_length", "min_items", "pattern")
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]*$"  # a name that becomes part of a file path
PATH_PATTERN = r"^[^{}]*$"  # a path a rule reads: Snakemake takes {...} in an input path for a wildcard


class SettingsError(ValueError):
    """A setting of the wrong type, out of bounds, or unknown; the message starts with its key path."""


def setting(default: Any = MISSING, *, key: str | None = None, factory: Any = MISSING, **bounds: Any):
    """A dataclass field with its bounds (`minimum`, `maximum`, `exclusive_minimum`,
    `min_length`, `min_items`, `pattern`) and, when it differs from the field name, its config key."""
    unknown = set(bounds) - set(BOUNDS)
    if unknown:
        raise TypeError(f"setting(): unknown bound(s) {sorted(unknown)}")
    metadata = {"bounds": bounds, "key": key}
    if factory is not MISSING:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def config_key(f: dataclasses.Field) -> str:
    return f.metadata.get("key") or f.name


@functools.cache
def type_hints(cls: type) -> dict[str, Any]:
    # resolving the annotations is most of what checking a setting costs, and a class's never
    # change: the Snakefile checks the same few kinds' settings hundreds of times while it plans
    return typing.get_type_hints(cls)


def _fail(where: str, msg: str) -> typing.NoReturn:
    raise SettingsError(f"{where}: {msg}")


def coerce(value: Any, hint: Any, where: str) -> Any:
    """`value` checked against the type hint (and converted: list -> tuple, dict -> dataclass)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        rest = [a for a in args if a is not type(None)]
        return coerce(value, rest[0], where)
    if origin is Literal:
        if value not in args:
            _fail(where, f"{value!r} is not one of {', '.join(map(str, args))}")
        return value
    if origin is tuple:
        if value is None:
            return ()
        if not isinstance(value, (list, tuple)):
            _fail(where, f"expected a list, got {type(value).__name__}")
        return tuple(coerce(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
    if dataclasses.is_dataclass(hint):
        if isinstance(value, hint):
            return value
        if not isinstance(value, Mapping):
            _fail(where, f"expected a mapping, got {type(value).__name__}")
        return settings_from_dict(hint, value, where)
    if hint is bool:
        if not isinstance(value, bool):
            _fail(where, f"expected true or false, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            _fail(where, f"expected an integer, got {value!r}")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            _fail(where, f"expected a number, got {value!r}")
        if isinstance(value, float) and not math.isfinite(value):  # YAML's .nan passes every bound check
            _fail(where, f"expected a finite number, got {value!r}")
        return float(value) if isinstance(value, int) else value
    if hint is str:
        if not isinstance(value, str):
            _fail(where, f"expected a string, got {value!r}")
        return value
    return value


def did_you_mean(key: str, known: typing.Iterable[str]) -> str:
    """", did you mean 'chunk'?" for the known key nearest a typo, or "" when none is near."""
    import difflib
    near = difflib.get_close_matches(str(key), sorted(known), n=1, cutoff=0.6)
    return f", did you mean {near[0]!r}?" if near else ""


def check_bounds(value: Any, bounds: Mapping[str, Any], where: str) -> None:
    import re
    if value is None:
        return
    if "minimum" in bounds and value < bounds["minimum"]:
        _fail(where, f"{value!r} is below the minimum {bounds['minimum']}")
    if "maximum" in bounds and value > bounds["maximum"]:
        _fail(where, f"{value!r} is above the maximum {bounds['maximum']}")
    if "exclusive_minimum" in bounds and value <= bounds["exclusive_minimum"]:
        _fail(where, f"{value!r} must be greater than {bounds['exclusive_minimum']}")
    if "min_length" in bounds and len(value) < bounds["min_length"]:
        _fail(where, "must not be empty" if bounds["min_length"] == 1 else f"shorter than {bounds['min_length']}")
    if "min_items" in bounds and len(value) < bounds["min_items"]:
        _fail(where, f"needs at least {bounds['min_items']} item(s)")
    if "pattern" in bounds and not re.fullmatch(bounds["pattern"].strip("^$"), value):
        _fail(where, f"{value!r} does not match {bounds['pattern']}")


_WARNED: set[tuple[str, str]] = set()


def check_name(name: Any, where: str) -> None:
    """A name becomes part of file paths: letters, digits, '-' and '_' only, never '.' or '/'."""
    if not isinstance(name, str):
        _fail(where, f"name {name!r} must be a string")
    check_bounds(name, {"pattern": NAME_PATTERN}, f"{where}.{name}")


def named_entries(user: Mapping[str, Any], key: str, default: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The named collection `key` of a config section (else `default`), each name checked."""
    value = user[key] if key in user else default
    if not isinstance(value, Mapping) or not value:
        _fail(f"{where}.{key}", "name at least one entry")
    for name in value:
        check_name(name, f"{where}.{key}")
    return dict(value)


def renamed_keys(values: Mapping[str, Any], renamed: Mapping[str, str], what: str) -> Mapping[str, Any]:
    """`values` with each old key of a renamed setting under its new name (a class's RENAMED: old ->
    new): a FutureWarning once per key, and an error when both names are given."""
    if not renamed or not set(renamed) & set(values):
        return values
    out = dict(values)
    for old, new in renamed.items():
        if old not in out:
            continue
        if new in out:
            _fail(what, f"{old!r} and {new!r} are the same setting under its old and new name: give {new!r} only")
        if (new, old) not in _WARNED:
            _WARNED.add((new, old))
            warnings.warn(f"{what}.{old} is now called {new!r}; the old name is accepted for this release only",
                          FutureWarning, stacklevel=3)
        out[new] = out.pop(old)
    return out


def settings_from_dict(cls: type[T], values: Mapping[str, Any], what: str) -> T:
    """Build `cls` from config builtins, checking keys, types and bounds; errors name `what.key`."""
    if not isinstance(values, Mapping):
        _fail(what, f"expected a mapping, got {type(values).__name__}")
    values = renamed_keys(values, getattr(cls, "RENAMED", {}), what)
    hints = type_hints(cls)
    by_key = {config_key(f): f for f in fields(cls)}
    unknown = sorted(set(values) - set(by_key))
    if unknown:
        _fail(what, f"unknown option(s) {', '.join(map(repr, unknown))}{did_you_mean(unknown[0], by_key)} "
                    f"(known: {', '.join(sorted(by_key))})")
    missing = [key for key, f in by_key.items()
               if key not in values and f.default is MISSING and f.default_factory is MISSING]
    if missing:
        _fail(what, f"{missing[0]!r} is required")
    clean = {}
    for key, value in values.items():
        f = by_key[key]
        where = f"{what}.{key}"
        clean[f.name] = coerce(value, hints[f.name], where)
        # numbers are checked as written (2, not 2.0), the rest as converted (a list as a tuple)
        shown = value if isinstance(value, (int, float)) and not isinstance(value, bool) else clean[f.name]
        check_bounds(shown, f.metadata.get("bounds", {}), where)
    obj = cls(**clean)
    refuse_unread(cls, values, obj, what)
    check = getattr(obj, "check", None)
    if check is not None:
        check(what)
    return obj


def refuse_unread(cls: type, values: Mapping[str, Any], obj: Any, what: str) -> None:
    """A key given that the chosen value of the class's `READS` field does not read: an error."""
    reads = getattr(cls, "READS", None)
    if reads is None:
        return
    by, table = reads
    chosen = getattr(obj, by)
    specific = {key for keys in table.values() for key in keys}
    for key in values:
        if key in specific and key not in table[chosen]:
            read = ", ".join(table[chosen]) or "no other key"
            _fail(f"{what}.{key}", f"not read when {by} is {chosen!r} (it reads: {read})")


def read_only(cls: type, values: Mapping[str, Any]) -> dict[str, Any]:
    """A whole settings dict (as `settings_to_dict` writes it) without the keys the chosen value of the
    class's `READS` field does not read: they hold their defaults (`refuse_unread` refuses them given),
    so parsing what is left back gives the same settings."""
    reads = getattr(cls, "READS", None)
    if reads is None:
        return dict(values)
    by, table = reads
    unread = {key for keys in table.values() for key in keys} - set(table.get(values[by], ()))
    return {k: v for k, v in values.items() if k not in unread}


_CHECKED: dict[tuple[type, str], Any] = {}


def checked_settings(cls: type[T], values: Mapping[str, Any], what: str) -> T:
    """`settings_from_dict`, remembered per class and values: planning the graph asks for the
    same retriever's or embedder's kind hundreds of times, and the settings are frozen."""
    try:
        key = (cls, json.dumps(values, sort_keys=True))
    except (TypeError, ValueError):  # not plain builtins: check them every time
        return settings_from_dict(cls, values, what)
    if key not in _CHECKED:
        _CHECKED[key] = settings_from_dict(cls, values, what)
    return _CHECKED[key]


def to_builtin(value: Any) -> Any:
    if dataclasses.is_dataclass(value):
        return settings_to_dict(value)
    if isinstance(value, tuple):
        return [to_builtin(v) for v in value]
    return value


def settings_to_dict(obj: Any) -> dict[str, Any]:
    """The dataclass as config builtins (tuples as lists), fields in declaration order."""
    return {config_key(f): to_builtin(getattr(obj, f.name)) for f in fields(obj)}


class Kind:
    """A registered kind of something a config names by `type:` (a retriever, an embedder, a reader).

    A family base sets `registry` (a dict) and `label` ("retriever type"); each subclass with a
    `type` registers itself there by being defined, and holds its `Settings` dataclass.
    `from_spec` builds the kind a config entry names, its settings checked with key paths.
    """
    type: ClassVar[str]
    Settings: ClassVar[type]
    registry: ClassVar[dict]
    label: ClassVar[str] = "type"
    not_settings: ClassVar[tuple[str, ...]] = ("type",)  # entry keys that are not the kind's settings

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "type" in cls.__dict__:
            cls.registry[cls.type] = cls

    def __init__(self, settings: Any):
        self.s = settings

    @classmethod
    def settings_of(cls, spec: Mapping[str, Any], where: str) -> tuple[type, Any]:
        """(the registered class an entry names, its settings), checked."""
        if not isinstance(spec, Mapping):
            _fail(where, f"expected a mapping with a 'type', got {type(spec).__name__}")
        kind = spec.get("type")
        if kind not in cls.registry:
            _fail(f"{where}.type", f"unknown {cls.label} {kind!r} ({', '.join(cls.registry)})")
        found = cls.registry[kind]
        values = {k: v for k, v in spec.items() if k not in cls.not_settings}
        return found, checked_settings(found.Settings, values, where)

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], where: str):
        found, settings = cls.settings_of(spec, where)
        return found(settings)

    def spec(self) -> dict[str, Any]:
        return {"type": self.type, **settings_to_dict(self.s)}


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """{"chunk.target_tokens": 40, ...}: nested mappings as dotted key paths (lists stay whole)."""
    if not isinstance(value, dict):
        return {prefix: value}
    out: dict[str, Any] = {}
    for k, v in value.items():
        out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    return out
