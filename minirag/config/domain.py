"""What the corpus's `domain` decides in its config: the defaults that follow it, and the settings it gates.

    domain_defaults("readers", {"type": "extractive"}, "grammar", ("en", "es"))  -> {..., "features": ["grammar"]}
    domain_defaults("readers", {"type": "extractive"}, None, ("en",))            -> {"type": "extractive"}

Without a domain a corpus keeps the settings dataclasses' defaults, which are the generic core's (the
`extractive` reader's `features: [generic]`, an encoder's generic synthesised questions), and a reranker
that names no analyzer matches words as its own languages do (text/analyze.py `language_analyzer`).
A domain (minirag/domain.py) fills its defaults where the corpus names none: with `domain: grammar` the
KB's settings are what they were before the key existed.

`refuse_domain_settings` stops a corpus that asks for something only a domain does, without that domain,
naming the key path and the domain (the grammar's: query expansion, its feature set, its learner
question family, a terms file).

What it leaves out: which jobs the graph plans for each (the domain's stages and hooks).
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any, Mapping

from ..answer.readers import Reader
from ..domain import domains, load
from ..index.embedders import EmbedderKind
from ..rank.kinds import RetrieverKind
from ..settings import SettingsError, settings_to_dict
from ..text.analyze import language_analyzer

REGISTRIES = {"readers": Reader, "embedders": EmbedderKind, "retrievers": RetrieverKind}


def settings_fields(registry, spec: Any) -> set[str]:
    """The fields of the settings of the kind a config entry names (none for an entry naming no known kind)."""
    kind = registry.registry.get(spec.get("type")) if isinstance(spec, Mapping) else None
    return {f.name for f in fields(kind.Settings)} if kind is not None else set()


def domain_defaults(collection: str, spec: Any, domain: str | None, langs: tuple[str, ...]) -> Any:
    """A named entry's config with the defaults its corpus's domain gives filled in where it names none."""
    if domain is None and collection == "retrievers" and "analyzer" in settings_fields(RetrieverKind, spec):
        # a corpus that names no language: the languages its documents are found in, once curated
        chosen = language_analyzer(langs) if langs else replace(language_analyzer(()), languages="documents")
        return spec if "analyzer" in spec else {**spec, "analyzer": settings_to_dict(chosen)}
    if domain is None or collection not in load(domain).defaults:
        return spec
    key, default = load(domain).defaults[collection]
    if key not in settings_fields(REGISTRIES[collection], spec):
        return spec
    if isinstance(default, dict):  # a nested section: fill its keys, keep the rest the entry gives
        given = spec.get(key) if isinstance(spec.get(key), Mapping) else {}
        return {**spec, key: {**default, **given}} if key not in spec or isinstance(spec[key], Mapping) else spec
    return spec if key in spec else {**spec, key: default}


def refuse_domain_settings(corpus, where: str) -> None:
    """A corpus (typed.py `Corpus`) asking for a setting only a domain serves, without that domain: one line
    naming the key."""
    for d in domains():
        if corpus.domain == d.name or d.refuse is None:
            continue
        for key, what in d.refuse(corpus):
            raise SettingsError(f"{where}.{key}: {what} needs `domain: {d.name}` on the corpus")
