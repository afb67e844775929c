"""The corpus-level `domain` key, and the modules only its grammar domain runs.

A corpus without `domain` gets the generic core: the generic answer selector, analyzers that follow the
corpus's own languages, no lexicon job and no grammar word list in any job. `domain: grammar` switches
on the English/Spanish grammar the KB is about: the lexicon stage, query expansion through translations
and verb forms, the selector's grammar features and terms, learner and off-topic question synthesis,
and the conjugation slice of the evaluation.

GRAMMAR_MODULES is the one list of the modules whose job is that grammar: a corpus without the domain
imports none of them while it builds or answers (tests/workflow/test_domain_graph.py checks it). Core modules
that reach one import it inside the function that runs only on the grammar path.

What it leaves out: moving these modules into a package of their own, and the extension points a
second domain would fill (the core still asks `grammar(cc)` where the two paths part).
"""

from __future__ import annotations

from typing import Any, Mapping

GRAMMAR = "grammar"

GRAMMAR_MODULES = (
    "minirag.text.lexicon", "minirag.text.expand", "minirag.text.inflection", "minirag.text.slots",
    "minirag.text.verb_forms", "minirag.stages.lexicon",
    "minirag.answer.reading.learner_questions", "minirag.answer.reading.learner_translations",
    "minirag.answer.reading.offtopic", "minirag.answer.select.concepts", "minirag.answer.select.terms",
)

# The word lists only the grammar reads (text/data/): never an input of a generic corpus's jobs.
GRAMMAR_WORD_LISTS = ("tenses.txt", "persons.txt", "constructions.txt")


def grammar(cc: Mapping[str, Any]) -> bool:
    """Whether a corpus's checked config switches the grammar domain on."""
    return cc.get("domain") == GRAMMAR
