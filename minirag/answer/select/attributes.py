"""What attribute a question asks for when it names none: "how heavy" is a weight, "how much does it cost" a price.

    asked("How heavy is the grinder?")   -> {"weight"}
    named("Weight (net)")               -> {"weight"}
    with_unit("3.1 kg")                  -> {"weight"}

A user asks in their words, a manual answers in its headers': the table's row is *Weight*, its column
*Price (EUR)*, its sentence "the guarantee lasts two years". ATTRIBUTES maps each attribute to the
question cues that ask for it, the words a header or sentence names it with, and the units its values
carry, in English and Spanish. The generic features (generic.py) read a candidate's row key, column
header and line through it, and check its value's unit.

What it leaves out: attributes a cue does not reach (a header the question names in its own words is
matched by the generic features' stems), and similarity by meaning (a pretrained encoder's).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...text.words import fold

NUMBER = (r"(?:\d+(?:[.,]\d+)?(?:\s*[–-]\s*\d+(?:[.,]\d+)?)?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|"
          r"eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|hundred|half|un|una|dos|tres|cuatro|cinco|"
          r"seis|siete|ocho|nueve|diez|quince|veinte|treinta))")
# attribute -> (question cues, words naming it in a header or line, units of its values); general words of
# measurement and tables, never one corpus's nouns
ATTRIBUTES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "weight": (("how heavy", "weigh", "weight", "heavy", "cuanto pesa", "peso"),
               ("weight", "weighs", "mass", "peso"), ("kg", "g", "lb", "lbs", "oz", "kilograms?", "grams?")),
    "price": (("how much is", "how much are", "how much does", "cost", "price", "expensive", "cuanto cuesta",
               "precio"), ("price", "cost", "costs", "fee", "eur", "usd", "precio"),
              ("eur", "€", "usd", r"\$", "£", "gbp", "euros?", "dollars?")),
    "noise": (("how loud", "loud", "noise", "noisy", "ruido"), ("noise", "loudness", "sound", "ruido"),
              (r"db\(?a?\)?", "decibels?")),
    "size": (("how big", "how large", "size", "dimension", "how tall", "how wide", "how deep", "how long", "tamano",
              "medidas"), ("dimensions", "size", "height", "width", "depth", "length", "tamano", "medidas"),
             ("mm", "cm", "m", "in", "inch(?:es)?", "characters?", "digits?")),
    "power": (("power", "watt", "wattage", "potencia"), ("power", "wattage", "potencia"), ("w", "kw", "watts?")),
    "voltage": (("voltage", "volts", "tension"), ("voltage", "mains", "supply"), ("v", "volts?", "hz")),
    "capacity": (("how much does it hold", "how much can", "capacity", "hold", "capacidad"),
                 ("capacity", "holds", "capacidad"), ("ml", "l", "litres?", "liters?", "cups?")),
    "temperature": (("temperature", "how hot", "how warm", "how cold", "what heat", "degrees", "temperatura"),
                    ("temperature", "heat", "temperatura"), ("°c", "°f", "degrees", "c", "f")),
    "duration": (("how long", "how many minutes", "how many hours", "how many days", "how many weeks",
                  "how many years", "how soon", "after how", "how far ahead", "how far in advance", "how early",
                  "cuanto tiempo", "cuanto dura", "con cuanta antelacion"),
                 ("duration", "time", "period", "lasts", "minutes", "hours", "days", "weeks",
                  "months", "years", "duracion"),
                 ("seconds?", "s", "minutes?", "min", "hours?", "h", "days?", "weeks?", "months?", "years?")),
    "frequency": (("how often", "how frequently", "cada cuanto", "con que frecuencia"),
                  ("every", "each", "daily", "weekly", "monthly", "frequency", "cada"), ()),
    "speed": (("how fast", "speed", "rpm", "velocidad"), ("speed", "rpm", "velocidad"), ("rpm", r"km/h", "mph")),
    "count": (("how many",), ("number of", "count"), ()),
    "percent": (("what percentage", "what percent", "how much percent", "porcentaje"), ("percent", "rate", "%"),
                ("%", "percent", "por ciento")),
    # a table's description and remedy columns: "what does X mean", "what should I do on X"
    "meaning": (("mean", "meaning", "stand for", "que significa", "que quiere decir"),
                ("meaning", "means", "description", "definition", "significado", "descripcion"), ()),
    "action": (("what should i do", "what do i do", "what to do", "how do i fix", "how to fix", "que hago",
                "que debo hacer"), ("what to do", "action", "fix", "remedy", "solution", "que hacer", "solucion"), ()),
}
# how a user asks for each attribute of a thing ({x}), in the synthesised questions the reader learns from
ASK: dict[str, tuple[str, ...]] = {
    "weight": ("How much does {x} weigh?", "How heavy is {x}?"),
    "price": ("How much does {x} cost?", "How much is {x}?", "What is the price of {x}?"),
    "noise": ("How loud is {x}?",), "size": ("How big is {x}?", "What size is {x}?"),
    "power": ("What power does {x} have?",), "voltage": ("What voltage does {x} need?",),
    "capacity": ("How much does {x} hold?",), "temperature": ("What temperature for {x}?", "How hot is {x}?"),
    "duration": ("How long is {x}?", "How long does {x} take?"), "frequency": ("How often for {x}?",),
    "speed": ("How fast is {x}?",), "count": ("How many {x}?",), "percent": ("What percentage is {x}?",),
    "meaning": ("What does {x} mean?", "What is {x}?"),
    "action": ("What should I do on {x}?", "What do I do when {x} shows?", "How do I fix {x}?"),
}
PRICE_WORD_RE = re.compile(r"\b(cost|price|pay|fee|expensive|cuesta|precio)")
FREQUENCY_RE = re.compile(r"\b(every|(?:once|twice|\w+ times) (?:a|an|per|each)|daily|weekly|monthly|yearly|annually|"
                          r"cada|al dia|a la semana|al mes)\b")


@lru_cache(maxsize=1)
def cue_patterns() -> list[tuple[re.Pattern, str]]:
    """(a cue as a whole-word pattern over the folded question, its attribute), longest cue first."""
    pairs = [(cue, name) for name, (cues, _, _) in ATTRIBUTES.items() for cue in cues]
    pairs.sort(key=lambda p: -len(p[0]))
    return [(re.compile(r"\b" + re.escape(cue) + r"\w*"), name) for cue, name in pairs]


@lru_cache(maxsize=None)
def unit_pattern(name: str) -> re.Pattern | None:
    units = ATTRIBUTES[name][2]
    if not units:
        return None
    alt = "|".join(units)
    # a unit written as a word may follow a word of its own ("2 working days", "3 full years"); "3 people in"
    # is no length: a symbol-short unit follows its number directly
    words = "|".join(u for u in units if len(re.sub(r"[^a-z]", "", u)) >= 3) or "(?!)"
    return re.compile(rf"(?:{NUMBER})\s*(?:{alt})(?![^\W\d_])|(?:{NUMBER})\s+[^\W\d_]{{3,}}\s+(?:{words})(?![^\W\d_])"
                      rf"|(?<![^\W\d_])(?:{alt})\s*(?:{NUMBER})", re.I)


def asked(query: str) -> frozenset[str]:
    """The attributes a question's cues ask for (none when it names no cue)."""
    return cues_of(query)[0]


def cues_of(query: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the attributes a question's cues ask for, the folded words of those cues: "how heavy" gives
    {"how", "heavy"}, words that ask for a value, which the pages state in words of their own)."""
    folded, found, words, how_much = fold(query), set(), set(), False
    for pattern, name in cue_patterns():
        for m in pattern.finditer(folded):
            found.add(name)
            words.update(m.group().split())
            how_much |= name == "price" and m.group().startswith("how much")
    if "duration" in found and "frequency" in found:  # "how often" holds no "how long"
        found.discard("duration")
    if how_much and len(found) > 1 and not PRICE_WORD_RE.search(folded):  # "how much does it weigh": a weight
        found.discard("price")
    return frozenset(found), frozenset(words)


@lru_cache(maxsize=1)
def naming_patterns() -> list[tuple[re.Pattern, str]]:
    return [(re.compile(r"\b" + re.escape(fold(word)) + r"\b"), name)
            for name, (_, words, _) in ATTRIBUTES.items() for word in words]


def named(text: str) -> frozenset[str]:
    """The attributes a header, row key or line names in its own words ("Weight (net)": weight)."""
    folded = fold(text) if text else ""
    return frozenset(name for pattern, name in naming_patterns() if folded and pattern.search(folded))


def with_unit(text: str) -> frozenset[str]:
    """The attributes whose unit a value states a quantity in ("3.1 kg": weight), a frequency when it says
    how often ("every two weeks")."""
    found = {name for name in ATTRIBUTES if (p := unit_pattern(name)) is not None and p.search(text)}
    if FREQUENCY_RE.search(fold(text)):
        found.add("frequency")
    return frozenset(found)


def prose_wh(name: str) -> str:
    """The question words that ask for an attribute's value in a sentence: "How heavy", "How long"."""
    lead = ASK[name][0].split("{x}")[0].strip()
    return re.sub(r"\s+(?:is|does|do|for|have|need)$", "", lead)
