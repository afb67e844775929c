"""The experiment config: one corpus's settings, checked, and typed.

`workflow/config.yaml` names one or more corpora; each says where its documents and
questions are and how every stage treats them. `checked_corpus` builds every section from
its settings dataclass (sections.py: the only homes of the defaults are the dataclasses of the
code that reads them), each named entry as its kind, checks types, bounds, cross-field rules and
every name a setting refers to, with the key path in the message, and returns the typed tree
(typed.py `Corpus`); `corpus_config` is its serialised form, plain builtins. Each stage's spec
(beside its function in minirag/stages/) takes exactly the values it reads, so Snakemake reruns a stage only when one
of *its* values changes.

Named collections (`embedders`, `bm25`, `retrievers`) replace the defaults whole: a
config that lists its retrievers means exactly those. A retriever's `sweep: {param:
[values]}` becomes one more retriever per value, `name@param=value`, each its own run.

What it leaves out: reading YAML (Snakemake and the CLI do that) and any file I/O.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import replace
from typing import Any, Mapping

from ..answer.readers import Reader
from ..artifacts.layout import RESULTS_FOLDERS
from ..datasets.beir import refuse_training_on
from ..index.bm25.index import BM25Settings
from ..index.embedders import EmbedderKind
from ..settings import SettingsError, check_name, named_entries, settings_from_dict
from ..text.corpus import GLOBS
from .domain import domain_defaults, refuse_domain_settings
from .sections import COLLECTIONS, CorpusSettings
from .sweeps import expand_sweeps
from .typed import Corpus, source_langs


class ConfigError(ValueError):
    """A config value that is missing, unknown or inconsistent; the message names the key."""


def corpus_names(config: dict) -> list[str]:
    """The corpora to build: `build` if the config sets it, else every corpus it names.

    Snakemake merges a `--configfile` into workflow/config.yaml, so a config for another
    corpus says `build: [itself]` rather than relying on the default's corpora vanishing.
    """
    corpora = config.get("corpora") or {}
    if not corpora:
        raise ConfigError("config: 'corpora' must name at least one corpus")
    names = config.get("build") or list(corpora)
    for name in names:
        if name not in corpora:
            raise ConfigError(f"build: unknown corpus {name!r} (have: {', '.join(corpora)})")
    return list(names)


def corpus_config(config: dict, corpus: str) -> dict:
    """The full, checked settings of one corpus as builtins; errors name the key path."""
    return dict(checked_corpus(config, corpus).config)


def checked_corpus(config: dict, corpus: str) -> Corpus:
    """One corpus's checked settings, typed (typed.py); errors name the key path."""
    corpora = config.get("corpora") or {}
    if corpus not in corpora:
        raise ConfigError(f"corpora: no corpus named {corpus!r} (have: {', '.join(corpora)})")
    where = f"corpora.{corpus}"
    try:
        check_name(corpus, "corpora")
        if corpus in RESULTS_FOLDERS:
            raise SettingsError(f"{where}: {corpus!r} is a folder results/ keeps for itself "
                                f"({', '.join(RESULTS_FOLDERS)}); name the corpus otherwise")
        return _checked_corpus(corpora[corpus] or {}, where)
    except SettingsError as exc:
        raise ConfigError(str(exc)) from None


def _checked_corpus(user: Mapping[str, Any], where: str) -> Corpus:
    if not isinstance(user, Mapping):
        raise SettingsError(f"{where}: expected a mapping, got {type(user).__name__}")
    if "reader" in user:
        raise SettingsError(f"{where}.reader: replaced by `readers:`, a name for each reader: "
                            "readers: {extractive: {type: extractive}}")
    sections = settings_from_dict(CorpusSettings, {k: v for k, v in user.items() if k not in COLLECTIONS}, where)
    if not sections.source.glob:  # the format's own: every file of a folder, the .md files of a markdown one
        sections = replace(sections, source=replace(sections.source, glob=GLOBS.get(sections.source.format, "")))
    langs = source_langs(sections.source)

    def entries(key: str) -> dict[str, Any]:  # a named collection, with the defaults the domain gives its entries
        return {name: domain_defaults(key, spec, sections.domain, langs)
                for name, spec in named_entries(user, key, COLLECTIONS[key], where).items()}

    retrievers, swept = expand_sweeps(entries("retrievers"), f"{where}.retrievers")
    readers = {}
    for name, spec in entries("readers").items():
        reader_cls, reader = Reader.settings_of(spec, f"{where}.readers.{name}")
        readers[name] = reader_cls, reader_cls.for_source(reader, sections.source)
    corpus = Corpus.typed(
        sections, embedders={name: EmbedderKind.from_spec(spec, f"{where}.embedders.{name}")
                             for name, spec in entries("embedders").items()},
        bm25={name: settings_from_dict(BM25Settings, spec or {}, f"{where}.bm25.{name}")
              for name, spec in named_entries(user, "bm25", COLLECTIONS["bm25"], where).items()},
        retrievers=retrievers, readers=readers, swept=swept)
    refuse_domain_settings(corpus, where)
    check_references(corpus, where)
    warn_unread_evidence(corpus, where)
    check_runs(corpus, where)
    return corpus


def check_runs(corpus: Corpus, where: str) -> None:
    """The runs a corpus builds and answers exist, and can be built as it is split."""
    if corpus.shards > 1:
        units = [name for name, index in corpus.bm25.items() if index.items == "units"]
        if units:
            raise SettingsError(f"{where}.bm25.{units[0]}.items: units are indexed from the whole corpus's units; "
                                "with shards > 1 index chunks (items: chunks) or remove the index")
    have = ", ".join(corpus.retrievers)
    if corpus.serve and corpus.serve not in corpus.retrievers:
        raise SettingsError(f"{where}.serve: unknown retriever {corpus.serve!r} (have: {have})")
    unknown = [(i, n) for i, n in enumerate(corpus.answer) if n != "*" and n not in corpus.retrievers]
    if unknown:
        i, name = unknown[0]
        raise SettingsError(f"{where}.answer[{i}]: unknown retriever {name!r} (have: {have}; or * for every run)")


def warn_unread_evidence(corpus: Corpus, where: str) -> None:
    """A reader that trains on more evidence lines than the prompt holds never reads the rest."""
    held = corpus.prompt.evidence_lines
    for name, reader in corpus.reader_settings.items():
        if getattr(reader, "evidence_lines", 0) > held:
            warnings.warn(f"{where}.readers.{name}.evidence_lines: {reader.evidence_lines} is more than the "
                          f"prompt holds ({where}.prompt.evidence_lines: {held}); it trains on lines it never reads",
                          UserWarning, stacklevel=2)


def check_references(corpus: Corpus, where: str) -> None:
    for name, kind in corpus.retrievers.items():
        kind.check(name, corpus, f"{where}.retrievers.{name}")
        if kind.reader() is not None and not corpus.answered():  # the graph trains readers only to answer runs
            raise SettingsError(f"{where}.retrievers.{name}.reader: the corpus answers no run (answer:), so reader "
                                f"{kind.reader()!r} is never trained")
    for name in corpus.retrievers:
        upstream_closure(corpus, name, f"{where}.retrievers")
    try:
        refuse_training_on(corpus.source.train_split, corpus.source.split, f"{where}.source.train_split")
    except ValueError as exc:
        raise SettingsError(str(exc)) from None
    for name, kind in corpus.embedders.items():
        kind.check(corpus, f"{where}.embedders.{name}")
    if corpus.diagnose.embedder not in corpus.embedders:
        raise SettingsError(f"{where}.diagnose.embedder: unknown embedder {corpus.diagnose.embedder!r} "
                            f"(have: {', '.join(corpus.embedders) or 'none'})")


def upstream_closure(corpus: Corpus, name: str, key: str, seen: tuple = ()) -> None:
    if name in seen:
        raise SettingsError(f"{key}.{name}: retrievers form a cycle ({' -> '.join(seen + (name,))})")
    for other in corpus.retrievers[name].upstream():
        upstream_closure(corpus, other, key, seen + (name,))


def params_json(value: Any) -> str:
    """A stage's settings as canonical JSON: sorted keys, so equal settings compare equal."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
