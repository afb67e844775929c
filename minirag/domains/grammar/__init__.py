"""The English/Spanish grammar domain: what `domain: grammar` on a corpus switches on.

    language/   the lexicon stage's miners (bilingual terms, verb forms, paradigms), inflection and the
                tense/person/construction word lists (data/), and query expansion through them
    select/     the answer selector's grammar feature set: concepts, terms, the corpus's vocabulary, a
                question's analysis, the features, what is ruled out, "none of them"
    questions/  learner and off-topic question synthesis
    stages/     the lexicon stage (docs.jsonl -> lexicon.json)

This module only declares the domain: the core reads DOMAIN (minirag/domain.py) and imports a hook's module
when a grammar corpus asks for it, so a corpus without the domain imports none of the modules above.

What it leaves out: everything generic (the core), and the KB itself (kb/, workflow/config.yaml).
"""

from __future__ import annotations

from dataclasses import fields

from minirag.domain import Domain
from minirag.text.expansion import ExpansionSettings

EXPANSIONS = tuple(f.name for f in fields(ExpansionSettings))  # retrievers.<name>.expand: each the grammar's


def refused(corpus) -> list[tuple[str, str]]:
    """The grammar's settings a corpus (config/typed.py `Corpus`) without the domain asks for: (key path,
    what it is)."""
    out = []
    for name, kind in corpus.retrievers.items():
        expand = getattr(kind.s, "expand", None)
        out += [(f"retrievers.{name}.expand.{key}", "query expansion through the grammar's lexicon")
                for key in EXPANSIONS if expand is not None and getattr(expand, key)]
        if "learner" in families(kind.s, "fit_questions"):
            out.append((f"retrievers.{name}.fit_questions.families", "the learner question family"))
    for name, kind in corpus.embedders.items():
        if "learner" in families(kind.s, "questions"):
            out.append((f"embedders.{name}.questions.families", "the learner question family"))
    out += [(f"readers.{name}.features", "the grammar feature set")
            for name, s in corpus.reader_settings.items() if "grammar" in getattr(s, "features", ())]
    if corpus.candidates.terms:
        out.append(("candidates.terms", "a grammatical-terms file"))
    return out


def families(settings, key: str) -> tuple[str, ...]:
    """The question families of a kind's `key` section (`questions`, `fit_questions`), if it has one."""
    section = getattr(settings, key, None)
    return section.families if section is not None else ()


def uses_lexicon(g) -> bool:
    """Whether any job of the corpus reads lexicon.json (a query expansion, learner questions, a reader):
    every other stage's jobs, asked for their inputs, so that a stage reading it needs no word here."""
    from minirag.pipeline.stage import as_list
    from minirag.pipeline.stages import STAGES
    lexicon = str(g.layout.lexicon)
    return any(lexicon in as_list(files) for spec in STAGES if spec.rule != "lexicon" for w in spec.names(g)
               for files in spec.inputs(g, w).values())


def stages() -> tuple:
    """The lexicon stage: docs.jsonl -> lexicon.json, for a grammar corpus whose jobs read the lexicon."""
    from minirag.pipeline.stage import Given, Out, Stage

    def reads(g, w) -> dict:
        from .files import paradigm_lists
        return {"docs": str(g.layout.docs), "word_lists": Given.tracked(paradigm_lists())}

    return (Stage("lexicon", phase="mine", step=10, module="minirag.domains.grammar.stages.lexicon", per=None,
                  names=lambda g: [{}] if uses_lexicon(g) else [], reads=reads,
                  writes={"out": Out("lexicon", at="lexicon.json", check="json_file")}),)


DOMAIN = Domain(
    "grammar",
    hooks={
        "query.expander": "minirag.domains.grammar.language.expand:QueryExpander",
        "query.word_lists": "minirag.domains.grammar.files:expansion_lists",
        "select.features": "minirag.domains.grammar.select.feature_set:GrammarFeatureSet",
        "questions.synthesize": "minirag.domains.grammar.questions.learner_questions:synthesize",
        "questions.terms": "minirag.domains.grammar.select.terms:load_terms",
        "questions.asker": "minirag.domains.grammar.questions.learner_questions:asker",
        "reader.files": "minirag.domains.grammar.files:reader_files",
    },
    # the extractive reader's grammar feature set; an encoder's learner questions (the KB's settings before the key)
    defaults={"readers": ("features", ["grammar"]), "embedders": ("questions", {"families": ["learner"]})},
    refuse=refused,
    stages=stages,
    features=("grammar",),
    question_families=("learner",),
    tags=("conjugation",),
)
