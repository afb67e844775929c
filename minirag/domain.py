"""The extension points a domain fills, and how the core finds the domain that fills one.

The core is generic: a corpus without `domain` gets no lexicon job, no query expansion, the generic answer
selector and analyzers of its own languages. A domain is a package below minirag/domains/ whose
`__init__.py` declares one `Domain`: the config defaults it gives its corpora, the settings only it
serves, the stages it adds, and its hooks, each an extension point named by a string and filled by
"module:attribute". The core asks for a hook by point (`hook(point)`, or `Domain.hook` when it holds the
corpus's domain) and never imports a domain; the domain imports the core.

    DOMAIN = Domain("grammar", hooks={"query.expander": "minirag.domains.grammar.language.expand:QueryExpander"})
    hook("query.expander")            -> the QueryExpander class, imported on first use
    of_corpus("grammar")  -> that Domain;  of_corpus(None) -> None

The extension points (POINTS) are the places where the core's two paths part:

    query.expander          a query expansion over the domain's lexicon (retrievers' `expand`)
    query.word_lists        the word-list files an expansion reads: inputs of its jobs
    select.features         a feature set of the answer selector, by the name readers list in `features`:
                            its columns, its reading of a question, the vocabulary it reads through, the
                            questions it trains on
    questions.synthesize    synthetic questions of a family the domain names (encoders' and fusions'
                            `questions.families`), with their answers
    questions.terms         the concepts its synthesisers phrase questions with (a terms file)
    questions.asker         what phrases a fact as a question for the Mini-GPT's reading tasks
    reader.files            the corpus files its reader reads besides the chunks (lexicon, terms, word lists)

A domain's question tags (`tags`) become columns of losses.csv and slices of the report.

What it leaves out: the settings themselves (config/domain.py fills a domain's defaults and refuses
its settings on a corpus without it) and the stage specs (pipeline/stages/ adds each domain's to the stage modules').
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable, Mapping

PACKAGE = "minirag.domains"
POINTS = ("query.expander", "query.word_lists", "select.features", "questions.synthesize", "questions.terms",
          "questions.asker", "reader.files")


@dataclass(frozen=True)
class Domain:
    """One domain: its name (the value of a corpus's `domain` key) and what it adds to the core.

    defaults:  collection -> (settings field, value): filled into a named entry of that collection when the
               entry's kind has the field and names no value (`readers` -> ("features", ["grammar"]))
    refuse:    (checked corpus config) -> [(key path, what)]: the settings of a corpus without the domain
               that only the domain serves
    stages:    () -> the stage specs it adds to the graph (pipeline/stage.py `Stage`), called when the graph
               is planned (never on the answer path); `stage_specs` plans their jobs on its own corpora only
    features:  the selector feature sets it provides, by name; tags: the question tags it slices by
    hooks:     extension point -> "module:attribute"
    """
    name: str
    hooks: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, tuple[str, Any]] = field(default_factory=dict)
    refuse: Callable[[Any], list[tuple[str, str]]] | None = None  # of a corpus's config/typed.py `Corpus`
    stages: Callable[[], tuple] | None = None
    features: tuple[str, ...] = ()
    question_families: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    def __post_init__(self):
        unknown = sorted(set(self.hooks) - set(POINTS))
        if unknown:
            raise ValueError(f"domain {self.name}: no extension point {unknown[0]!r} (points: {', '.join(POINTS)})")

    def module_of(self, point: str) -> str | None:
        """The module filling `point` (None when the domain leaves the point to the core)."""
        return self.hooks[point].partition(":")[0] if point in self.hooks else None

    def hook(self, point: str) -> Any:
        """The object filling `point`, imported now; None when the domain leaves the point to the core."""
        if point not in self.hooks:
            return None
        module, _, attribute = self.hooks[point].partition(":")
        return getattr(importlib.import_module(module), attribute)

    def stage_specs(self) -> tuple:
        """Its stages, each planning jobs (its own `names`) only on a corpus of this domain."""
        def ours(spec):
            return lambda g: spec.names(g) if g.domain is self else []
        return tuple(replace(spec, names=ours(spec)) for spec in (self.stages() if self.stages is not None else ()))


@lru_cache(maxsize=None)
def load(name: str) -> Domain:
    """The domain declared in minirag/domains/<name>/__init__.py."""
    if name not in names():
        raise ValueError(f"no domain {name!r} (domains: {', '.join(names()) or 'none'})")
    return importlib.import_module(f"{PACKAGE}.{name}").DOMAIN


@lru_cache(maxsize=1)
def names() -> tuple[str, ...]:
    """Every domain below minirag/domains/, by package name."""
    package = importlib.import_module(PACKAGE)
    return tuple(sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.ispkg))


def domains() -> tuple[Domain, ...]:
    return tuple(load(name) for name in names())


def of_corpus(name: str | None) -> Domain | None:
    """The domain a corpus's `domain` names, or None for the generic core."""
    return load(name) if name else None


def hook(point: str, name: str | None = None) -> Any:
    """The object filling `point`: the domain's that provides the selector feature set or question family
    `name`, else the one domain filling the point (an error when none does)."""
    for d in domains():
        if point in d.hooks and (name is None or name in d.features or name in d.question_families):
            return d.hook(point)
    raise ValueError(f"no domain fills {point!r}" + (f" for {name!r}" if name else ""))

