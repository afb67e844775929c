"""The grammatical concepts a question can ask for, and their plainest names in English and Spanish.

A concept is `dimension:value` ("tense:preterite", "person:1s"); its names here are the ones tables and
learners use most ("past tense", "pretérito"). They are what questions synthesized for training are
phrased with (reading/learner_questions.py), so they belong to the code: the readers trained on those questions
change when these do. Further synonyms — what the answer selector recognises in a question, but never
trains with — live in the editable terms file (data/grammar_terms.tsv, terms.py), so editing that file
re-answers without retraining a reader that learns from these questions.

What it leaves out: every synonym but the plainest names, and matching them in text (terms.py).
"""

from __future__ import annotations

DIMENSIONS = ("person", "tense", "mood", "form", "degree", "number", "polarity")

# concept -> (English names, Spanish names), plainest first. A name starting with ~ is weak (terms.py).
CONCEPTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "person:1s": (("first person singular", "~I"), ("yo", "primera persona del singular")),
    "person:2s": (("second person singular", "~you"), ("~tú", "segunda persona del singular")),
    "person:3s": (("third person singular", "~he", "~she"), ("~él", "ella", "usted", "tercera persona del singular")),
    "person:1p": (("first person plural", "~we"), ("nosotros", "nosotras", "primera persona del plural")),
    "person:2p": (("second person plural", "you all"), ("vosotros", "vosotras", "segunda persona del plural")),
    "person:3p": (("third person plural", "~they"), ("ellos", "ellas", "ustedes", "tercera persona del plural")),
    "tense:present": (("present", "present simple"), ("presente", "presente de indicativo")),
    "tense:preterite": (("past tense", "preterite", "past simple", "simple past"),
                        ("pretérito", "pretérito indefinido", "pasado")),
    "tense:imperfect": (("imperfect",), ("imperfecto", "pretérito imperfecto")),
    "tense:future": (("future", "future simple"), ("futuro", "futuro simple")),
    "tense:conditional": (("conditional",), ("condicional", "condicional simple")),
    "tense:present_perfect": (("present perfect",), ("pretérito perfecto compuesto", "pretérito perfecto")),
    "tense:past_perfect": (("past perfect", "pluperfect"), ("pluscuamperfecto", "pretérito pluscuamperfecto")),
    "tense:continuous": (("continuous", "progressive"), ("continuo", "progresivo")),
    "tense:past_continuous": (("past continuous",), ("pasado continuo",)),
    "tense:present_continuous": (("present continuous",), ("presente continuo",)),
    "mood:indicative": (("indicative",), ("indicativo",)),
    "mood:subjunctive": (("subjunctive", "present subjunctive"), ("subjuntivo", "presente de subjuntivo")),
    "mood:imperfect_subjunctive": (("imperfect subjunctive", "past subjunctive"),
                                   ("imperfecto de subjuntivo", "pretérito imperfecto de subjuntivo")),
    "mood:imperative": (("command", "imperative"), ("imperativo", "orden")),
    "form:past_participle": (("past participle", "participle"), ("participio",)),
    "form:gerund": (("gerund", "-ing form"), ("gerundio",)),
    "form:infinitive": (("infinitive", "base form"), ("infinitivo",)),
    "degree:comparative": (("comparative",), ("comparativo",)),
    "degree:superlative": (("superlative",), ("superlativo",)),
    "number:singular": (("singular",), ("singular",)),
    "number:plural": (("plural",), ("plural",)),
    "polarity:affirmative": (("affirmative",), ("afirmativo", "afirmativa")),
    "polarity:negative": (("negative",), ("negativo", "negativa")),
    "polarity:question": (("question form",), ("interrogativo",)),
}

# a Spanish paradigm's persons in order: a cell of six forms ("quepa, quepas, quepa, ...") names them so
PERSONS = ("yo", "tú", "él / ella / usted", "nosotros", "vosotros", "ellos / ellas / ustedes")
