"""Questions about a reading fact, in English or Spanish, worded as learners word them.

`ask(fact, lang, rng)` picks a seeded template for the fact's kind: a table row's column and
key ("What is the past participle of write?", "¿Cuál es el participio de escribir?", "write
past participle?"), an arrow's key ("What does make become?"), a gloss or a definition.

What it leaves out: the contexts and the answers (reading_tasks.py).
"""

from __future__ import annotations

import numpy as np

from .reading_facts import Fact, strip_accents

ROW_QUESTIONS = {
    "en": ("What is the {col} of {key}?", "{col} of {key}?", "What's the {col} for '{key}'?", "{key}: {col}?",
           "what is the {col} of {key}", "Tell me the {col} of {key}.", "{key} {col}?",
           "Which is the {col} of '{key}'?", "whats the {col} of {key}"),
    "es": ("¿Cuál es {art} {col} de {key}?", "{key}: ¿{col}?", "¿{col} de {key}?", "¿Me dices {art} {col} de '{key}'?",
           "{col} de {key}", "¿Qué {col} tiene {key}?", "cual es {art} {col} de {key}"),
}
TRANSLATION_QUESTIONS = {
    "en": ("How do you say '{key}' in {target}?", "What is '{key}' in {target}?", "{key} in {target}?",
           "{target} for {key}?"),
    "es": ("¿Cómo se dice '{key}' en {target}?", "¿Qué es '{key}' en {target}?", "{key} en {target}",
           "como se dice {key} en {target}"),
}
# A column named after a language asks for a translation: "How do you say 'verb' in Spanish?"
LANGUAGE_COLUMNS = {"english": ("English", "inglés"), "inglés": ("English", "inglés"), "ingles": ("English", "inglés"),
                    "spanish": ("Spanish", "español"), "español": ("Spanish", "español"),
                    "espanol": ("Spanish", "español")}
ARROW_QUESTIONS = {
    "en": ("What does {key} become?", "{key} → ?", "{heading}: what does {key} change to?",
           "What do you get from {key}?", "{key} becomes what?"),
    "es": ("¿En qué se convierte {key}?", "{key} → ¿?", "{heading}: ¿qué da {key}?", "¿Qué forma da {key}?",
           "{key} se convierte en qué"),
}
MEANING_QUESTIONS = {
    "en": ("What does '{key}' mean?", "What does {key} mean?", "Meaning of '{key}'?", "'{key}' means what?",
           "what does {key} mean"),
    "es": ("¿Qué significa '{key}'?", "¿Qué quiere decir {key}?", "Significado de '{key}'", "que significa {key}"),
}
FEMININE_ENDINGS = ("a", "ión", "dad", "tad", "tud", "umbre", "iz", "ez")


def article(column: str) -> str:
    """A Spanish article for a column name, by its ending: la raíz, la terminación, el participio."""
    last = column.split()[-1] if column.split() else column
    return "la" if last.endswith(FEMININE_ENDINGS) else "el"


def ask(fact: Fact, lang: str, rng: np.random.Generator) -> str:
    """A question for the fact in `lang` ("en" or "es"), template drawn with `rng`."""
    lang = lang if lang in ("en", "es") else "en"
    col = fact.relation.lower()
    if fact.kind == "row" and col in LANGUAGE_COLUMNS:
        templates, fill = TRANSLATION_QUESTIONS[lang], {"target": LANGUAGE_COLUMNS[col][lang == "es"]}
    elif fact.kind == "row":
        templates, fill = ROW_QUESTIONS[lang], {"col": col, "art": article(col)}
    elif fact.kind == "arrow":
        templates, fill = ARROW_QUESTIONS[lang], {"heading": fact.heading}
    else:
        templates, fill = MEANING_QUESTIONS[lang], {}
    question = templates[int(rng.integers(len(templates)))].format(key=fact.key, **fill)
    roll = rng.random()
    if roll < 0.1:
        question = strip_accents(question)  # a learner's keyboard
    elif roll < 0.2:
        question = question.lower().strip("¿?").strip()
    return question


# ---------------------------------------------------------------- the split
