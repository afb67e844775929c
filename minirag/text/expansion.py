"""How a retriever expands a query through a domain's lexicon: its settings, the one place they are declared,
and what a retriever asks of the expander.

The expansion itself is a domain's (minirag/domain.py, extension point "query.expander"; the grammar's
is domains/grammar/language/expand.py): a corpus says how much of it a BM25 channel or a reranker uses
here, and the config checks refuse any of it on a corpus without a domain that expands (config/domain.py),
so the settings are read by every config, the expander only by the domain's jobs.

What it leaves out: expanding, and the lexicon an expander reads (the domain's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..settings import setting


class QueryExpander(Protocol):
    """What a retriever asks of a domain's expander: a query as concepts, each matched by any of its
    alternative index terms at that term's weight (bm25/index.py `search_concepts`)."""

    def concepts(self, query: str) -> list: ...


@dataclass(frozen=True)
class ExpansionSettings:
    translations: float = setting(0.0, minimum=0, maximum=1)  # weight of a word's translations (0: off)
    forms: float = setting(0.0, minimum=0, maximum=1)         # weight of its lemma and the lemma's forms (0: off)
    paradigm: bool = False   # a verb's forms found in a chunk add up (a paradigm row outranks a passing form)
    endings: bool = False    # a form the map lacks gets the lemma a regular ending leaves (catched -> catch)
    tenses: float = setting(0.0, minimum=0, maximum=10)  # a verb's forms in the query's tense count this many
                                                         # times (0: off; its other forms count once)
    persons: float = setting(0.0, minimum=0, maximum=10)  # and those in its tense and person this many times
                                                          # more again (0: off; needs tenses)

    def enabled(self) -> bool:
        return self.translations > 0 or self.forms > 0

    def data_files(self) -> tuple[str, ...]:
        """The word lists it reads, by the domain that expands (minirag/domain.py "query.word_lists"): none
        unless it asks for a query's tense."""
        if self.tenses <= 0:
            return ()
        from ..domain import hook
        return hook("query.word_lists")(self)

    def describe(self) -> str:
        parts = [f"translations {self.translations:g}"] * (self.translations > 0)
        parts += [f"forms {self.forms:g}"] * (self.forms > 0)
        parts += ["forms add up"] * self.paradigm + ["regular endings stripped"] * self.endings
        parts += [f"forms of the query's tense x{self.tenses:g}"] * (self.tenses > 0)
        parts += [f"of its person x{self.persons:g} more"] * (self.persons > 0 and self.tenses > 0)
        return f", expanded ({', '.join(parts)})" if parts else ""
