"""What the corpus's `domain` decides in its config: the defaults that follow it, and the settings it gates.

    domain_defaults("readers", {"type": "extractive"}, "grammar", ("en", "es"))  -> {..., "features": ["grammar"]}
    domain_defaults("readers", {"type": "extractive"}, None, ("en",))            -> {"type": "extractive"}

Without a domain a corpus keeps the settings dataclasses' defaults, which are the generic core's (the
`extractive` reader's `features: [generic]`, an encoder's generic synthesised questions), and a reranker
that names no analyzer matches words as its own languages do (text/analyze.py `language_analyzer`).
`domain: grammar` fills the grammar's defaults where the corpus names none, so the KB's settings are
what they were before the key existed.

`refuse_grammar` stops a corpus without the domain that asks for something only the grammar does,
naming the key path: query expansion, the grammar feature set, learner question families, a terms file.

What it leaves out: which jobs the graph plans for each (pipeline/graph.py asks `domain.grammar`).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Mapping

from ..answer.readers import Reader
from ..index.embedders import EmbedderKind
from ..rank.kinds import RetrieverKind
from ..settings import SettingsError, settings_to_dict
from ..text.analyze import language_analyzer

# collection -> (its kinds' registry, the field the default is for, the grammar domain's default)
GRAMMAR_DEFAULTS = {"readers": (Reader, "features", ["grammar"]),
                    "embedders": (EmbedderKind, "questions", {"families": ["learner"]})}
# The expansions of retrievers.<name>.expand: each reads the grammar's lexicon of translations and forms.
EXPANSIONS = ("translations", "forms", "paradigm", "endings", "tenses", "persons")


def settings_fields(registry, spec: Any) -> set[str]:
    """The fields of the settings of the kind a config entry names (none for an entry naming no known kind)."""
    kind = registry.registry.get(spec.get("type")) if isinstance(spec, Mapping) else None
    return {f.name for f in fields(kind.Settings)} if kind is not None else set()


def domain_defaults(collection: str, spec: Any, domain: str | None, langs: tuple[str, ...]) -> Any:
    """A named entry's config with the defaults its corpus's domain gives filled in where it names none."""
    if domain is None and collection == "retrievers" and "analyzer" in settings_fields(RetrieverKind, spec):
        return spec if "analyzer" in spec else {**spec, "analyzer": settings_to_dict(language_analyzer(langs))}
    if domain is None or collection not in GRAMMAR_DEFAULTS:
        return spec
    registry, key, default = GRAMMAR_DEFAULTS[collection]
    if key not in settings_fields(registry, spec):
        return spec
    if isinstance(default, dict):  # a nested section: fill its keys, keep the rest the entry gives
        given = spec.get(key) if isinstance(spec.get(key), Mapping) else {}
        return {**spec, key: {**default, **given}} if key not in spec or isinstance(spec[key], Mapping) else spec
    return spec if key in spec else {**spec, key: default}


def refuse_grammar(cc: dict, where: str) -> None:
    """A corpus without `domain: grammar` that asks for one of the grammar's settings: one line naming it."""
    def refuse(key: str, what: str) -> None:
        raise SettingsError(f"{where}.{key}: {what} needs `domain: grammar` on the corpus")

    if cc["domain"] is not None:
        return
    for name, spec in cc["retrievers"].items():
        for key in EXPANSIONS:
            if spec.get("expand", {}).get(key):
                refuse(f"retrievers.{name}.expand.{key}", "query expansion through the grammar's lexicon")
        if "learner" in spec.get("fit_questions", {}).get("families", ()):
            refuse(f"retrievers.{name}.fit_questions.families", "the learner question family")
    for name, spec in cc["embedders"].items():
        if "learner" in spec.get("questions", {}).get("families", ()):
            refuse(f"embedders.{name}.questions.families", "the learner question family")
    for name, spec in cc["readers"].items():
        if "grammar" in spec.get("features", ()):
            refuse(f"readers.{name}.features", "the grammar feature set")
    if cc["candidates"]["terms"]:
        refuse("candidates.terms", "a grammatical-terms file")
